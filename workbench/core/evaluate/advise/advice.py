"""``advise``: find the best strategy for one question set's corpus at a context budget, and say how sure it is.

1. **Plan** (``plan_advice``, nothing built): store the set's corpora, split the questions into a fit and a
   confirm half (``split``), list the space and what its chunk sets will cost (``costs``), and how much the
   time limit allows.
2. **Search** the fit half (``optimise.Search``) until the time limit less the confirm half's reserve, maximising
   the objective (``objective``: a registered metric, recall unless asked otherwise; "recall" below).
3. **Confirm** the best three on the confirm half against ``plain`` and ``hybrid`` at the same budget
   (``confirm``; the best preset stays first unless the fit half tells the best configuration apart from it:
   ``selection``), and save the pick as a named strategy in the data folder.

The run is recorded like every evaluation run (kind ``advice``): the seed, the split, the space and the budget
in its config, every trial in its summary as it finishes, and at the end the confirm half's rows per question
(so ``runs --show``, ``eval --compare RUN:N`` and ``eval --rerun`` work on it). A stopped run — cancelled or cut by
its time limit — resumes from that record (``resume_advice``): its trials are not run again.

With K ≥ 3 folds (``folds``) steps 2 and 3 are cross-fitted instead (``crossfit``): one search per fold on the
other folds' questions, each fold's pick scored on its held questions (the out-of-fold recall, compared with
``plain`` and ``hybrid`` on every question), then a last search on all questions whose pick is saved. The K + 1
searches share the time limit (they take turns, three each, every turn an equal share of what is left) and one
``ScoreBook``: a configuration runs once, on every question. Two folds are the fit/confirm split above.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.confirm import CANDIDATES, Confirmation, confirm, fixed_rows
from workbench.core.evaluate.advise.costs import Costs
from workbench.core.evaluate.advise.crossfit import CrossFit, cross_fit
from workbench.core.evaluate.advise.headline import Headline
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective, objective_for
from workbench.core.evaluate.advise.optimise import Search, Trial, done_trials, say
from workbench.core.evaluate.advise.rules import DEFAULT_RULE, RULES
from workbench.core.evaluate.advise.selection import Selection, select
from workbench.core.evaluate.advise.space import Space, chunk_config, usable_chunkers
from workbench.core.evaluate.advise.split import Folds, Split, fold_questions, split_questions
from workbench.core.evaluate.datasets import DatasetError, index_corpora, load_question_set
from workbench.core.evaluate.metrics import summary_to_dict
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.records import (
    RunConfig,
    code_version,
    find_run,
    list_runs,
    question_rows,
    recorded,
    run_config,
)
from workbench.core.evaluate.sweep import SweepResult
from workbench.core.index.estimate import BuildEstimate, about, duration
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.store import Scope
from workbench.core.store.rows import RunRow

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.needs import AdviceWorkspace

KIND = "advice"
CONFIRM_MARGIN = 1.5  # the confirm half's reserve: its measured search time, with this margin
CONFIRM_CONFIGS = CANDIDATES + 3  # three candidates, two baselines, one reference


@dataclass
class AdvicePlan:
    """What an advice run will do, before it does it."""

    qset: QuestionSet
    split: Split | None  # two folds: the fit/confirm split
    space: Space
    seed: int
    time_limit_s: float
    scope: Scope
    costs: Costs
    name: str
    notes: list[str] = field(default_factory=list)
    chunkings: dict[tuple[str, int], BuildEstimate] = field(default_factory=dict)
    folds: Folds | None = None  # three folds or more: cross-fitting
    rule: str = DEFAULT_RULE
    objective: Objective = RECALL  # what the search maximises and the verdict judges

    def halves(self) -> tuple[QuestionSet, QuestionSet]:
        """``(fit, confirm)``: the questions searched and those judged afterwards (cross-fitting: every question,
        twice)."""
        if self.split is None:
            return self.qset, self.qset
        return self.split.halves(self.qset)

    @property
    def confirm_indexes(self) -> list[int]:
        """The questions the recorded rows cover: the confirm half, or every question when cross-fitting."""
        return list(self.split.confirm) if self.split is not None else [q.index for q in self.qset.questions]

    def describe_questions(self) -> str:
        """The split or the folds in one line."""
        if self.split is not None:
            return self.split.describe()
        assert self.folds is not None
        return f"{self.folds.describe()}, cross-fitted"

    def expected_build_s(self) -> float:
        """Seconds to build every chunking's own set not built yet (the estimates)."""
        return sum(e.seconds for e in self.chunkings.values())

    def lines(self) -> list[str]:
        """What it will try and how long it expects, for people."""
        ready = [k for k, e in self.chunkings.items() if e.seconds == 0]
        fit, _ = self.halves()
        per_trial = len(fit.questions) * self.costs.per_search
        out = [f"advice for {self.qset.name}: {self.describe_questions()}; selection rule {self.rule}; "
               f"optimising {self.objective.label}",
               f"space: {self.space.describe()}",
               f"chunk sets: {len(self.chunkings)} chunkings, {len(ready)} built already; building all the others "
               f"would take {about(self.expected_build_s())} (estimated before building)"]
        for chunker in self.space.chunkers:
            costs = [f"{size}: {duration(e.seconds) if e.seconds else 'built'}"
                     for (c, size), e in self.chunkings.items() if c == chunker]
            out.append(f"  {chunker:<20} {', '.join(costs)}")
        _, half = self.halves()
        reserve = confirm_reserve(self, len(half.questions))
        if self.folds is None:
            out.append(f"time limit {duration(self.time_limit_s)}: each trial searches {len(fit.questions)} fit "
                       f"questions ({about(per_trial)} once its chunk sets exist); the best {CANDIDATES} are "
                       f"then confirmed on the other half against plain and hybrid at the same budget "
                       f"({about(reserve)} kept aside for it)")
        else:
            k = self.folds.k
            out.append(f"time limit {duration(self.time_limit_s)} for all {k} folds: {k + 1} searches (one per fold "
                       f"on the other folds' questions, then one on all of them for the final pick) share it; a "
                       f"configuration runs once on all {len(fit.questions)} questions ({about(per_trial)} once its "
                       f"chunk sets exist) and every fold reads its own questions' figures; chunk sets are built "
                       f"once for the whole run; each fold's pick is then scored on its held questions and the "
                       f"final pick, plain and hybrid on all ({about(reserve)} kept aside for it)")
        notes = list(self.notes)
        if reserve >= self.time_limit_s:
            notes.append(f"the confirm half alone needs {about(reserve)} (its baselines' chunk sets are "
                         "not built yet): the run will take longer than the time limit and try nothing on the fit "
                         "half")
        return out + [f"note: {n}" for n in notes]


