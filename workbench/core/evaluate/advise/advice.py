"""``advise``: find the best strategy for one question set's corpus at a context budget, and say how sure it is.

1. **Plan** (``plan_advice``, nothing built): store the set's corpora, split the questions into a fit and a
   confirm half (``split``), list the space and what its chunk sets will cost (``costs``), and how much the
   time limit allows.
2. **Search** the fit half (``optimise.Search``) until the time limit less the confirm half's reserve.
3. **Confirm** the best three on the confirm half against ``plain`` and ``hybrid`` at the same budget
   (``confirm``; the best preset stays first unless the fit half tells the best configuration apart from it:
   ``selection``), and save the pick as a named strategy in the data folder.

The run is recorded like every evaluation run (kind ``advice``): the seed, the split, the space and the budget
in its config, every trial in its summary as it finishes, and at the end the confirm half's rows per question
(so ``runs --show``, ``eval --compare RUN:N`` and ``eval --rerun`` work on it). A stopped run — cancelled or cut by
its time limit — resumes from that record (``resume_advice``): its trials are not run again.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.confirm import CANDIDATES, Confirmation, confirm, fixed_rows
from workbench.core.evaluate.advise.costs import Costs
from workbench.core.evaluate.advise.optimise import Search, Trial, done_trials, say
from workbench.core.evaluate.advise.selection import Selection, select
from workbench.core.evaluate.advise.space import Space, chunk_config, usable_chunkers
from workbench.core.evaluate.advise.split import Split, split_questions
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

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.needs import AdviceWorkspace

KIND = "advice"
CONFIRM_MARGIN = 1.5  # the confirm half's reserve: its measured search time, with this margin
CONFIRM_CONFIGS = CANDIDATES + 3  # three candidates, two baselines, one reference


@dataclass
class AdvicePlan:
    """What an advice run will do, before it does it."""

    qset: QuestionSet
    split: Split
    space: Space
    seed: int
    time_limit_s: float
    scope: Scope
    costs: Costs
    name: str
    notes: list[str] = field(default_factory=list)
    chunkings: dict[tuple[str, int], BuildEstimate] = field(default_factory=dict)

    def halves(self) -> tuple[QuestionSet, QuestionSet]:
        """``(fit, confirm)``."""
        return self.split.halves(self.qset)

    def expected_build_s(self) -> float:
        """Seconds to build every chunking's own set not built yet (the estimates)."""
        return sum(e.seconds for e in self.chunkings.values())

    def lines(self) -> list[str]:
        """What it will try and how long it expects, for people."""
        ready = [k for k, e in self.chunkings.items() if e.seconds == 0]
        fit, _ = self.halves()
        per_trial = len(fit.questions) * self.costs.per_search
        out = [f"advice for {self.qset.name}: {self.split.describe()}",
               f"space: {self.space.describe()}",
               f"chunk sets: {len(self.chunkings)} chunkings, {len(ready)} built already; building all the others "
               f"would take {about(self.expected_build_s())} (estimated before building)"]
        for chunker in self.space.chunkers:
            costs = [f"{size}: {duration(e.seconds) if e.seconds else 'built'}"
                     for (c, size), e in self.chunkings.items() if c == chunker]
            out.append(f"  {chunker:<20} {', '.join(costs)}")
        _, half = self.halves()
        reserve = confirm_reserve(self, len(half.questions))
        out.append(f"time limit {duration(self.time_limit_s)}: each trial searches {len(fit.questions)} fit "
                   f"questions ({about(per_trial)} once its chunk sets exist); the best {CANDIDATES} are "
                   f"then confirmed on the other half against plain and hybrid at the same budget "
                   f"({about(reserve)} kept aside for it)")
        notes = list(self.notes)
        if reserve >= self.time_limit_s:
            notes.append(f"the confirm half alone needs {about(reserve)} (its baselines' chunk sets are "
                         "not built yet): the run will take longer than the time limit and try nothing on the fit "
                         "half")
        return out + [f"note: {n}" for n in notes]


def confirm_reserve(plan: AdvicePlan, questions: int) -> float:
    """Seconds kept aside for the confirm half: building the baselines' chunk sets not built yet, and searching
    its questions with every confirm configuration (at the measured rate, with a margin)."""
    configs = [c for _, _, strategy in fixed_rows(plan.space.budget) for c in strategy.chunk_configs()]
    return plan.costs.build_seconds(configs) + CONFIRM_MARGIN * CONFIRM_CONFIGS * questions * plan.costs.per_search


