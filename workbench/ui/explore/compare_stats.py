"""Numbers behind the A/B summary line and the per-side reference metrics (plain span arithmetic)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.evaluate.metrics import question_metrics
from workbench.core.spans import Span, overlap_length, total_length

if TYPE_CHECKING:
    from workbench.core.retrieve.pipeline import SearchResult


def metrics_line(returned: Sequence[Span], reference: Sequence[Span]) -> str:
    """``recall 0.83 · precision 0.41 · IoU 0.38`` of ``returned`` (rank order) against ``reference``,
    scored by the evaluation lab's own ``question_metrics``."""
    m = question_metrics(returned, reference)
    recall, precision, iou = m.recall or 0.0, m.precision or 0.0, m.iou or 0.0
    return f"recall {recall:.2f} · precision {precision:.2f} · IoU {iou:.2f}"


@dataclass(frozen=True)
class Overlap:
    """How much returned text A and B share."""

    chars_a: int
    chars_b: int
    shared: int

    @property
    def union(self) -> int:
        """Characters returned by A or B."""
        return self.chars_a + self.chars_b - self.shared

    @property
    def percent(self) -> float:
        """Shared characters as a percentage of the union (0 when nothing was returned)."""
        return 100.0 * self.shared / self.union if self.union else 0.0


def overlap(spans_a: Sequence[Span], spans_b: Sequence[Span]) -> Overlap:
    """Shared returned text of two span lists."""
    return Overlap(total_length(spans_a), total_length(spans_b), overlap_length(spans_a, spans_b))


def side_line(result: SearchResult) -> str:
    """``5 passages · 1,234 context tokens · 12 ms`` for one side."""
    n = len(result.passages)
    ms = result.timings.get("total_ms", 0.0)
    return f"{n} passage{'s' if n != 1 else ''} · {result.context.tokens:,} context tokens · {ms:.0f} ms"


def summary_line(result_a: SearchResult, result_b: SearchResult) -> str:
    """The A/B summary: passages and tokens of each side, and their shared returned text."""
    o = overlap(result_a.spans(), result_b.spans())
    return (f"A: {side_line(result_a)}   |   B: {side_line(result_b)}   |   shared text: {o.shared:,} of "
            f"{o.union:,} chars ({o.percent:.0f}%)")