ADVICE_UNASKED_S = 4 * 3600.0  # an advice run allowed longer than this asks first (--yes; the window asks)


def confirm_reserve(plan: AdvicePlan, questions: int) -> float:
    """Seconds kept aside for the confirm half: building the baselines' chunk sets not built yet, and searching
    its questions with every confirm configuration (at the measured rate, with a margin)."""
    configs = [c for _, _, strategy in fixed_rows(plan.space.budget) for c in strategy.chunk_configs()]
    return plan.costs.build_seconds(configs) + CONFIRM_MARGIN * CONFIRM_CONFIGS * questions * plan.costs.per_search


def plan_advice(ws: AdviceWorkspace, qset: QuestionSet, space: Space | None = None, seed: int = 0,
                time_limit_s: float = 1800.0, name: str = "", split: Split | Folds | None = None,
                progress: ProgressSink | None = None, cancel: CancelToken | None = None, folds: int = 2,
                rule: str = DEFAULT_RULE, objective_name: str = DEFAULT_OBJECTIVE) -> AdvicePlan:
    """Store the set's corpora, split its questions (two ``folds``: fit and confirm; more: cross-fitting folds)
    and estimate the space's chunk sets (nothing is built). ``split``: a recorded split or folds (resuming);
    ``objective_name``: the registered metric to maximise (``objective.objective_names``)."""
    goal = objective_for(objective_name)  # ValueError naming the metrics that qualify
    if time_limit_s <= 0:
        raise ValueError("the time limit must be positive")
    if rule not in RULES:
        raise ValueError(f"unknown selection rule {rule!r}; choose from {', '.join(RULES)}")
    if folds < 2:
        raise ValueError("advice needs at least 2 folds (2: the fit/confirm split)")
    space = space or Space()
    usable, notes = usable_chunkers(space.chunkers, hasattr(ws.corpus.embedder, "model"))
    if not usable:
        raise ValueError("none of the chunkers asked for can run here: " + "; ".join(notes))
    space = Space(tuple(usable), space.sizes, space.searches, space.expansions, space.top_ks, space.budget)
    half_split: Split | None = None
    fold_split: Folds | None = None
    if isinstance(split, Folds):
        fold_split = split
    elif isinstance(split, Split):
        half_split = split
    elif folds > 2:
        fold_split = fold_questions(qset, folds, seed)
    else:
        half_split = split_questions(qset, seed)
    doc_ids = index_corpora(ws, qset, None, progress, cancel)
    scope = Scope.of(doc_ids.values())
    costs = Costs.for_scope(ws, scope)
    plan = AdvicePlan(qset, half_split, space, seed, time_limit_s, scope, costs, name or default_name(qset), notes,
                      folds=fold_split, rule=rule, objective=goal)
    for chunker, size in space.chunkings():
        if cancel is not None:
            cancel.check()
        say(progress, f"estimating {chunker} {size}")
        plan.chunkings[(chunker, size)] = costs.estimate(chunk_config(chunker, size))
    plan.notes += [w for w in ws.records.stored_value_warnings() if w not in plan.notes]  # e.g. a clamped rate
    return plan