def plan_advice(ws: AdviceWorkspace, qset: QuestionSet, space: Space | None = None, seed: int = 0,
                time_limit_s: float = 1800.0, name: str = "", split: Split | None = None,
                progress: ProgressSink | None = None, cancel: CancelToken | None = None) -> AdvicePlan:
    """Store the set's corpora, split its questions and estimate the space's chunk sets (nothing is built)."""
    if time_limit_s <= 0:
        raise ValueError("the time limit must be positive")
    space = space or Space()
    usable, notes = usable_chunkers(space.chunkers, hasattr(ws.corpus.embedder, "model"))
    if not usable:
        raise ValueError("none of the chunkers asked for can run here: " + "; ".join(notes))
    space = Space(tuple(usable), space.sizes, space.searches, space.expansions, space.top_ks, space.budget)
    split = split or split_questions(qset, seed)
    doc_ids = index_corpora(ws, qset, None, progress, cancel)
    scope = Scope.of(doc_ids.values())
    costs = Costs.for_scope(ws, scope)
    plan = AdvicePlan(qset, split, space, seed, time_limit_s, scope, costs, name or default_name(qset), notes)
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
    """An advice run: its record id, every trial, the fit half's Pareto front, the confirmation, the saved
    pick's name and why the search stopped."""

    run_id: str
    plan: AdvicePlan
    trials: list[Trial]
    pareto: list[Trial]
    confirmation: Confirmation | None
    pick: str
    stopped: str
    seconds: float
    selection: Selection | None = None

    def lines(self) -> list[str]:
        """The report for people: the Pareto front, the confirm table, the verdict, the saved pick."""
        done = done_trials(self.trials)
        out = [f"{len(done)} configurations tried on the fit half ({len(self.trials) - len(done)} skipped or failed); "
               f"search stopped: {STOPPED.get(self.stopped, self.stopped)}", "",
               "Pareto front on the fit half (recall % against mean context tokens; no other configuration has "
               "more recall for fewer tokens):"]
        out += [f"  {100 * (t.recall or 0):5.1f}  {t.tokens or 0:6.0f}  {t.key}" for t in self.pareto]
        if self.confirmation is not None:
            out += ["", *self.confirmation.lines()]
        if self.pick:
            out.append(f"saved as {self.pick!r} in the data folder (--strategy {self.pick}); record {self.run_id}")
        else:
            out.append(f"{NOTHING_SAVED}; record {self.run_id}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the saved pick's name under ``pick``."""
        return {"run_id": self.run_id, "pick": self.pick, "stopped": self.stopped, "seconds": round(self.seconds, 1),
                "split": self.plan.split.to_dict() | {"fit": len(self.plan.split.fit),
                                                      "confirm": len(self.plan.split.confirm)},
                "space": self.plan.space.to_dict(), "trials": [t.to_dict() for t in self.trials],
                "pareto": [t.number for t in self.pareto],
                "confirm": self.confirmation.to_dict() if self.confirmation else None,
                "selection": self.selection.to_dict() if self.selection else None,
                "verdict": self.confirmation.verdict if self.confirmation else "", "units": UNITS}


NOTHING_SAVED = "nothing saved: no configuration was tried in the time limit (give it more time)"
UNITS = "recall is a fraction 0-1 (the text shows percent); tokens are mean context tokens per question"
STOPPED = {"time": "the time limit", "exhausted": "no untried configuration the time left allows",
           "cancelled": "cancelled"}


def pareto_front(trials: list[Trial]) -> list[Trial]:
    """The trials no other beats on both recall (higher) and mean context tokens (fewer), by tokens."""
    ran = sorted(done_trials(trials), key=lambda t: (t.tokens or 0.0, -(t.recall or 0.0)))
    front: list[Trial] = []
    for t in ran:
        if not front or (t.recall or 0.0) > (front[-1].recall or 0.0):
            front.append(t)
    return front


# ----- running ---------------------------------------------------------------------------------------------
def run_advice(ws: AdviceWorkspace, plan: AdvicePlan, progress: ProgressSink | None = None,
               cancel: CancelToken | None = None, run_id: str = "", trials: list[Trial] | None = None,
               started: float | None = None) -> AdviceResult:
    """Search, confirm, save the pick and record it all (see the module docstring). ``run_id`` and ``trials``
    continue a recorded run. ``Cancelled`` propagates after the record says where it stopped."""
    started = time.monotonic() if started is None else started
    t_started = datetime.now(timezone.utc)
    fit, half = plan.halves()
    run_id = run_id or f"{t_started:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
    record = _Record(ws, plan, run_id, t_started)
    search = Search(ws, fit, plan.space, plan.costs, plan.seed, trials or [])
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
        selection = select(ws, fit, search.trials, plan.space, plan.seed, search.rows, cancel)
        confirmation = confirm(ws, half, selection.ranked, plan.space, plan.seed, None, cancel, selection.how())
    except BaseException:
        record.write(search.trials, "stopped", search.stopped or "cancelled")
        raise
    pick = ""
    if done_trials(search.trials):  # a run that tried nothing has nothing of its own to recommend: no pick saved
        pick = ws.records.save_strategy(plan.name, confirmation.pick.strategy, source=run_id,
                                        note=confirmation.verdict).name
    result = AdviceResult(run_id, plan, search.trials, pareto_front(search.trials), confirmation, pick,
                          search.stopped, time.monotonic() - started, selection)
    record.finish(result, half)
    return result


class _Record:
    """The advice run's record: written when it starts, after every trial, and in full at the end."""

    def __init__(self, ws: AdviceWorkspace, plan: AdvicePlan, run_id: str, started: datetime) -> None:
        self.ws, self.plan, self.run_id, self.started = ws, plan, run_id, started
        self.written = False

    def config(self, half: QuestionSet, sweep: SweepResult | None) -> RunConfig:
        empty = SweepResult([], {}, scope=self.plan.scope)
        config = run_config(self.ws, half, sweep or empty, self.plan.seed,
                            {"questions": list(self.plan.split.confirm)})
        if sweep is None:  # while searching: the documents the search covers
            docs = {int(d["id"]): d for d in self.ws.records.documents()}
            config["documents"] = {str(i): {"path": docs[i]["path"], "sha256": docs[i]["sha256"],
                                            "corpus_id": None} for i in self.plan.scope.doc_ids if i in docs}
        config["dataset"]["path"] = str(self.plan.qset.root)
        config["advice"] = {"budget": self.plan.space.budget, "time_limit_s": self.plan.time_limit_s,
                            "name": self.plan.name, "split": self.plan.split.to_dict(),
                            "space": self.plan.space.to_dict(), "seed": self.plan.seed}
        return config

    def summary(self, trials: list[Trial], state: str, stopped: str = "") -> dict[str, Any]:
        return {"state": state, "stopped": stopped, "trials": [t.to_dict() for t in trials],
                "pareto": [t.number for t in pareto_front(trials)], "units": UNITS}

    def write(self, trials: list[Trial], state: str, stopped: str = "") -> None:
        summary = json.dumps(self.summary(trials, state, stopped), sort_keys=True)
        if self.written:
            self.ws.records.update_run(self.run_id, {"summary_json": summary})
            return
        try:
            find_run(self.ws, self.run_id)
            self.ws.records.update_run(self.run_id, {"summary_json": summary, "finished": None})
        except KeyError:
            self.ws.records.record_run({"id": self.run_id, "kind": KIND, "label": f"advise {self.plan.qset.name}",
                                "config_json": json.dumps(self.config(self.plan.split.halves(self.plan.qset)[1], None),
                                                          sort_keys=True),
                                "dataset_hash": self.plan.qset.dataset_hash, "code_version": code_version(),
                                "started": _iso(self.started), "finished": None, "summary_json": summary})
        self.written = True

    def finish(self, result: AdviceResult, half: QuestionSet) -> None:
        conf = result.confirmation
        assert conf is not None
        summary = self.summary(result.trials, "done", result.stopped) | {
            "confirm": conf.to_dict(), "verdict": conf.verdict, "pick": result.pick,
            "selection": result.selection.to_dict() if result.selection else None,
            "configs": {cr.config.key: summary_to_dict(cr.summary) for cr in conf.sweep.results},
            "seconds": round(result.seconds, 1), "warnings": conf.sweep.warnings}
        self.ws.records.replace_run(
            {"id": self.run_id, "kind": KIND, "label": f"advise {self.plan.qset.name}",
             "config_json": json.dumps(self.config(half, conf.sweep), sort_keys=True),
             "dataset_hash": self.plan.qset.dataset_hash, "code_version": code_version(),
             "started": _iso(self.started), "finished": _iso(datetime.now(timezone.utc)),
             "summary_json": json.dumps(summary, sort_keys=True)},
            question_rows(self.run_id, conf.sweep.results))


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="seconds")


