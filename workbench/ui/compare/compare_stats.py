"""Numbers behind the A/B summary line and the per-side reference metrics (plain span arithmetic)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.core.spans import Span, overlap_length, total_length


@dataclass(frozen=True)
class SpanMetrics:
    """Character-level recall, precision and IoU of returned spans against reference spans."""

    recall: float
    precision: float
    iou: float

    def label(self) -> str:
        """``recall 0.83 · precision 0.41 · IoU 0.38``."""
        return f"recall {self.recall:.2f} · precision {self.precision:.2f} · IoU {self.iou:.2f}"


def span_metrics(returned: Iterable[Span], reference: Iterable[Span]) -> SpanMetrics:
    """Metrics of ``returned`` against ``reference`` (the evaluation lab's own definition)."""
    from workbench.core.evaluate.metrics import span_scores

    recall, precision, iou, *_ = span_scores(returned, reference)
    return SpanMetrics(recall, precision, iou)


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


def side_line(result) -> str:  # noqa: ANN001 - SearchResult
    """``5 passages · 1,234 context tokens · 12 ms`` for one side."""
    n = len(result.passages)
    ms = result.timings.get("total_ms", 0.0)
    return f"{n} passage{'s' if n != 1 else ''} · {result.context.tokens:,} context tokens · {ms:.0f} ms"


def summary_line(result_a, result_b) -> str:  # noqa: ANN001
    """The A/B summary: passages and tokens of each side, and their shared returned text."""
    o = overlap(result_a.spans(), result_b.spans())
    return (f"A: {side_line(result_a)}   |   B: {side_line(result_b)}   |   shared text: {o.shared:,} of "
            f"{o.union:,} chars ({o.percent:.0f}%)")
