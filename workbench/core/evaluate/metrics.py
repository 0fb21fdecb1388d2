"""Token-level retrieval metrics on character ranges, as Chroma's chunking report defines them.

Per question, with R = union of the retrieved spans and G = union of the reference spans (each character
counted once): recall = |R ∩ G| / |G|, precision = |R ∩ G| / |R|, IoU = |R ∩ G| / (|R| + |G \\ R|) —
which equals |R ∩ G| / |R ∪ G|. Hit = some returned passage shares a character with a reference;
reciprocal rank = 1 / rank of the first such passage (rank order), 0 when none does. Context size is the
tokens and characters actually sent. Means and (population) standard deviations are taken over the
questions the corpus covers; context size over every question.

Every metric the workbench reports is one ``Metric`` in ``METRICS`` (``register_metric``): its name (the key in
summaries, JSON and CSV), label, table column, unit, per-question function, aggregate and which way is better.
The summaries (``summarize``), the paired statistics, the exports, the command line's tables and the lab's
tables all read this registry, so adding a metric is one ``register_metric`` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, TypedDict

from workbench.core.spans import Span, merge_spans, overlap_length, total_length


@dataclass(frozen=True)
class QuestionMetrics:
    """Metrics of one question under one strategy (rates ``None`` when the corpus does not cover it)."""

    recall: float | None
    precision: float | None
    iou: float | None
    hit: bool | None
    reciprocal_rank: float | None
    first_rank: int | None
    context_tokens: int
    context_chars: int
    retrieved_chars: int
    reference_chars: int
    covered_chars: int

    @property
    def covered(self) -> bool:
        """True when the question has reference spans."""
        return self.reference_chars > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuestionMetrics:
        """Inverse of ``to_dict`` (unknown keys ignored)."""
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})


def span_scores(retrieved: Iterable[Span], references: Iterable[Span]) -> tuple[float, float, float, int, int, int]:
    """``(recall, precision, iou, covered, retrieved_chars, reference_chars)`` of two span sets."""
    retrieved, references = list(retrieved), list(references)
    got = total_length(retrieved)
    ref = total_length(references)
    covered = overlap_length(retrieved, references)
    recall = covered / ref if ref else 0.0
    precision = covered / got if got else 0.0
    denominator = got + (ref - covered)
    iou = covered / denominator if denominator else 0.0
    return recall, precision, iou, covered, got, ref


def question_metrics(
    passages: Sequence[Span], references: Sequence[Span], context_tokens: int = 0, context_chars: int | None = None,
) -> QuestionMetrics:
    """Metrics of one question: ``passages`` are the returned spans in rank order."""
    recall, precision, iou, covered, got, ref = span_scores(passages, references)
    chars = got if context_chars is None else context_chars
    if not ref:
        return QuestionMetrics(None, None, None, None, None, None, context_tokens, chars, got, 0, 0)
    refs = merge_spans(references)  # once, not per passage
    first = next((rank for rank, p in enumerate(passages, start=1)
                  if p.length and any(p.overlaps(r) for r in refs)), None)
    rr = 1.0 / first if first else 0.0
    return QuestionMetrics(recall, precision, iou, first is not None, rr, first, context_tokens, chars, got, ref,
                           covered)


@dataclass(frozen=True)
class Stat:
    """Mean and population standard deviation of a metric over ``n`` questions."""

    mean: float
    std: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.4f} (sd {self.std:.4f}, n = {self.n})"


def mean_and_sd(values: Sequence[float]) -> Stat:
    """Mean and population standard deviation (NaN over no value): the default aggregate of a metric."""
    if not values:
        return Stat(math.nan, math.nan, 0)
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / len(values)
    return Stat(mean, math.sqrt(var), len(values))


Unit = Literal["points", "score", "tokens", "chars"]
"""``points``: a fraction 0–1 in values and JSON, shown × 100; ``score``: shown as is (three decimals);
``tokens`` / ``chars``: a size, shown whole."""


@dataclass(frozen=True)
class Metric:
    """One reported metric: how it is computed per question and over a run, and how people see it."""

    name: str  # the key in summaries, summary rows, JSON and CSV
    label: str  # in sentences ("hit rate")
    column: str  # the heading of its table column ("hit %")
    unit: Unit
    value: Callable[[QuestionMetrics], float | None]  # one question's value; None: the question does not count
    aggregate: Callable[[Sequence[float]], Stat] = mean_and_sd
    higher_is_better: bool | None = True  # None: neither (a size: "B sends more / fewer")
    spread: bool = False  # the command line's table shows "± sd" after the mean
    in_tables: bool = True  # a column of the summary tables (command line and lab)
    per_question: bool = False  # a column of the lab's question table
    compared: bool = True  # tested by the paired statistics (``statistics.compare_paired``)

    def cell(self, value: float | None) -> str:
        """``value`` as a table cell in its unit ("-" when there is none)."""
        if value is None or math.isnan(value):
            return "-"
        if self.unit == "points":
            return f"{100 * value:.1f}"
        return f"{value:.3f}" if self.unit == "score" else f"{value:.0f}"


METRICS: dict[str, Metric] = {}
"""Every registered metric by name, in registration order (the order of table columns)."""


def register_metric(metric: Metric) -> Metric:
    """Make ``metric`` reported everywhere (``ValueError`` when its name is taken or not an identifier)."""
    if not metric.name.isidentifier() or metric.name in METRICS:
        raise ValueError(f"metric {metric.name!r} is not a plain name or is registered twice")
    METRICS[metric.name] = metric
    return metric


def table_metrics() -> list[Metric]:
    """The metrics shown as columns of the summary tables, in order."""
    return [m for m in METRICS.values() if m.in_tables]


def _float(value: float | bool | None) -> float | None:
    return None if value is None else float(value)


register_metric(Metric("recall", "recall", "recall %", "points", lambda m: m.recall, spread=True,
                       per_question=True))
register_metric(Metric("precision", "precision", "precision %", "points", lambda m: m.precision, spread=True,
                       per_question=True))
register_metric(Metric("iou", "IoU", "IoU %", "points", lambda m: m.iou, spread=True, per_question=True))
register_metric(Metric("hit_rate", "hit rate", "hit %", "points", lambda m: _float(m.hit)))
register_metric(Metric("mrr", "MRR", "MRR", "score", lambda m: m.reciprocal_rank))
register_metric(Metric("context_tokens", "context tokens", "ctx tokens", "tokens",
                       lambda m: float(m.context_tokens), higher_is_better=None))
register_metric(Metric("context_chars", "context characters", "ctx chars", "chars",
                       lambda m: float(m.context_chars), higher_is_better=None, in_tables=False, compared=False))


def summarize(rows: Sequence[QuestionMetrics]) -> dict[str, Stat]:
    """Every registered metric aggregated over the questions it counts (rates: the covered questions; sizes:
    all of them)."""
    out = {}
    for metric in METRICS.values():
        values = [metric.value(m) for m in rows]
        out[metric.name] = metric.aggregate([v for v in values if v is not None])
    return out


class StatRecord(TypedDict):
    """A ``Stat`` as JSON (NaN written as None)."""

    mean: float | None
    std: float | None
    n: int


def summary_to_dict(summary: dict[str, Stat]) -> dict[str, StatRecord]:
    """JSON-ready ``{metric: {mean, std, n}}`` (NaN written as None)."""
    def clean(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {k: StatRecord(mean=clean(s.mean), std=clean(s.std), n=s.n) for k, s in summary.items()}