def resume_advice(ws: AdviceWorkspace, ref: str, time_limit_s: float | None = None,
                  progress: ProgressSink | None = None, cancel: CancelToken | None = None,
                  allow_changed: bool = False) -> AdviceResult:
    """Continue a recorded advice run (cancelled, cut by its time limit, or finished: then it searches on) with
    its seed, split, space and budget; its trials are given to the search again, not re-run. ``ref``: a run id,
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
        space, split = Space.from_dict(advice["space"]), Split.from_dict(advice["split"])
        seed, limit_s, name = int(advice["seed"]), float(time_limit_s or advice["time_limit_s"]), str(advice["name"])
    with recorded(info, "summary_json"):
        trials = [Trial.from_dict(t) for t in info.summary.get("trials", [])]
    qset = ws.questions.question_set(stored).qset if stored else load_question_set(path)  # stored: by name
    if not allow_changed and any(qset.corpus_hashes.get(c) != h for c, h in corpora.items()):
        raise DatasetError(f"the question set at {qset.root} changed since run {info.id}")
    say(progress, f"resuming advice run {info.id}: {len(trials)} trials recorded, "
                  f"{len(done_trials(trials))} of them ran")
    plan = plan_advice(ws, qset, space, seed, limit_s, name, split, progress, cancel)
    return run_advice(ws, plan, progress, cancel, info.id, trials, started)
