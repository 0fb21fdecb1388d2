"""Several configurations of one sweep against one baseline: each compared with it by
``statistics.compare_paired``, every metric's p-values Holm-adjusted over the comparisons made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from workbench.core.evaluate.paired_tests import ALPHA, RESAMPLES, holm
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
        """A header and, per configuration, one indented line per metric."""
        adjusted = ", p-values Holm-adjusted" if self.k > 1 else ""
        out = [f"against baseline [{self.baseline}] (A = baseline, B = each row; {self.k} comparison"
               f"{'s' if self.k != 1 else ''}{adjusted}):"]
        for key, comp in self.comparisons.items():
            out.append(f"  [{key}] over {comp.n} questions")
            out += [f"    {comp.metrics[m].sentence()}" for m in metrics if m in comp.metrics]
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
    if text.isdigit():
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
                        resamples: int = RESAMPLES, seed: int = 0, alpha: float = ALPHA) -> BaselineComparison:
    """Compare every configuration of a sweep with ``results[baseline]`` and Holm-adjust each metric's
    p-values over the comparisons made."""
    base = results[baseline]
    comps = {cr.config.key: compare_paired(base.rows, cr.rows, metrics, resamples, seed, alpha)
             for i, cr in enumerate(results) if i != baseline}
    k = len(comps)
    for name in () if k < 2 else {m for c in comps.values() for m in c.metrics}:
        keys = [key for key, c in comps.items() if name in c.metrics]
        adjusted = holm([comps[key].metrics[name].p_value for key in keys])
        for key, p in zip(keys, adjusted, strict=True):
            comps[key].metrics[name] = replace(comps[key].metrics[name], p_adjusted=p, comparisons=k)
    return BaselineComparison(base.config.key, comps)
