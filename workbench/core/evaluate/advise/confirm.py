"""The confirm half: the three best configurations on the fit half, run on questions they were not chosen on,
against ``plain`` and ``hybrid`` at the same budget, and a verdict that names a winner only when the confirm
half can tell it apart.

Each of the three is compared with each baseline (paired by question: the objective, recall unless asked
otherwise, and context tokens), the six
comparisons Holm-adjusted together, intervals at their Holm levels (``baseline.holm_adjust``). The pick is the
first of them — chosen before the confirm half was seen — unless the confirm half finds it worse than a
baseline: then that baseline is the pick, and the verdict says why. ``multi-granularity`` at the same budget
runs too, as a reference row (not in the verdict). The reference rows (``plain`` and ``multi-granularity``) are
compared with ``hybrid`` too, unadjusted and outside the verdict, so every row of the table shows its difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.space import Space, baseline
from workbench.core.evaluate.baseline import holm_adjust
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.statistics import (
    PairedComparison,
    compare_paired,
    format_p,
    signed_value,
)
from workbench.core.evaluate.sweep import SweepConfig, SweepResult, run_sweep
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.strategy.presets import Strategy

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace

BASELINES = ("plain", "hybrid")
REFERENCES = ("multi-granularity",)
CANDIDATES = 3
ROLES = ("pick", "runner-up", "third")


@dataclass
class ConfirmRow:
    """One configuration on the confirm half (and, for a candidate, on the fit half): ``score`` is the objective's
    mean (recall unless asked otherwise)."""

    key: str
    role: str
    strategy: Strategy
    score: float
    tokens: float
    fit_score: float | None = None
    fit_tokens: float | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, objective: str = DEFAULT_OBJECTIVE) -> dict[str, Any]:
        """JSON-ready (the score under the objective's name, a rate as a fraction 0–1; tokens as mean context
        tokens)."""
        return {"key": self.key, "role": self.role, objective: _clean(self.score), "tokens": _clean(self.tokens),
                f"fit_{objective}": self.fit_score, "fit_tokens": self.fit_tokens, "params": self.params,
                "strategy": self.strategy.to_dict(), "description": self.strategy.describe()}


def _level(alpha: float) -> str:
    return f"{100 * (1 - alpha):.3g}%"


def _clean(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


@dataclass
class Confirmation:
    """The confirm half's rows, comparisons (candidate key → baseline key → comparison), the pick and the
    verdict."""

    rows: list[ConfirmRow]
    comparisons: dict[str, dict[str, PairedComparison]]
    pick: ConfirmRow
    verdict: str
    questions: int
    sweep: SweepResult
    mdd: float  # the objective's difference the confirm half detects (pick against hybrid; a rate as a fraction)
    references: dict[str, PairedComparison] = field(default_factory=dict)  # baseline/reference row → vs hybrid
    objective: Objective = RECALL

    def lines(self) -> list[str]:
        """The confirm table, the comparisons and the verdict, as text."""
        o = self.objective
        head = (f"{'configuration':<52} {'role':<20} {'fit ' + o.label:>10} {'fit tok':>8} {o.label:>7} "
                f"{'tokens':>7}")
        out = [f"confirm half: {self.questions} questions ({o.column}, mean context tokens)", head, "-" * len(head)]
        for r in self.rows:
            fit_r = "" if r.fit_score is None else o.figure(r.fit_score)
            fit_t = "" if r.fit_tokens is None else f"{r.fit_tokens:.0f}"
            out.append(f"{r.key[:52]:<52} {r.role:<20} {fit_r:>10} {fit_t:>8} {o.figure(r.score):>7} "
                       f"{r.tokens:>7.0f}")
        k = sum(len(v) for v in self.comparisons.values())
        levels = [c.metrics[o.name].ci_level for by in self.comparisons.values() for c in by.values()]
        level = min((x for x in levels if x is not None and not math.isnan(x)), default=None)
        out.append(f"against the baselines (A = baseline, B = candidate; {k} comparisons, p-values Holm-adjusted, "
                   f"each interval at its Holm level{f', the widest {_level(level)}' if level else ''}):")
        for cand, by_base in self.comparisons.items():
            for base, comp in by_base.items():
                out.append(f"  [{cand}] vs [{base}]")
                out += [f"    {comp.metrics[m].sentence()}" for m in (o.name, "context_tokens")]
                out.append(f"    {comp.mdd_sentence()}")  # what the confirm half can detect, what 5 points need
        if self.references:
            out.append("the other rows against hybrid (A = hybrid; unadjusted, not part of the verdict):")
            out += [f"  [{key}] {comp.metrics[o.name].sentence()}" for key, comp in self.references.items()]
        out.append(f"verdict: {self.verdict}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the objective, rows, comparisons, pick, verdict, MDD (a rate as a fraction)."""
        return {"objective": self.objective.name, "questions": self.questions,
                "rows": [r.to_dict(self.objective.name) for r in self.rows],
                "comparisons": {c: {b: comp.to_dict() for b, comp in by.items()} for c, by in self.comparisons.items()},
                "pick": self.pick.key, "verdict": self.verdict, "mdd": _clean(self.mdd),
                "reference_comparisons": {k: c.to_dict() for k, c in self.references.items()}}


def versus_hybrid(comp: PairedComparison, objective: Objective = RECALL) -> str:
    """A row's objective against ``hybrid``: ``+2.1 [−0.8, +5.0]`` (points for a rate)."""
    m = comp.metrics[objective.name]
    if math.isnan(m.diff):
        return ""
    return f"{signed_value(m.diff, objective.unit)} {objective.interval(m.ci_low, m.ci_high)}"


