"""An advice run as the window shows it: typed rows read from the run's objects (``AdviceReport.from_result``) or
from a recorded run's summary (``AdviceReport.from_record``), so a view reads attributes mypy checks, not JSON keys.

Both constructors give the same report for the same run (``tests/core/evaluate/test_advise_objective.py`` checks
it on a fit/confirm run and ``tests/core/evaluate/test_advise_folds.py`` on a cross-fitted one): the JSON keys are
read here only, next to the code that writes them, and every figure is the objective's (``objective.Objective``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.headline import Headline
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective, objective_for
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.retrieve.strategy.presets import Strategy, from_dict

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.advice import AdviceResult
    from workbench.core.evaluate.advise.confirm import ConfirmRow
    from workbench.core.evaluate.records import RunInfo
    from workbench.core.evaluate.statistics import MetricDifference, PairedComparison


@dataclass(frozen=True)
class Difference:
    """``B − A`` of the objective with its interval (an unbounded end is ±∞)."""

    diff: float
    low: float
    high: float

    @classmethod
    def of(cls, m: MetricDifference) -> Difference | None:
        """From the statistics (None when there is no difference to show)."""
        if math.isnan(m.diff):
            return None
        return cls(m.diff, m.ci_low if math.isfinite(m.ci_low) else -math.inf,
                   m.ci_high if math.isfinite(m.ci_high) else math.inf)

    @classmethod
    def read(cls, comparison: Mapping[str, Any] | None, objective: str) -> Difference | None:
        """From a comparison's JSON (``PairedComparison.to_dict``; its unbounded ends are None)."""
        m = ((comparison or {}).get("metrics") or {}).get(objective)
        if not m or m.get("diff") is None:
            return None
        return cls(float(m["diff"]), -math.inf if m.get("ci_low") is None else float(m["ci_low"]),
                   math.inf if m.get("ci_high") is None else float(m["ci_high"]))


@dataclass(frozen=True)
class ReportRow:
    """A row of the confirm table (or, cross-fitted, of the table on all questions)."""

    key: str
    role: str
    score: float | None  # the objective, on the confirm half (cross-fitted: all questions)
    tokens: float | None
    fit_score: float | None  # a candidate's, on the questions it was chosen on (in-sample)
    fit_tokens: float | None
    description: str
    strategy: Strategy
    versus_hybrid: Difference | None  # the row against hybrid at the same budget
    is_hybrid: bool


@dataclass(frozen=True)
class FoldLine:
    """One fold of a cross-fitted run: its pick, chosen on the other folds, and how it did on its own questions."""

    fold: int  # 1-based
    questions: int
    pick: str
    how: str
    in_sample: float | None
    held_out: float | None
    held_out_tokens: float | None


@dataclass(frozen=True)
class Stability:
    """How many folds chose the same ``what`` (chunker, expansion): ``value``, by ``folds`` of ``of``."""

    what: str
    value: str
    folds: int
    of: int


