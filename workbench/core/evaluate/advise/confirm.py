"""The confirm half: the three best configurations on the fit half, run on questions they were not chosen on,
against ``plain`` and ``hybrid`` at the same budget, and a verdict that names a winner only when the confirm
half can tell it apart.

Each of the three is compared with each baseline (paired by question: recall and context tokens), the six
comparisons Holm-adjusted together, intervals at their Holm levels (``baseline.holm_adjust``). The pick is the
first of them — chosen before the confirm half was seen — unless the confirm half finds it worse than a
baseline: then that baseline is the pick, and the verdict says why. ``multi-granularity`` at the same budget
runs too, as a reference row (not in the verdict).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.space import Space, baseline
from workbench.core.evaluate.baseline import holm_adjust
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.statistics import (
    PairedComparison,
    compare_paired,
    format_p,
    interval_end,
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
    """One configuration on the confirm half (and, for a candidate, on the fit half)."""

    key: str
    role: str
    strategy: Strategy
    recall: float
    tokens: float
    fit_recall: float | None = None
    fit_tokens: float | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (recall as a fraction 0–1, tokens as mean context tokens)."""
        return {"key": self.key, "role": self.role, "recall": _clean(self.recall), "tokens": _clean(self.tokens),
                "fit_recall": self.fit_recall, "fit_tokens": self.fit_tokens, "params": self.params,
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
    mdd: float  # recall points the confirm half detects (pick against hybrid), as a fraction

    def lines(self) -> list[str]:
        """The confirm table, the comparisons and the verdict, as text."""
        head = f"{'configuration':<52} {'role':<20} {'fit recall':>10} {'fit tok':>8} {'recall':>7} {'tokens':>7}"
        out = [f"confirm half: {self.questions} questions (recall %, mean context tokens)", head, "-" * len(head)]
        for r in self.rows:
            fit_r = "" if r.fit_recall is None else f"{100 * r.fit_recall:.1f}"
            fit_t = "" if r.fit_tokens is None else f"{r.fit_tokens:.0f}"
            out.append(f"{r.key[:52]:<52} {r.role:<20} {fit_r:>10} {fit_t:>8} {100 * r.recall:>7.1f} {r.tokens:>7.0f}")
        k = sum(len(v) for v in self.comparisons.values())
        levels = [c.metrics["recall"].ci_level for by in self.comparisons.values() for c in by.values()]
        level = min((x for x in levels if x is not None and not math.isnan(x)), default=None)
        out.append(f"against the baselines (A = baseline, B = candidate; {k} comparisons, p-values Holm-adjusted, "
                   f"each interval at its Holm level{f', the widest {_level(level)}' if level else ''}):")
        for cand, by_base in self.comparisons.items():
            for base, comp in by_base.items():
                out.append(f"  [{cand}] vs [{base}]")
                out += [f"    {comp.metrics[m].sentence()}" for m in ("recall", "context_tokens")]
                out.append(f"    {comp.mdd_sentence()}")  # what the confirm half can detect, what 5 points need
        out.append(f"verdict: {self.verdict}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: rows, comparisons, pick, verdict, MDD (a fraction)."""
        return {"questions": self.questions, "rows": [r.to_dict() for r in self.rows],
                "comparisons": {c: {b: comp.to_dict() for b, comp in by.items()} for c, by in self.comparisons.items()},
                "pick": self.pick.key, "verdict": self.verdict, "mdd": _clean(self.mdd)}



def _against(comp: PairedComparison, base: str) -> str:
    """How the pick did against one baseline on the confirm half, in words that never overclaim."""
    m = comp.metrics["recall"]
    figures = (f"{signed_value(m.diff, 'points')} points, CI [{interval_end(m.ci_low, 'points')}, "
               f"{interval_end(m.ci_high, 'points')}], {format_p(m.p)}")
    if m.verdict == "B better":
        return f"better than {base} ({figures})"
    if m.verdict == "A better":
        return f"worse than {base} ({figures})"
    if math.isnan(m.mdd):
        detect = "too few questions to say what they could detect"
    elif m.mdd == 0:
        detect = "the two agree on every question"
    else:
        detect = f"{m.n} questions detect about {100 * m.mdd:.0f} points"
    return f"not distinguishable from {base} ({figures}): {detect}"


def fixed_rows(budget: int) -> list[tuple[str, str, Strategy]]:
    """``(key, role, strategy)`` of the baselines and references the confirm half runs at ``budget``."""
    return [(f"{name}@{budget}", "baseline" if name in BASELINES else "reference", baseline(name, budget))
            for name in (*BASELINES, *REFERENCES)]


def confirm(ws: EvalWorkspace, half: QuestionSet, ranked: Sequence[Trial], space: Space, seed: int = 0,
            progress: ProgressSink | None = None, cancel: CancelToken | None = None, chosen: str = "") -> Confirmation:
    """Run the first ``CANDIDATES`` of ``ranked`` (the pick first: ``selection.select``), the baselines and the
    references on ``half`` and judge them (see the module docstring); ``chosen`` says how the pick was chosen
    (default: best on fit)."""
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
        rows.append(ConfirmRow(key, role, strategy, s["recall"].mean, s["context_tokens"].mean,
                               None if t is None else t.recall, None if t is None else t.tokens,
                               {} if t is None else dict(t.params)))
    comparisons: dict[str, dict[str, PairedComparison]] = {}
    for key, *_ in candidates:
        comparisons[key] = {f"{b}@{space.budget}": compare_paired(by_key[f"{b}@{space.budget}"].rows, by_key[key].rows,
                                                                   ("recall", "context_tokens"), seed=seed)
                            for b in BASELINES}
    holm_adjust([c for by in comparisons.values() for c in by.values()])
    pick, verdict, mdd = _verdict(rows, comparisons, space.budget, len(half.questions), chosen)
    return Confirmation(rows, comparisons, pick, verdict, len(half.questions), sweep, mdd)


def _verdict(rows: list[ConfirmRow], comparisons: dict[str, dict[str, PairedComparison]], budget: int,
             questions: int, chosen: str = "") -> tuple[ConfirmRow, str, float]:
    """``(pick, verdict, MDD)``: the first candidate (chosen on fit as ``chosen`` says) unless the confirm half
    finds it worse than a baseline."""
    by_key = {r.key: r for r in rows}
    hybrid = f"hybrid@{budget}"
    if not comparisons:  # nothing was tried in time: the hybrid baseline is all there is to recommend
        row = by_key[hybrid]
        return row, (f"no configuration could be tried in the time limit; {hybrid} is the pick ("
                     f"{100 * row.recall:.1f} recall at {row.tokens:.0f} tokens on {questions} questions)"), math.nan
    top = next(iter(comparisons))
    best = by_key[top]
    versus = comparisons[top]
    parts = [_against(versus[b], b) for b in versus]
    mdd = versus[hybrid].metrics["recall"].mdd
    fit = chosen or f"best on fit ({100 * (best.fit_recall or 0):.1f} recall at {best.fit_tokens or 0:.0f} tokens)"
    on_confirm = f"on confirm {100 * best.recall:.1f} at {best.tokens:.0f} tokens: {'; '.join(parts)}"
    worse = [b for b in versus if versus[b].metrics["recall"].verdict == "A better"]
    if worse:
        fallback = max((by_key[b] for b in worse), key=lambda r: r.recall)
        return fallback, (f"{best.key[3:]} was {fit} but {on_confirm}; {fallback.key} is the pick"), mdd
    return best, f"{best.key[3:]}: {fit}; {on_confirm}", mdd
