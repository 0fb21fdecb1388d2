"""The advisor's search: optuna's TPE sampler over the space, told what each configuration costs.

Why optuna's TPE: every value is a choice among a few (chunker, size, first stage, expansion, top-k), the
space holds about two thousand configurations of which a few hundred can be tried, and TPE models such
categorical spaces jointly (``multivariate``) from few trials, seeded for reproducibility, with ask/tell so the
loop keeps control of time. A Gaussian-process optimiser wants continuous values; a grid wastes the budget on
chunk sets that cannot pay off.

The cost model shapes the search (``costs.Costs``):

* a configuration whose chunk sets cannot be built in the time left is not run: it is told to TPE as
  infeasible (a violated constraint), so the sampler learns to avoid it, and recorded as skipped;
* configurations that share a chunk set are tried together: when a trial builds a new chunk set, the best
  retrieval settings found so far (first stage, expansion, top-k) are queued on it right away, so a new
  chunking is judged at its best rather than on one random draw; a new chunking is first tried on its own
  chunk set (multi-granularity, which needs two coarser cuts of it too, only once the sampler asks again);
* the presets that are points of the space are queued first (the advice starts from them);
* a configuration proposed again is not re-run: it is told to TPE as a failed proposal and an untried one
  is queued instead, on a chunk set that is already built when there is one (cheap exploration).

Time: the loop stops before ``deadline`` (checked before each trial from the estimates, and enforced by a
cancel token that also ends a chunk-set build in progress); the user's cancel token stops it at once. Each
finished trial is handed to ``on_trial`` (the record is updated there), so a stopped search resumes from its
record: earlier trials are given to the sampler again (``add_trial``) and not re-run.

Cross-fitting (``crossfit``) runs one search per fold with a shared ``ScoreBook``: a configuration runs once on
every question, and each search reads only its training questions' figures from the book (``train``).
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.costs import Costs
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective
from workbench.core.evaluate.advise.space import PARAMS, Params, Space, chunk_config, label, preset_params
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, run_sweep
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.jobs import Cancelled, CancelToken, ProgressEvent, ProgressSink

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.needs import AdviceWorkspace

STARTUP_TRIALS = 10  # random proposals before TPE models the results
TOGETHER = 5  # retrieval settings queued on a newly built chunk set
MAX_IDLE = 60  # proposals in a row that ran nothing (skipped or repeated): the reachable space is exhausted
COST = "build_time"  # the constraint told to TPE: > 0 when a configuration's chunk sets cannot be built in time


@dataclass
class Trial:
    """One configuration tried on the fit half: ``score`` (the objective's mean over the questions it counts, e.g.
    recall 0–1 over the covered ones) and ``tokens`` (mean context tokens) when ``state`` is ``done``; ``skipped``
    (its chunk sets could not be built in time) or ``failed`` (``note`` says why) otherwise."""

    number: int
    params: Params
    state: str
    score: float | None = None
    tokens: float | None = None
    seconds: float = 0.0
    built: list[str] = field(default_factory=list)
    note: str = ""
    questions: int = 0
    fold: int | None = None  # the fold held out while this search chose (cross-fitting); None: the search on all

    @property
    def key(self) -> str:
        """The configuration for people (``space.label``)."""
        return label(self.params)

    def to_dict(self, objective: str = DEFAULT_OBJECTIVE) -> dict[str, Any]:
        """JSON-ready; the score under the objective's name (``recall``, ``iou`` …)."""
        return {"number": self.number, "params": self.params, "key": self.key, "state": self.state,
                objective: self.score, "tokens": self.tokens, "seconds": round(self.seconds, 3),
                "built": self.built, "note": self.note, "questions": self.questions, "fold": self.fold}

    @classmethod
    def from_dict(cls, data: dict[str, Any], objective: str = DEFAULT_OBJECTIVE) -> Trial:
        """A trial a record kept (its score under ``objective``'s name)."""
        return cls(int(data["number"]), dict(data["params"]), str(data["state"]), data.get(objective),
                   data.get("tokens"), float(data.get("seconds", 0.0)), list(data.get("built", [])),
                   str(data.get("note", "")), int(data.get("questions", 0)),
                   None if data.get("fold") is None else int(data["fold"]))