@dataclass(frozen=True)
class AdviceReport:
    """What the Advise tab shows of a run (see the module docstring)."""

    objective: Objective
    state: str
    trials: tuple[Trial, ...]
    pareto: tuple[int, ...]  # trial numbers on the front
    crossfit: bool
    rows: tuple[ReportRow, ...]
    folds: tuple[FoldLine, ...]
    stability: tuple[Stability, ...]
    out_of_fold: float | None
    out_of_fold_tokens: float | None
    out_of_fold_versus_hybrid: Difference | None  # Holm-adjusted
    measured_on: str
    rule: str
    rules_line: str
    verdict: str
    pick: str
    headline: Headline | None

    @classmethod
    def from_result(cls, result: AdviceResult) -> AdviceReport:
        """The report of a run just finished, read from its objects."""
        from workbench.core.evaluate.advise.rule_check import rules_line

        o = result.plan.objective
        hybrid = f"hybrid@{result.plan.space.budget}"
        rows: Sequence[ConfirmRow] = []
        candidates: Mapping[str, Mapping[str, PairedComparison]] = {}
        references: Mapping[str, PairedComparison] = {}
        cf = result.crossfit
        if result.confirmation is not None:
            rows, candidates = result.confirmation.rows, result.confirmation.comparisons
            references = result.confirmation.references
        elif cf is not None:
            rows, references = cf.table, cf.references

        def versus(key: str) -> Difference | None:
            comp = (candidates.get(key) or {}).get(hybrid) or references.get(key)
            return None if comp is None else Difference.of(comp.metrics[o.name])

        table = tuple(ReportRow(r.key, r.role, _finite(r.score), _finite(r.tokens), _finite(r.fit_score),
                                _finite(r.fit_tokens), r.strategy.describe(), r.strategy,
                                None if r.key == hybrid else versus(r.key), r.key == hybrid) for r in rows)
        folds: tuple[FoldLine, ...] = ()
        stability: tuple[Stability, ...] = ()
        oof_versus = None
        if cf is not None:
            folds = tuple(FoldLine(r.fold + 1, r.questions, r.pick, r.how, _finite(r.fit_score),
                                   _finite(r.held_score), _finite(r.held_tokens)) for r in cf.rows)
            stability = tuple(Stability(what, value, n, cf.folds.k) for what, (value, n) in cf.stability.items())
            oof_versus = next((Difference.of(c.metrics[o.name]) for b, c in cf.comparisons.items()
                               if b.startswith("hybrid@")), None)
        verdict = result.confirmation.verdict if result.confirmation else cf.verdict if cf else ""
        return cls(o, "done", tuple(result.trials), tuple(t.number for t in result.pareto), cf is not None, table,
                   folds, stability, _finite(cf.score) if cf else None, _finite(cf.tokens) if cf else None,
                   oof_versus, cf.measured_on if cf else "", cf.rule if cf else "",
                   rules_line(cf.rules, cf.rule, o) if cf and cf.rules else "", verdict, result.pick,
                   result.headline_figure())

    @classmethod
    def from_record(cls, summary: Mapping[str, Any], budget: int) -> AdviceReport:
        """The report of a recorded run (its summary, or ``AdviceResult.to_dict()``) at ``budget``; a record from
        before objectives reads as recall, one whose metric is no longer registered as recall too (its figures
        are then missing: blank)."""
        try:
            o = objective_for(str(summary.get("objective") or DEFAULT_OBJECTIVE))
        except ValueError:
            o = RECALL
        name, hybrid = o.name, f"hybrid@{budget}"
        confirm: Mapping[str, Any] = summary.get("confirm") or {}
        cf: Mapping[str, Any] = summary.get("crossfit") or {}
        table = confirm or cf
        candidates: Mapping[str, Any] = confirm.get("comparisons") or {}
        references: Mapping[str, Any] = table.get("reference_comparisons") or {}

        def versus(key: str) -> Difference | None:
            return Difference.read((candidates.get(key) or {}).get(hybrid) or references.get(key), name)

        rows = tuple(ReportRow(str(r["key"]), str(r["role"]), r.get(name), r.get("tokens"), r.get(f"fit_{name}"),
                               r.get("fit_tokens"), str(r.get("description", "")), from_dict(r["strategy"]),
                               None if r["key"] == hybrid else versus(str(r["key"])), r["key"] == hybrid)
                     for r in table.get("rows", []))
        folds = tuple(FoldLine(int(r["fold"]), int(r["questions"]), str(r["pick"]), str(r.get("how", "")),
                               r.get(f"in_sample_{name}"), r.get(f"held_out_{name}"), r.get("held_out_tokens"))
                      for r in cf.get("fold_rows", []))
        stability = tuple(Stability(what, str(v["value"]), int(v["folds"]), int(v["of"]))
                          for what, v in (cf.get("stability") or {}).items())
        oof_versus = next((Difference.read(c, name) for b, c in (cf.get("comparisons") or {}).items()
                           if b.startswith("hybrid@")), None)
        head = summary.get("headline") or {}
        headline = None if head.get(name) is None else Headline(
            head[name], head.get("tokens"), str(head.get("measured_on", "")), str(head.get("kind", "")),
            int(head.get("questions", 0)))
        return cls(o, str(summary.get("state", "done")),
                   tuple(Trial.from_dict(t, name) for t in summary.get("trials", [])),
                   tuple(int(n) for n in summary.get("pareto", [])), bool(cf), rows, folds, stability,
                   cf.get(f"out_of_fold_{name}"), cf.get("out_of_fold_tokens"), oof_versus,
                   str(cf.get("measured_on", "")), str(cf.get("rule", "")), str(cf.get("rules_line") or ""),
                   str(summary.get("verdict") or table.get("verdict") or ""), str(summary.get("pick") or ""), headline)


def _finite(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


@dataclass(frozen=True)
class RecordedAdvice:
    """A recorded advice run as the window opens it: its report, its budget and the questions it judged (the
    confirm half, or every question when cross-fitted)."""

    id: str
    report: AdviceReport
    budget: int
    judged: tuple[int, ...]

    @classmethod
    def of(cls, info: RunInfo) -> RecordedAdvice:
        """From a run's record (``records.find_run``)."""
        advice: Mapping[str, Any] = info.config.get("advice") or {}
        judged = list((advice.get("split") or {}).get("confirm", [])) or \
            sorted(i for fold in (advice.get("folds") or {}).get("folds", []) for i in fold)
        budget = int(advice.get("budget", 1000))
        return cls(info.id, AdviceReport.from_record(info.summary, budget), budget, tuple(int(i) for i in judged))


def record_line(info: RunInfo) -> str:
    """A recorded advice run in the list of runs: ``ID  LABEL  (done, pick NAME)``."""
    state, pick = info.summary.get("state", ""), info.summary.get("pick", "")
    return f"{info.id}  {info.label}  ({state}{', pick ' + pick if pick else ''})"
