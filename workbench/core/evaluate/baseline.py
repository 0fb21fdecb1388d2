"""Several configurations of one sweep against one baseline: each compared with it by
``statistics.compare_paired``; every metric's p-values and the McNemar p-values Holm-adjusted over the
comparisons made, and every interval computed at its comparison's Holm level (``paired_tests.holm_levels``),
so an adjusted interval excludes 0 exactly when the adjusted p is below α."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from workbench.core.evaluate.paired_tests import ALPHA, RESAMPLES, holm, holm_levels
from workbench.core.evaluate.power import TARGET_POINTS
from workbench.core.evaluate.statistics import PairedComparison, compare_paired
from workbench.core.evaluate.sweep import ConfigResult

BASELINE_METRICS = ("recall", "iou", "context_tokens")


@dataclass
class BaselineComparison:
    """Every other configuration against one baseline, p-values Holm-adjusted per metric over the ``k``
    comparisons."""

    baseline: str
    comparisons: dict[str, PairedComparison]  # configuration key → its comparison (B = it, A = baseline)

    @property
    def k(self) -> int:
        """How many comparisons were made."""
        return len(self.comparisons)

    def lines(self, metrics: Sequence[str] = BASELINE_METRICS) -> list[str]:
        """A header and, per configuration, one indented line per metric and its hit McNemar test."""
        adjusted = ", p-values and intervals Holm-adjusted" if self.k > 1 else ""
        out = [f"against baseline [{self.baseline}] (A = baseline, B = each row; {self.k} comparison"
               f"{'s' if self.k != 1 else ''}{adjusted}):"]
        for key, comp in self.comparisons.items():
            out.append(f"  [{key}] over {comp.n} questions")
            out += [f"    {comp.metrics[m].sentence()}" for m in metrics if m in comp.metrics]
            out += [f"    {t.sentence()}" for t in comp.sign_tests.values()]
            out.append(f"    {comp.mdd_sentence()}")
        return out

    def to_dict(self, key: str) -> dict[str, Any]:
        """The JSON block of one configuration (``{}`` for the baseline itself)."""
        if key not in self.comparisons:
            return {}
        return ({"baseline": self.baseline, "comparisons": self.k, "p_adjustment": "holm" if self.k > 1 else "none"}
                | self.comparisons[key].to_dict())


def resolve_baseline(keys: Sequence[str], ref: str | int | None) -> int:
    """The index of the baseline among ``keys``: ``None`` → the first, ``N`` → the N-th (1-based), else a key
    (exact, or a unique key containing it). Raises ``ValueError`` with a one-line message."""
    if ref is None or ref == "":
        return 0
    text = str(ref).strip()
    if text.isascii() and text.isdigit():  # '²' is a digit to isdigit, not to int
        if not 1 <= int(text) <= len(keys):
            raise ValueError(f"baseline {text}: there are configurations 1-{len(keys)}")
        return int(text) - 1
    if text in keys:
        return list(keys).index(text)
    found = [i for i, k in enumerate(keys) if text in k]
    if len(found) != 1:
        raise ValueError(f"baseline {text!r} {'matches no' if not found else 'matches more than one'} configuration; "
                         f"use a number 1-{len(keys)} or one of: {', '.join(keys)}")
    return found[0]


def compare_to_baseline(results: Sequence[ConfigResult], baseline: int = 0, metrics: Sequence[str] = BASELINE_METRICS,
                        resamples: int = RESAMPLES, seed: int = 0, alpha: float = ALPHA,
                        target_points: float = TARGET_POINTS) -> BaselineComparison:
    """Compare every configuration of a sweep with ``results[baseline]``; Holm-adjust each metric's p-values and
    the McNemar p-values over the comparisons made (``holm_adjust``); ``target_points``: the difference whose
    questions-needed figure each comparison gives."""
    base = results[baseline]
    comps = {cr.config.key: compare_paired(base.rows, cr.rows, metrics, resamples, seed, alpha, target_points)
             for i, cr in enumerate(results) if i != baseline}
    holm_adjust(list(comps.values()), alpha)
    return BaselineComparison(base.config.key, comps)


def holm_adjust(comparisons: Sequence[PairedComparison], alpha: float = ALPHA) -> None:
    """Holm-adjust, in place and per metric, the p-values of several comparisons (and each McNemar test's),
    recomputing every interval at its comparison's Holm level; nothing changes for fewer than two."""
    k = len(comparisons)
    if k < 2:
        return
    for name in dict.fromkeys(m for c in comparisons for m in c.metrics):
        holding = [c for c in comparisons if name in c.metrics]
        raw = [c.metrics[name].p_value for c in holding]
        for c, p, level in zip(holding, holm(raw), holm_levels(raw, alpha), strict=True):
            c.metrics[name] = c.metrics[name].adjusted(p, level, k)
    for outcome in dict.fromkeys(t for c in comparisons for t in c.sign_tests):
        holding = [c for c in comparisons if outcome in c.sign_tests]
        adjusted = holm([c.sign_tests[outcome].p_value for c in holding])
        for c, p in zip(holding, adjusted, strict=True):
            c.sign_tests[outcome] = replace(c.sign_tests[outcome], p_adjusted=p, comparisons=k)