def default_name(qset: QuestionSet) -> str:
    """The saved pick's default name: ``advised-<set name>``."""
    clean = "".join(c if c.isalnum() or c in "_.-" else "-" for c in qset.name).strip("-.") or "set"
    return f"advised-{clean}"[:60]


@dataclass
class AdviceResult:
    """An advice run: its record id, every trial, the Pareto front of the search the pick came from, the
    confirmation (fit/confirm) or the cross-fitted report, the saved pick's name and why the search stopped."""

    run_id: str
    plan: AdvicePlan
    trials: list[Trial]
    pareto: list[Trial]
    confirmation: Confirmation | None
    pick: str
    stopped: str
    seconds: float
    selection: Selection | None = None
    crossfit: CrossFit | None = None

    @property
    def objective(self) -> Objective:
        """What the advice optimised."""
        return self.plan.objective

    def headline_figure(self) -> Headline | None:
        """The figure the advice stands on and what it is: the procedure's out-of-fold objective (cross-fitting)
        or the pick's on the confirm half; None when nothing was judged."""
        if self.crossfit is not None:
            cf = self.crossfit
            return Headline(_finite(cf.score), _finite(cf.tokens), cf.measured_on, "out-of-fold", cf.questions)
        if self.confirmation is not None:
            c = self.confirmation
            return Headline(_finite(c.pick.score), _finite(c.pick.tokens),
                            f"confirm half, {c.questions} questions the pick was not chosen on", "confirm half",
                            c.questions)
        return None

    def headline(self) -> dict[str, Any] | None:
        """``headline_figure`` as JSON, its figure under the objective's name (``recall``, ``iou`` …;
        ``objective`` names it)."""
        figure = self.headline_figure()
        return None if figure is None else figure.to_dict(self.objective.name)

    def lines(self) -> list[str]:
        """The report for people: the Pareto front, the confirm table or the folds, the verdict, the saved pick."""
        done = done_trials(self.trials)
        o = self.objective
        where = "the fit half" if self.crossfit is None else "all questions (the final search)"
        configurations = len({t.key for t in done})
        out = [f"{len(done)} trials done over {configurations} configurations ({len(self.trials) - len(done)} "
               f"skipped or failed), optimising {o.label}; "
               f"search stopped: {STOPPED.get(self.stopped, self.stopped)}", "",
               f"Pareto front on {where}, in-sample ({o.column} against mean context tokens; no other "
               f"configuration has more {o.label} for fewer tokens):"]
        out += [f"  {o.figure(t.score):>5}  {t.tokens or 0:6.0f}  {t.key}" for t in self.pareto]
        if self.confirmation is not None:
            out += ["", *self.confirmation.lines()]
        if self.crossfit is not None:
            out += ["", *self.crossfit.lines()]
        head = self.headline()
        if head is not None and head[o.name] is not None:
            out.append(f"headline: {o.label} {o.figure(head[o.name])} at {head['tokens'] or 0:.0f} tokens, "
                       f"{head['measured_on']}")
        if self.pick:
            out.append(f"saved as {self.pick!r} in the data folder (--strategy {self.pick}); record {self.run_id}")
        else:
            out.append(f"{NOTHING_SAVED}; record {self.run_id}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the saved pick's name under ``pick``; what was optimised under ``objective`` and each of its
        figures under its name (``recall``, ``iou`` …); cross-fitting: ``out_of_fold_recall``."""
        plan = self.plan
        name = plan.objective.name
        split = None if plan.split is None else plan.split.to_dict() | {"fit": len(plan.split.fit),
                                                                       "confirm": len(plan.split.confirm)}
        out = {"run_id": self.run_id, "pick": self.pick, "stopped": self.stopped, "seconds": round(self.seconds, 1),
               "split": split, "folds": None if plan.folds is None else plan.folds.to_dict(), "rule": plan.rule,
               "objective": name, "objective_label": plan.objective.label,
               "space": plan.space.to_dict(), "trials": [t.to_dict(name) for t in self.trials],
               "pareto": [t.number for t in self.pareto],
               "confirm": self.confirmation.to_dict() if self.confirmation else None,
               "crossfit": self.crossfit.to_dict() if self.crossfit else None,
               "selection": self.selection.to_dict() if self.selection else None, "headline": self.headline(),
               "verdict": _verdict_of(self.confirmation, self.crossfit), "units": units(plan.objective)}
        if self.crossfit is not None:
            out[f"out_of_fold_{name}"] = _finite(self.crossfit.score)
            out["out_of_fold_tokens"] = _finite(self.crossfit.tokens)
        return out


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def _verdict_of(confirmation: Confirmation | None, crossfit: CrossFit | None) -> str:
    return confirmation.verdict if confirmation else crossfit.verdict if crossfit else ""


NOTHING_SAVED = "nothing saved: no configuration was tried in the time limit (give it more time)"
def units(goal: Objective) -> str:
    """How the JSON's figures read (``units``)."""
    scale = "a fraction 0-1 (the text shows percent)" if goal.percent else "a score, shown as is"
    return (f"{goal.name} is {scale}; tokens are mean context tokens per question; a trial's {goal.name} is on the "
            f"questions it was chosen on (in-sample); the headline is out-of-fold or confirm-half")

STOPPED = {"time": "the time limit", "exhausted": "no untried configuration the time left allows",
           "cancelled": "cancelled"}


def pareto_front(trials: list[Trial]) -> list[Trial]:
    """The trials no other beats on both the objective (higher) and mean context tokens (fewer), by tokens."""
    ran = sorted(done_trials(trials), key=lambda t: (t.tokens or 0.0, -(t.score or 0.0)))
    front: list[Trial] = []
    for t in ran:
        if not front or (t.score or 0.0) > (front[-1].score or 0.0):
            front.append(t)
    return front


# ----- running ---------------------------------------------------------------------------------------------
def run_advice(ws: AdviceWorkspace, plan: AdvicePlan, progress: ProgressSink | None = None,
               cancel: CancelToken | None = None, run_id: str = "", trials: list[Trial] | None = None,
               started: float | None = None, book: dict[str, Any] | None = None) -> AdviceResult:
    """Search, confirm, save the pick and record it all (see the module docstring). ``run_id`` and ``trials``
    continue a recorded run (``book``: the figures it kept, cross-fitting). ``Cancelled`` propagates after the
    record says where it stopped."""
    started = time.monotonic() if started is None else started
    t_started = datetime.now(timezone.utc)
    run_id = run_id or f"{t_started:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
    record = _Record(ws, plan, run_id, t_started)
    if plan.folds is not None:
        return _run_cross_fitted(ws, plan, plan.folds, record, progress, cancel, trials or [], started, book)
    fit, half = plan.halves()
    search = Search(ws, fit, plan.space, plan.costs, plan.seed, trials or [], objective=plan.objective)
    record.write(search.trials, "searching")

    def deadline() -> float:
        return started + plan.time_limit_s - confirm_reserve(plan, len(half.questions))

    try:
        search.run(deadline, progress, cancel, lambda t: record.write(search.trials, "searching"), started,
                   plan.time_limit_s)
    except BaseException:
        record.write(search.trials, "stopped", "cancelled")
        raise
    if search.stopped == "cancelled":
        record.write(search.trials, "stopped", "cancelled")
        if cancel is not None:
            cancel.check()
    say(progress, f"confirming the best {CANDIDATES} on {len(half.questions)} questions")
    try:
        selection = select(ws, fit, search.trials, plan.space, plan.seed, search.rows, cancel, plan.rule,
                           plan.objective)
        confirmation = confirm(ws, half, selection.ranked, plan.space, plan.seed, None, cancel, selection.how(),
                               plan.objective)
    except BaseException:
        record.write(search.trials, "stopped", search.stopped or "cancelled")
        raise
    pick = ""
    if done_trials(search.trials):  # a run that tried nothing has nothing of its own to recommend: no pick saved
        pick = ws.records.save_strategy(plan.name, confirmation.pick.strategy, source=run_id,
                                        note=confirmation.verdict).name
    result = AdviceResult(run_id, plan, search.trials, pareto_front(search.trials), confirmation, pick,
                          search.stopped, time.monotonic() - started, selection)
    record.finish(result, half, confirmation.sweep, confirmation.to_dict(), confirmation.verdict)
    return result


BOOK_EVERY = 10  # trials between two copies of the score book in the record (and at every stop)
ROUNDS = 3  # turns each search gets: the first turns build the chunk sets, so no fold gets only the building


def _until(end: Callable[[], float], share_end: float) -> Callable[[], float]:
    """A search's deadline: the end of its share, or the run's (which moves with the measured search rate)."""
    return lambda: min(end(), share_end)


def _run_cross_fitted(ws: AdviceWorkspace, plan: AdvicePlan, folds: Folds, record: _Record,
                      progress: ProgressSink | None, cancel: CancelToken | None, trials: list[Trial], started: float,
                      kept: dict[str, Any] | None) -> AdviceResult:
    """The K fold searches and the final one, taking turns (``ROUNDS`` each, every turn an equal share of the time
    left), sharing one score book; then the cross-fitted report (``crossfit.cross_fit``)."""
    qset = plan.qset
    book = ScoreBook(qset, plan.objective)
    if kept:
        book.restore(kept)
    searches = [Search(ws, qset, plan.space, plan.costs, plan.seed + f, [t for t in trials if t.fold == f], book,
                       folds.training(f), f) for f in range(folds.k)]
    searches.append(Search(ws, qset, plan.space, plan.costs, plan.seed, [t for t in trials if t.fold is None], book,
                           folds.everything(), None))

    def every_trial() -> list[Trial]:
        return [t for s in searches for t in s.trials]

    def write(state: str, stopped: str = "", with_book: bool = False) -> None:
        record.write(every_trial(), state, stopped, book.to_dict() if with_book else None)

    write("searching")

    def end() -> float:
        return started + plan.time_limit_s - confirm_reserve(plan, len(qset.questions))

    def on_trial(t: Trial) -> None:
        write("searching", with_book=len(every_trial()) % BOOK_EVERY == 0)

    turns = [(r, search) for r in range(ROUNDS) for search in searches]
    for i, (r, search) in enumerate(turns):
        if search.stopped == "exhausted":
            continue
        begun = time.monotonic()
        share = (end() - begun) / (len(turns) - i)
        who = "all questions" if search.fold is None else f"fold {search.fold + 1} of {folds.k}"
        say(progress, f"searching for {who}, round {r + 1} of {ROUNDS} (about {max(0.0, share):.0f} s)")
        try:
            search.run(_until(end, begun + share), progress, cancel, on_trial, started, plan.time_limit_s, end)
        except BaseException:
            write("stopped", "cancelled", with_book=True)
            raise
        if search.stopped == "cancelled":
            write("stopped", "cancelled", with_book=True)
            if cancel is not None:
                cancel.check()
    stopped = "exhausted" if all(s.stopped == "exhausted" for s in searches) else "time"
    write("scoring", with_book=True)
    say(progress, f"scoring each fold's pick on its held questions, then the final pick, plain and hybrid on all "
                  f"{len(qset.questions)}")
    try:
        report = cross_fit(ws, qset, folds, book, [s.trials for s in searches[:-1]], searches[-1].trials, plan.space,
                           plan.rule, plan.seed, cancel)
    except BaseException:
        write("stopped", stopped or "cancelled", with_book=True)
        raise
    pick = ""
    if done_trials(searches[-1].trials):  # nothing tried: nothing of its own to recommend, no pick saved
        pick = ws.records.save_strategy(plan.name, report.pick.strategy, source=record.run_id,
                                        note=report.verdict).name
    final = searches[-1].trials
    result = AdviceResult(record.run_id, plan, every_trial(), pareto_front(final), None, pick, stopped,
                          time.monotonic() - started, report.final, report)
    record.finish(result, qset, report.sweep, report.to_dict(), report.verdict, book.to_dict())
    return result


class _Record:
    """The advice run's record: written when it starts, after every trial, and in full at the end."""

    def __init__(self, ws: AdviceWorkspace, plan: AdvicePlan, run_id: str, started: datetime) -> None:
        self.ws, self.plan, self.run_id, self.started = ws, plan, run_id, started
        self.written = False
        self.book: dict[str, Any] | None = None

    def config(self, half: QuestionSet, sweep: SweepResult | None) -> RunConfig:
        empty = SweepResult([], {}, scope=self.plan.scope)
        config = run_config(self.ws, half, sweep or empty, self.plan.seed,
                            {"questions": self.plan.confirm_indexes})
        if sweep is None:  # while searching: the documents the search covers
            docs = {int(d["id"]): d for d in self.ws.records.documents()}
            config["documents"] = {str(i): {"path": docs[i]["path"], "sha256": docs[i]["sha256"],
                                            "corpus_id": None} for i in self.plan.scope.doc_ids if i in docs}
        config["dataset"]["path"] = str(self.plan.qset.root)
        plan = self.plan
        config["advice"] = {"budget": plan.space.budget, "time_limit_s": plan.time_limit_s, "name": plan.name,
                            "space": plan.space.to_dict(), "seed": plan.seed, "rule": plan.rule,
                            "objective": plan.objective.name}
        if plan.split is not None:
            config["advice"]["split"] = plan.split.to_dict()
        if plan.folds is not None:
            config["advice"]["folds"] = plan.folds.to_dict()
        return config

    def summary(self, trials: list[Trial], state: str, stopped: str = "") -> dict[str, Any]:
        goal = self.plan.objective
        out: dict[str, Any] = {"state": state, "stopped": stopped, "objective": goal.name,
                               "trials": [t.to_dict(goal.name) for t in trials],
                               "pareto": [t.number for t in pareto_front([t for t in trials if t.fold is None])],
                               "units": units(goal)}
        if self.book is not None:
            out["book"] = self.book
        return out

    def write(self, trials: list[Trial], state: str, stopped: str = "", book: dict[str, Any] | None = None) -> None:
        if book is not None:
            self.book = book
        summary = json.dumps(self.summary(trials, state, stopped), sort_keys=True)
        if self.written:
            self.ws.records.update_run(self.run_id, {"summary_json": summary})
            return
        try:
            find_run(self.ws, self.run_id)
            self.ws.records.update_run(self.run_id, {"summary_json": summary, "finished": None})
        except KeyError:
            config = json.dumps(self.config(self.plan.halves()[1], None), sort_keys=True)
            self.ws.records.record_run(RunRow(self.run_id, KIND, f"advise {self.plan.qset.name}", config,
                                              self.plan.qset.dataset_hash, code_version(), _iso(self.started), None,
                                              summary))
        self.written = True

    def finish(self, result: AdviceResult, half: QuestionSet, sweep: SweepResult, report: dict[str, Any],
               verdict: str, book: dict[str, Any] | None = None) -> None:
        if book is not None:
            self.book = book
        summary = self.summary(result.trials, "done", result.stopped) | {
            "verdict": verdict, "pick": result.pick, "headline": result.headline(),
            "selection": result.selection.to_dict() if result.selection else None,
            "configs": {cr.config.key: summary_to_dict(cr.summary) for cr in sweep.results},
            "seconds": round(result.seconds, 1), "warnings": sweep.warnings}
        summary["crossfit" if result.crossfit is not None else "confirm"] = report
        config = json.dumps(self.config(half, sweep), sort_keys=True)
        self.ws.records.replace_run(
            RunRow(self.run_id, KIND, f"advise {self.plan.qset.name}", config, self.plan.qset.dataset_hash,
                   code_version(), _iso(self.started), _iso(datetime.now(timezone.utc)),
                   json.dumps(summary, sort_keys=True)),
            question_rows(self.run_id, sweep.results))


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="seconds")