def _against(comp: PairedComparison, base: str, objective: Objective = RECALL) -> str:
    """How the pick did against one baseline on the confirm half, in words that never overclaim."""
    m = comp.metrics[objective.name]
    figures = f"{objective.difference(m.diff)}, CI {objective.interval(m.ci_low, m.ci_high)}, {format_p(m.p)}"
    if m.verdict == "B better":
        return f"better than {base} ({figures})"
    if m.verdict == "A better":
        return f"worse than {base} ({figures})"
    if math.isnan(m.mdd):
        detect = "too few questions to say what they could detect"
    elif m.mdd == 0:
        detect = "the two agree on every question"
    elif objective.percent:
        detect = f"{m.n} questions detect about {100 * m.mdd:.0f} points"
    else:
        detect = f"{m.n} questions detect about {m.mdd:.3f}"
    return f"not distinguishable from {base} ({figures}): {detect}"


def fixed_rows(budget: int) -> list[tuple[str, str, Strategy]]:
    """``(key, role, strategy)`` of the baselines and references the confirm half runs at ``budget``."""
    return [(f"{name}@{budget}", "baseline" if name in BASELINES else "reference", baseline(name, budget))
            for name in (*BASELINES, *REFERENCES)]


def confirm(ws: EvalWorkspace, half: QuestionSet, ranked: Sequence[Trial], space: Space, seed: int = 0,
            progress: ProgressSink | None = None, cancel: CancelToken | None = None, chosen: str = "",
            objective: Objective = RECALL) -> Confirmation:
    """Run the first ``CANDIDATES`` of ``ranked`` (the pick first: ``selection.select``), the baselines and the
    references on ``half`` and judge them on ``objective`` (see the module docstring); ``chosen`` says how the pick
    was chosen (default: best on fit)."""
    candidates = [(f"#{i + 1} {t.key}", ROLES[i], space.strategy(t.params), t)
                  for i, t in enumerate(ranked[:CANDIDATES])]
    others = [(key, role, strategy, None) for key, role, strategy in fixed_rows(space.budget)]
    configs = [SweepConfig(key, strategy, role, dict(t.params) if t else {})
               for key, role, strategy, t in [*candidates, *others]]
    sweep = run_sweep(ws, half, configs, progress, cancel)
    by_key = {cr.config.key: cr for cr in sweep.results}
    rows = []
    for key, role, strategy, t in [*candidates, *others]:
        s = by_key[key].summary
        rows.append(ConfirmRow(key, role, strategy, s[objective.name].mean, s["context_tokens"].mean,
                               None if t is None else t.score, None if t is None else t.tokens,
                               {} if t is None else dict(t.params)))
    compared = (objective.name, "context_tokens")
    comparisons: dict[str, dict[str, PairedComparison]] = {}
    for key, *_ in candidates:
        comparisons[key] = {f"{b}@{space.budget}": compare_paired(by_key[f"{b}@{space.budget}"].rows, by_key[key].rows,
                                                                   compared, seed=seed)
                            for b in BASELINES}
    holm_adjust([c for by in comparisons.values() for c in by.values()])
    hybrid = f"hybrid@{space.budget}"
    references = {key: compare_paired(by_key[hybrid].rows, by_key[key].rows, compared, seed=seed)
                  for key, *_ in others if key != hybrid}
    pick, verdict, mdd = _verdict(rows, comparisons, space.budget, len(half.questions), chosen, objective)
    return Confirmation(rows, comparisons, pick, verdict, len(half.questions), sweep, mdd, references, objective)


def _verdict(rows: list[ConfirmRow], comparisons: dict[str, dict[str, PairedComparison]], budget: int,
             questions: int, chosen: str = "", objective: Objective = RECALL) -> tuple[ConfirmRow, str, float]:
    """``(pick, verdict, MDD)``: the first candidate (chosen on fit as ``chosen`` says) unless the confirm half
    finds it worse than a baseline on ``objective``."""
    by_key = {r.key: r for r in rows}
    hybrid = f"hybrid@{budget}"
    o = objective
    if not comparisons:  # nothing was tried in time: the hybrid baseline is all there is to recommend
        row = by_key[hybrid]
        return row, (f"no configuration could be tried in the time limit; {hybrid} is the pick ("
                     f"{o.figure(row.score)} {o.label} at {row.tokens:.0f} tokens on {questions} questions)"), math.nan
    top = next(iter(comparisons))
    best = by_key[top]
    versus = comparisons[top]
    parts = [_against(versus[b], b, o) for b in versus]
    mdd = versus[hybrid].metrics[o.name].mdd
    fit = chosen or (f"best on fit ({o.figure(best.fit_score or 0)} {o.label} at {best.fit_tokens or 0:.0f} "
                     "tokens)")
    on_confirm = f"on confirm {o.figure(best.score)} at {best.tokens:.0f} tokens: {'; '.join(parts)}"
    worse = [b for b in versus if versus[b].metrics[o.name].verdict == "A better"]
    if worse:
        fallback = max((by_key[b] for b in worse), key=lambda r: r.score)
        return fallback, (f"{best.key[3:]} was {fit} but {on_confirm}; {fallback.key} is the pick"), mdd
    return best, f"{best.key[3:]}: {fit}; {on_confirm}", mdd
