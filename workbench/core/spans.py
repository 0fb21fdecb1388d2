"""Span arithmetic: the one place where character ranges are merged, intersected and measured.

Every chunk, window, hit, citation and reference in the workbench is a ``Span``: a half-open range
``[start, end)`` of character offsets (Python code points) into one stored document's text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A half-open character range ``[start, end)`` inside document ``doc_id``."""

    doc_id: int
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span {self.start}..{self.end}")

    @property
    def length(self) -> int:
        """Number of characters covered."""
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        """True when both spans share at least one character."""
        return self.doc_id == other.doc_id and self.start < other.end and other.start < self.end

    def touches(self, other: Span) -> bool:
        """True when the spans overlap or are adjacent (no gap between them)."""
        return self.doc_id == other.doc_id and self.start <= other.end and other.start <= self.end

    def contains(self, other: Span) -> bool:
        """True when ``other`` lies wholly inside this span."""
        return self.doc_id == other.doc_id and self.start <= other.start and other.end <= self.end

    def intersection(self, other: Span) -> Span | None:
        """The shared part of two spans, or None when they do not overlap."""
        if not self.overlaps(other):
            return None
        return Span(self.doc_id, max(self.start, other.start), min(self.end, other.end))

    def hull(self, other: Span) -> Span:
        """The smallest span covering both (same document only)."""
        if self.doc_id != other.doc_id:
            raise ValueError("cannot join spans of different documents")
        return Span(self.doc_id, min(self.start, other.start), max(self.end, other.end))

    def text(self, document_text: str) -> str:
        """The characters this span covers in ``document_text``."""
        return document_text[self.start : self.end]


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Merge overlapping or touching spans; result sorted by (doc_id, start), pairwise disjoint.

    Empty spans are dropped.
    """
    ordered = sorted(s for s in spans if s.length > 0)
    merged: list[Span] = []
    for span in ordered:
        if merged and merged[-1].touches(span):
            merged[-1] = merged[-1].hull(span)
        else:
            merged.append(span)
    return merged


def total_length(spans: Iterable[Span]) -> int:
    """Characters covered by the union of ``spans`` (each character counted once)."""
    return sum(s.length for s in merge_spans(spans))


def intersect_spans(a: Iterable[Span], b: Iterable[Span]) -> list[Span]:
    """The union of ``a`` intersected with the union of ``b``, as disjoint sorted spans."""
    left, right = merge_spans(a), merge_spans(b)
    by_doc: dict[int, list[Span]] = defaultdict(list)
    for span in right:
        by_doc[span.doc_id].append(span)
    out: list[Span] = []
    for span in left:
        for other in by_doc.get(span.doc_id, ()):
            if other.start >= span.end:
                break
            part = span.intersection(other)
            if part is not None:
                out.append(part)
    return out


def subtract_spans(a: Iterable[Span], b: Iterable[Span]) -> list[Span]:
    """The parts of the union of ``a`` not covered by ``b``."""
    cuts: dict[int, list[Span]] = defaultdict(list)
    for span in merge_spans(b):
        cuts[span.doc_id].append(span)
    out: list[Span] = []
    for span in merge_spans(a):
        cursor = span.start
        for cut in cuts.get(span.doc_id, ()):
            if cut.end <= cursor or cut.start >= span.end:
                continue
            if cut.start > cursor:
                out.append(Span(span.doc_id, cursor, cut.start))
            cursor = max(cursor, cut.end)
        if cursor < span.end:
            out.append(Span(span.doc_id, cursor, span.end))
    return out


def overlap_length(a: Iterable[Span], b: Iterable[Span]) -> int:
    """Characters covered by both span sets."""
    return sum(s.length for s in intersect_spans(a, b))