def resume_advice(ws: AdviceWorkspace, ref: str, time_limit_s: float | None = None,
                  progress: ProgressSink | None = None, cancel: CancelToken | None = None,
                  allow_changed: bool = False, objective_name: str | None = None) -> AdviceResult:
    """Continue a recorded advice run (cancelled, cut by its time limit, or finished: then it searches on) with
    its seed, split, space, budget and objective (``objective_name``, when given, must be the recorded one:
    ``ValueError`` otherwise); its trials are given to the search again, not re-run. ``ref``: a run id,
    a unique prefix, or ``last`` (the newest advice run). ``time_limit_s``: this session's limit (default: the
    recorded one)."""
    started = time.monotonic()
    if ref in ("last", "latest"):  # the newest advice run, whatever ran after it
        info = next((r for r in list_runs(ws) if r.kind == KIND), None)
        if info is None:
            raise KeyError("no advice run is recorded in this data folder")
    else:
        info = find_run(ws, ref)
    if info.kind != KIND:
        raise ValueError(f"run {info.id} is a {info.kind} run, not an advice run")
    with recorded(info):
        advice = info.config["advice"]
        path, corpora = info.config["dataset"]["path"], dict(info.config["dataset"].get("corpora", {}))
        stored = str(info.config["dataset"]["name"]) if info.config["dataset"].get("stored") else ""
        if not isinstance(path, str):
            raise TypeError(f"dataset path {path!r} is not text")
        space = Space.from_dict(advice["space"])
        split: Split | Folds = Folds.from_dict(advice["folds"]) if advice.get("folds") else \
            Split.from_dict(advice["split"])
        seed, limit_s, name = int(advice["seed"]), float(time_limit_s or advice["time_limit_s"]), str(advice["name"])
        rule = str(advice.get("rule", "preset"))  # a record from before the rules: today's rule was the only one
        goal = str(advice.get("objective", DEFAULT_OBJECTIVE))  # a record from before objectives: recall
    if objective_name is not None and objective_for(objective_name).name != goal:
        raise ValueError(f"run {info.id} optimised {goal}; a resumed run keeps its objective (start a new run to "
                         f"optimise {objective_for(objective_name).name})")
    with recorded(info, "summary_json"):
        trials = [Trial.from_dict(t, goal) for t in info.summary.get("trials", [])]
        book = info.summary.get("book")
    qset = ws.questions.question_set(stored).qset if stored else load_question_set(path)  # stored: by name
    if not allow_changed and any(qset.corpus_hashes.get(c) != h for c, h in corpora.items()):
        raise DatasetError(f"the question set at {qset.root} changed since run {info.id}")
    say(progress, f"resuming advice run {info.id}: {len(trials)} trials recorded, "
                  f"{len(done_trials(trials))} of them ran")
    plan = plan_advice(ws, qset, space, seed, limit_s, name, split, progress, cancel, rule=rule, objective_name=goal)
    return run_advice(ws, plan, progress, cancel, info.id, trials, started, book if isinstance(book, dict) else None)
