"""Passages: the contiguous spans of one document sent as context, and the one merge rule every expansion
shares.

A window never crosses into another document; windows that overlap or touch merge into one passage (a gap of
only whitespace between them counts as touching; parents, which the user counts, merge only when asked); a
passage keeps the rank and score of its best hit; passages come back in that rank order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.core.retrieve.search import Hit
from workbench.core.spans import Span


@dataclass(frozen=True)
class Passage:
    """A contiguous span of one document returned as context, with the hits inside it."""

    span: Span
    hit_chunk_ids: tuple[int, ...]
    hit_spans: tuple[Span, ...]
    rank: int
    score: float
    chunk_rows: tuple[int, int] | None = None  # first/last chunk row covered, when chunk-aligned
    tokens: int = 0
    reasons: tuple[str, ...] = ()

    @property
    def chunk_count(self) -> int:
        """Number of chunks of the set inside the passage (when chunk-aligned)."""
        return 0 if self.chunk_rows is None else self.chunk_rows[1] - self.chunk_rows[0] + 1


@dataclass
class Window:
    """One hit's grown span (before merging): its hits, its chunk rows when chunk-aligned, the reasons."""

    span: Span
    hits: list[Hit]
    rows: tuple[int, int] | None
    reasons: list[str]


DocText = Callable[[int], str]


def blank_gap(a: Span, b: Span, doc_text: DocText | None) -> bool:
    """True when only whitespace lies between ``a`` and the later span ``b`` of the same document."""
    if doc_text is None or a.doc_id != b.doc_id or b.start < a.end:
        return False
    return not doc_text(a.doc_id)[a.end : b.start].strip()


def merge_windows(windows: Sequence[Window], doc_text: DocText | None = None, touch: bool = True,
                  ) -> list[Passage]:
    """Merge windows that overlap or touch (same document); order passages by best-hit rank.

    With ``doc_text`` (document id → text), windows separated only by whitespace touch too. With
    ``touch=False`` only overlapping windows merge (adjacent ones stay separate passages).
    """
    passages = []
    for w in merged_windows(windows, doc_text, touch):
        hits = sorted({h.chunk_id: h for h in w.hits}.values(), key=lambda h: h.rank)
        passages.append(Passage(
            span=w.span, hit_chunk_ids=tuple(h.chunk_id for h in hits), hit_spans=tuple(h.span for h in hits),
            rank=hits[0].rank, score=hits[0].score, chunk_rows=w.rows, reasons=tuple(dict.fromkeys(w.reasons)),
        ))
    passages.sort(key=lambda p: p.rank)
    return renumbered(passages)


def merged_windows(windows: Sequence[Window], doc_text: DocText | None = None, touch: bool = True,
                   ) -> list[Window]:
    """The one merge rule (``merge_windows``) on its own: windows that overlap or touch become one window, in
    document order. The budget measures what it would send with it, so it counts the passages the merge makes."""
    ordered = sorted(windows, key=lambda w: (w.span.doc_id, w.span.start, w.span.end))
    merged: list[Window] = []
    for w in ordered:
        last = merged[-1] if merged else None
        if last is None or not touch:
            touching = last is not None and last.span.overlaps(w.span)
        else:
            touching = (
                last.span.touches(w.span)
                or blank_gap(last.span, w.span, doc_text)
                or (last.rows is not None and w.rows is not None and last.span.doc_id == w.span.doc_id
                    and w.rows[0] <= last.rows[1] + 1)
            )
        if last is not None and touching:
            rows = None
            if last.rows is not None and w.rows is not None:
                rows = (min(last.rows[0], w.rows[0]), max(last.rows[1], w.rows[1]))
            merged[-1] = Window(last.span.hull(w.span), last.hits + w.hits, rows, last.reasons + w.reasons)
        else:
            merged.append(Window(w.span, list(w.hits), w.rows, list(w.reasons)))
    return merged


def renumbered(passages: Sequence[Passage]) -> list[Passage]:
    """``passages`` in their order, ranked 1, 2, 3 …"""
    return [Passage(p.span, p.hit_chunk_ids, p.hit_spans, i, p.score, p.chunk_rows, p.tokens, p.reasons)
            for i, p in enumerate(passages, start=1)]
