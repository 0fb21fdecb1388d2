"""Token-level retrieval metrics on character ranges, as Chroma's chunking report defines them.

Per question, with R = union of the retrieved spans and G = union of the reference spans (each character
counted once): recall = |R ∩ G| / |G|, precision = |R ∩ G| / |R|, IoU = |R ∩ G| / (|R| + |G \\ R|) —
which equals |R ∩ G| / |R ∪ G|. Hit = some returned passage shares a character with a reference;
reciprocal rank = 1 / rank of the first such passage (rank order), 0 when none does. Context size is the
tokens and characters actually sent. Means and (population) standard deviations are taken over the
questions the corpus covers; context size over every question.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from workbench.core.spans import Span, merge_spans, overlap_length, total_length

RATE_METRICS = ("recall", "precision", "iou", "hit_rate", "mrr")
SIZE_METRICS = ("context_tokens", "context_chars")


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


def _rate(value: float | None) -> float:
    """A rate of a covered question (never None there)."""
    assert value is not None
    return value


def _stat(values: Sequence[float]) -> Stat:
    if not values:
        return Stat(math.nan, math.nan, 0)
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / len(values)
    return Stat(mean, math.sqrt(var), len(values))


def summarize(rows: Sequence[QuestionMetrics]) -> dict[str, Stat]:
    """Mean ± std of every metric: rates over covered questions, context size over all of them."""
    covered = [m for m in rows if m.covered]
    values: dict[str, list[float]] = {
        "recall": [_rate(m.recall) for m in covered],
        "precision": [_rate(m.precision) for m in covered],
        "iou": [_rate(m.iou) for m in covered],
        "hit_rate": [1.0 if m.hit else 0.0 for m in covered],
        "mrr": [_rate(m.reciprocal_rank) for m in covered],
        "context_tokens": [float(m.context_tokens) for m in rows],
        "context_chars": [float(m.context_chars) for m in rows],
    }
    return {name: _stat(vals) for name, vals in values.items()}


def summary_to_dict(summary: dict[str, Stat]) -> dict[str, dict[str, Any]]:
    """JSON-ready ``{metric: {mean, std, n}}`` (NaN written as None)."""
    def clean(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {k: {"mean": clean(s.mean), "std": clean(s.std), "n": s.n} for k, s in summary.items()}