class Until(CancelToken):
    """Cancelled when ``parent`` is, or once ``deadline`` (``time.monotonic``) has passed."""

    def __init__(self, parent: CancelToken | None, deadline: float) -> None:
        super().__init__()
        self.parent = parent
        self.deadline = deadline

    @property
    def cancelled(self) -> bool:
        """True once the parent was cancelled or the deadline passed."""
        return super().cancelled or (self.parent is not None and self.parent.cancelled) \
            or time.monotonic() >= self.deadline

    def check(self) -> None:
        """Raise ``Cancelled`` when cancelled."""
        if self.cancelled:
            raise Cancelled()


def done_trials(trials: Sequence[Trial]) -> list[Trial]:
    """The trials that ran, best first (the objective, then fewer tokens, then earlier)."""
    ran = [t for t in trials if t.state == "done" and t.score is not None]
    return sorted(ran, key=lambda t: (-(t.score or 0.0), t.tokens or 0.0, t.number))


class Search:
    """The search loop over ``space`` on the fit half (see the module docstring). With a ``book``, ``fit`` is
    every question (what a configuration runs on, once) and ``train`` the questions this search scores on (the
    book's objective is the search's). ``objective``: what the search maximises (default recall)."""

    def __init__(self, ws: AdviceWorkspace, fit: QuestionSet, space: Space, costs: Costs, seed: int,
                 trials: Sequence[Trial] = (), book: ScoreBook | None = None, train: Sequence[int] = (),
                 fold: int | None = None, objective: Objective = RECALL) -> None:
        self.ws, self.fit, self.space, self.costs, self.seed = ws, fit, space, costs, seed
        self.book, self.fold = book, fold
        self.objective = book.objective if book is not None else objective
        self.train = tuple(train) or tuple(q.index for q in fit.questions)
        self.reader = "all questions" if fold is None else f"fold {fold + 1}"
        self.trials: list[Trial] = list(trials)
        self.rng = random.Random(seed)
        self.queued: set[tuple[Any, ...]] = set()  # configurations queued to be tried together
        self.rows: dict[str, ConfigResult] = {}  # each trial's questions on the fit half (this session's)
        self.stopped = ""  # why the search ended: "time", "exhausted", "cancelled"

    # ----- optuna ---------------------------------------------------------------------------------
    def _study(self) -> Any:
        import optuna
        from optuna.samplers import TPESampler

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        sampler = TPESampler(seed=self.seed, multivariate=True, n_startup_trials=STARTUP_TRIALS)
        study = optuna.create_study(direction="maximize", sampler=sampler)
        self.distributions: dict[str, optuna.distributions.BaseDistribution] = {
            name: optuna.distributions.CategoricalDistribution(list(choices))
            for name, choices in self.space.choices.items()}
        for t in self.trials:  # a resumed search: earlier trials inform the sampler, nothing is re-run
            if t.state in ("done", "skipped") and self._in_space(t.params):
                study.add_trial(optuna.trial.create_trial(
                    params=t.params, distributions=self.distributions, value=t.score or 0.0,
                    constraints={COST: 0.0 if t.state == "done" else 1.0}))
        tried = {self._key(t.params) for t in self.trials}
        for params in preset_params(self.space.budget, self.space):
            if self._key(params) not in tried:
                study.enqueue_trial(params)
        return study

    def _in_space(self, params: Params) -> bool:
        return all(params.get(k) in self.space.choices[k] for k in PARAMS)

    @staticmethod
    def _key(params: Params) -> tuple[Any, ...]:
        return tuple(params[k] for k in PARAMS)

    # ----- the loop -----------------------------------------------------------------------------------
    def run(self, deadline: Callable[[], float], progress: ProgressSink | None = None,
            cancel: CancelToken | None = None, on_trial: Callable[[Trial], None] | None = None,
            started: float | None = None, limit_s: float = 0.0,
            hard_deadline: Callable[[], float] | None = None) -> list[Trial]:
        """Try configurations until ``deadline()`` (re-read before each trial: the confirm phase's reserve
        follows the measured search rate), the space is exhausted or ``cancel``; returns every trial.
        ``hard_deadline``: when a trial already started must end (what its chunk sets may take; default
        ``deadline``): a cross-fitted fold's search stops asking at the end of its share, but a chunk set it
        starts serves the whole run, so it may build past that share."""
        self.queued.clear()  # a new study: nothing is queued on it yet (a search may run in several turns)
        study = self._study()
        started = time.monotonic() if started is None else started
        results: dict[tuple[Any, ...], Trial] = {self._key(t.params): t for t in self.trials}
        idle = 0
        while True:
            if cancel is not None and cancel.cancelled:
                self.stopped = "cancelled"
                break
            if time.monotonic() >= deadline():
                self.stopped = "time"
                break
            if idle >= MAX_IDLE or len(results) >= self.space.size:
                self.stopped = "exhausted"
                break
            trial = study.ask(self.distributions)
            params = {k: trial.params[k] for k in PARAMS}
            key = self._key(params)
            if key in results:  # proposed again: try an untried neighbour on a built chunk set instead
                study.tell(trial, state=_failed())
                idle += 1
                alternative = self._untried(results)
                if alternative is not None:
                    study.enqueue_trial(alternative)
                continue
            probe = self._probe(params, results)
            if probe is not None:  # a new chunking is first tried on its own chunk set, not with coarser cuts too
                study.tell(trial, state=_failed())
                study.enqueue_trial(probe)
                self.queued.add(self._key(probe))
                continue
            result = self._try(params, (hard_deadline or deadline)(), progress, cancel, started, limit_s)
            if result is None:  # the deadline or the user stopped it mid-way
                study.tell(trial, state=_failed())
                self.stopped = "cancelled" if cancel is not None and cancel.cancelled else "time"
                break
            results[key] = result
            self.trials.append(result)
            trial.set_constraint(COST, 0.0 if result.state == "done" else 1.0)
            study.tell(trial, result.score or 0.0)
            idle = idle + 1 if result.state != "done" else 0
            if on_trial is not None:
                on_trial(result)
            if result.state == "done" and result.built:
                self._together(study, params, results)
        return self.trials

    def _try(self, params: Params, deadline: float, progress: ProgressSink | None, cancel: CancelToken | None,
             started: float, limit_s: float) -> Trial | None:
        """Build what ``params`` needs and run it on the fit half; None when stopped mid-way."""
        number = len(self.trials) + 1
        t0 = time.monotonic()
        if self.book is not None and label(params) in self.book:  # another fold's search ran it: read, not run
            score, tokens, n = self.book.mean(label(params), self.train, self.reader)
            return Trial(number, params, "done", score, tokens, 0.0, questions=n, fold=self.fold)
        try:
            strategy = self.space.strategy(params)
            configs = strategy.chunk_configs()
            need = self.costs.build_seconds(configs)
        except ValueError as exc:
            return Trial(number, params, "failed", note=str(exc)[:200])
        searching = len(self.fit.questions) * self.costs.per_search
        if t0 + need + searching > deadline:
            return Trial(number, params, "skipped", note=f"its chunk sets need about {need:.0f} s to build; "
                                                         f"{max(0.0, deadline - t0):.0f} s were left")
        token = Until(cancel, deadline)
        built = []
        try:
            for config in dict.fromkeys(configs):
                if self.costs.is_built(config):
                    continue
                estimate = self.costs.estimate(config)
                cut = chunking_label(config)
                say(progress, f"trial {number}: building {cut} ({estimate.describe()})")
                self.ws.sets.ensure_chunk_set(config, _building(progress, started, limit_s, number, cut),
                                              token, scope=self.costs.scope)
                self.costs.built.add(config)
                built.append(cut)
            s0 = time.monotonic()
            sweep = run_sweep(self.ws, self.fit, [SweepConfig(label(params), strategy, "advise", dict(params))],
                              None, token)
        except Cancelled:
            return None
        except ValueError as exc:  # e.g. a chunker that cannot cut these documents
            return Trial(number, params, "failed", seconds=time.monotonic() - t0, built=built, note=str(exc)[:200])
        self.costs.searched(len(self.fit.questions), time.monotonic() - s0)
        if self.book is not None:
            self.book.add(label(params), sweep.results[0])
            score, tokens, n = self.book.mean(label(params), self.train, self.reader)
            trial = Trial(number, params, "done", score, tokens, time.monotonic() - t0, built, questions=n,
                          fold=self.fold)
        else:
            self.rows[label(params)] = sweep.results[0]
            summary = sweep.results[0].summary
            name = self.objective.name
            trial = Trial(number, params, "done", summary[name].mean, summary["context_tokens"].mean,
                          time.monotonic() - t0, built, questions=summary[name].n)
        best = done_trials([*self.trials, trial])[0]
        figure = self.objective.figure
        say(progress, f"{'' if self.fold is None and self.book is None else self.reader + ', '}trial {number}: "
                      f"{trial.key} → {self.objective.label} {figure(trial.score)} at "
                      f"{trial.tokens:.0f} tokens (best so far {figure(best.score)}: {best.key}); "
                      f"{time.monotonic() - started:.0f} of {limit_s:.0f} s")
        return trial

    def _probe(self, params: Params, results: dict[tuple[Any, ...], Trial]) -> Params | None:
        """For a proposal that needs its own chunk set and coarser ones built: the same chunking with the best
        retrieval settings so far that need no coarse set (None when the proposal needs one set at most)."""
        try:
            configs = self.space.strategy(params).chunk_configs()
        except ValueError:
            return None
        if len(configs) < 2 or self.costs.is_built(configs[0]):
            return None
        for other in self._with_best_settings(params):
            if other["expansion"] != "multi-granularity" and self._key(other) not in results \
                    and self._in_space(other):
                return other
        return None

    def _with_best_settings(self, params: Params) -> Iterator[Params]:
        """The chunking of ``params`` with the retrieval settings of each trial done so far, best first."""
        for best in done_trials(self.trials):
            yield {**params, **{k: best.params[k] for k in ("search", "expansion", "top_k")}}

    def _together(self, study: Any, params: Params, results: dict[tuple[Any, ...], Trial]) -> None:
        """Queue the best retrieval settings so far on the chunking ``params`` just built (those that need a
        coarse chunk set not built yet are left to the sampler)."""
        queued = 0
        for other in self._with_best_settings(params):
            key = self._key(other)
            if key in results or key in self.queued or not self._in_space(other):
                continue
            try:
                if not all(self.costs.is_built(c) for c in self.space.strategy(other).chunk_configs()):
                    continue
            except ValueError:
                continue
            study.enqueue_trial(other)
            self.queued.add(key)
            queued += 1
            if queued >= TOGETHER:
                break

    def _untried(self, results: dict[tuple[Any, ...], Trial]) -> Params | None:
        """A configuration not tried or queued yet, drawn at random (seeded): one whose own chunk set is built
        when there is such a one (cheap), else any; None when every configuration was tried."""
        untried = [p for p in self.space.configurations()
                   if self._key(p) not in results and self._key(p) not in self.queued]
        if not untried:
            return None
        ready = {(c, size) for c, size in self.space.chunkings() if self.costs.is_built(chunk_config(c, size))}
        built = [p for p in untried if (p["chunker"], p["size"]) in ready]
        choice = self.rng.choice(built or untried)
        self.queued.add(self._key(choice))
        return choice


def _failed() -> Any:
    from optuna.trial import TrialState

    return TrialState.FAIL


def say(progress: ProgressSink | None, message: str) -> None:
    """A line every listener shows (a notice: no counts)."""
    if progress is not None:
        progress(ProgressEvent("advising", 0, 0, message))


def _building(progress: ProgressSink | None, started: float, limit_s: float, number: int,
              what: str) -> ProgressSink | None:
    """A progress sink for one chunk-set build inside the advice: seconds spent of the time limit, and what is
    being built."""
    if progress is None:
        return None

    def sink(event: ProgressEvent) -> None:
        if event.total:  # counts are seconds of the limit (no rate or time-left guess from them)
            elapsed = time.monotonic() - started
            progress(ProgressEvent("advising", int(elapsed), max(1, int(limit_s)),
                                   f"s of the limit; trial {number}: {event.stage} {what} {event.done}/{event.total}"))

    return sink
