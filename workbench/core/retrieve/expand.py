"""Hits → passages: neighbour windows, token windows, parents and selective expansion.

Rules shared by every expansion: a window never crosses into another document; windows that overlap or
touch merge into one passage (a gap of only whitespace between them counts as touching; parents, which
the user counts, merge only when asked); a passage keeps the rank and score of its best hit; passages come
back in that rank order.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.core.retrieve.chunk_set import SetRuntime
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
class _Window:
    span: Span
    hits: list[Hit]
    rows: tuple[int, int] | None
    reasons: list[str]


DocText = Callable[[int], str]


def _blank_gap(a: Span, b: Span, doc_text: DocText | None) -> bool:
    """True when only whitespace lies between ``a`` and the later span ``b`` of the same document."""
    if doc_text is None or a.doc_id != b.doc_id or b.start < a.end:
        return False
    return not doc_text(a.doc_id)[a.end : b.start].strip()


def merge_windows(windows: Sequence[_Window], doc_text: DocText | None = None, touch: bool = True,
                  ) -> list[Passage]:
    """Merge windows that overlap or touch (same document); order passages by best-hit rank.

    With ``doc_text`` (document id → text), windows separated only by whitespace touch too. With
    ``touch=False`` only overlapping windows merge (adjacent ones stay separate passages).
    """
    ordered = sorted(windows, key=lambda w: (w.span.doc_id, w.span.start, w.span.end))
    merged: list[_Window] = []
    for w in ordered:
        last = merged[-1] if merged else None
        if last is None or not touch:
            touching = last is not None and last.span.overlaps(w.span)
        else:
            touching = (
                last.span.touches(w.span)
                or _blank_gap(last.span, w.span, doc_text)
                or (last.rows is not None and w.rows is not None and last.span.doc_id == w.span.doc_id
                    and w.rows[0] <= last.rows[1] + 1)
            )
        if last is not None and touching:
            rows = None
            if last.rows is not None and w.rows is not None:
                rows = (min(last.rows[0], w.rows[0]), max(last.rows[1], w.rows[1]))
            merged[-1] = _Window(last.span.hull(w.span), last.hits + w.hits, rows, last.reasons + w.reasons)
        else:
            merged.append(_Window(w.span, list(w.hits), w.rows, list(w.reasons)))
    passages = []
    for w in merged:
        hits = sorted({h.chunk_id: h for h in w.hits}.values(), key=lambda h: h.rank)
        passages.append(Passage(
            span=w.span, hit_chunk_ids=tuple(h.chunk_id for h in hits), hit_spans=tuple(h.span for h in hits),
            rank=hits[0].rank, score=hits[0].score, chunk_rows=w.rows, reasons=tuple(dict.fromkeys(w.reasons)),
        ))
    passages.sort(key=lambda p: p.rank)
    return [Passage(p.span, p.hit_chunk_ids, p.hit_spans, i, p.score, p.chunk_rows, p.tokens, p.reasons)
            for i, p in enumerate(passages, start=1)]


def no_expansion(runtime: SetRuntime, hits: Sequence[Hit]) -> list[Passage]:
    """Each hit is its own passage, exactly its chunk (a coarse hit: the chunks it covers); nothing is
    merged (plain top-k)."""
    return [
        Passage(h.span, (h.chunk_id,), (h.span,), rank, h.score, h.cover or (h.row, h.row))
        for rank, h in enumerate(sorted(hits, key=lambda h: h.rank), start=1)
    ]


def neighbour_windows(runtime: SetRuntime, hits: Sequence[Hit], w: int, doc_text: DocText | None = None,
                      ) -> list[Passage]:
    """Grow each hit to chunks ``position-w .. position+w`` of its own document, then merge.

    ``w = 0`` is plain top-k: every hit stays its own passage. A coarse hit (``Hit.cover``) is already a
    window: it keeps the chunks it covers and is not widened.
    """
    if w == 0:
        return no_expansion(runtime, hits)
    windows = []
    for hit in hits:
        first, end = runtime.doc_rows(hit.span.doc_id)
        lo, hi = hit.cover or (max(first, hit.row - w), min(end - 1, hit.row + w))
        windows.append(_Window(runtime.range_span(lo, hi), [hit], (lo, hi), []))
    return merge_windows(windows, doc_text)


WINDOW_EDGES = ("shift", "clip")


def token_windows(
    runtime: SetRuntime, hits: Sequence[Hit], n_tokens: int, token_offsets: Callable[[int], np.ndarray],
    edge: str = "shift", doc_text: DocText | None = None,
) -> list[Passage]:
    """A window of ``n_tokens`` centred on each hit (same amount before and after).

    At a document's edge, ``edge="shift"`` moves the window inward so that it keeps its size (as the
    sliding-window technique does); ``edge="clip"`` cuts it short. ``token_offsets(doc_id)`` gives the
    document's token offsets as an ``(n, 2)`` array.
    """
    if edge not in WINDOW_EDGES:
        raise ValueError(f"window edge must be one of {', '.join(WINDOW_EDGES)}")
    windows = []
    for hit in hits:
        offsets = np.asarray(token_offsets(hit.span.doc_id), dtype=np.int64).reshape(-1, 2)
        starts = offsets[:, 0]
        a = int(np.searchsorted(starts, hit.span.start))
        b = max(a + 1, int(np.searchsorted(starts, hit.span.end)))
        extra = max(0, n_tokens - (b - a))
        before = extra // 2
        after = extra - before
        if edge == "shift":  # what does not fit on one side goes to the other
            short_before = max(0, before - a)
            short_after = max(0, b + after - len(offsets))
            before, after = before + short_after, after + short_before
        lo, hi = max(0, a - before), min(len(offsets), b + after)
        if not len(offsets):
            span = hit.span
        else:
            span = Span(hit.span.doc_id, min(int(offsets[lo, 0]), hit.span.start),
                        max(int(offsets[hi - 1, 1]), hit.span.end))
        windows.append(_Window(span, [hit], None, []))
    return merge_windows(windows, doc_text)


def parent_windows(
    runtime: SetRuntime, hits: Sequence[Hit], parents_of: Callable[[int], list[tuple[int, int]]], top: int,
    merge: bool = False, doc_text: DocText | None = None,
) -> list[Passage]:
    """Group child hits by the parent span containing them; return the ``top`` parents by best child.

    Each parent is its own passage, so ``top`` parents come back when the hits reach that many; with
    ``merge`` adjacent parents join into one passage (fewer passages, the same text).
    """
    groups: dict[tuple[int, int, int], list[Hit]] = {}
    for hit in hits:
        parents = parents_of(hit.span.doc_id)
        starts = [s for s, _ in parents]
        i = max(0, bisect.bisect_right(starts, hit.span.start) - 1)
        p_start, p_end = parents[i] if parents else (hit.span.start, hit.span.end)
        key = (hit.span.doc_id, min(p_start, hit.span.start), max(p_end, hit.span.end))
        groups.setdefault(key, []).append(hit)
    ranked = sorted(groups.items(), key=lambda kv: min(h.rank for h in kv[1]))[:top]
    windows = [_Window(Span(*key), hs, None, [f"parent of {len(hs)} child hit(s)"]) for key, hs in ranked]
    return merge_windows(windows, doc_text if merge else None, touch=merge)


def selective_windows(
    runtime: SetRuntime, hits: Sequence[Hit], query_vector: np.ndarray, margin: float, merge_gap: int,
    max_steps: int, ends_mid_sentence: Callable[[Span], bool], doc_text: DocText | None = None,
) -> list[Passage]:
    """Expand a hit toward a neighbour only with evidence, and say why for each step taken.

    Evidence: the neighbour's own similarity is within ``margin`` of the hit's; another hit of the same
    document lies at most ``merge_gap`` chunks away (merge them with what lies between); or the hit ends
    mid-sentence and the next chunk continues the same section.
    """
    windows = []
    by_doc: dict[int, list[Hit]] = {}
    for hit in hits:
        by_doc.setdefault(hit.span.doc_id, []).append(hit)
    for hit in hits:
        first, end = runtime.doc_rows(hit.span.doc_id)
        lo = hi = hit.row
        reasons: list[str] = []
        base = hit.dense_score if hit.dense_score is not None else float(
            runtime.index.vectors_for(np.asarray([hit.chunk_id])) @ query_vector)
        for direction, label in ((-1, "left"), (1, "right")):
            edge = hit.row
            for _ in range(max_steps):
                nxt = edge + direction
                if nxt < first or nxt >= end:
                    break
                sim = float(runtime.index.vectors_for(np.asarray([runtime.chunk_id(nxt)]))[0] @ query_vector)
                if sim >= base - margin:
                    reasons.append(f"expanded {label}: neighbour score {sim:.2f} ≥ {base - margin:.2f}")
                    edge = nxt
                else:
                    break
            lo, hi = (edge, hi) if direction < 0 else (lo, edge)
        if hi == hit.row and hit.row + 1 < end and ends_mid_sentence(hit.span) and \
                runtime.heading_path(hit.row) == runtime.heading_path(hit.row + 1):
            hi = hit.row + 1
            reasons.append("expanded right: hit ends mid-sentence and the section continues")
        for other in by_doc[hit.span.doc_id]:
            gap = other.row - hit.row
            if 1 < gap <= merge_gap + 1:
                hi = max(hi, other.row)
                reasons.append(f"auto-merged with hit #{other.rank} ({gap - 1} chunk(s) between)")
        windows.append(_Window(runtime.range_span(lo, hi), [hit], (lo, hi), reasons))
    return merge_windows(windows, doc_text)


def whole_documents(
    runtime: SetRuntime, hits: Sequence[Hit], doc_tokens: Callable[[int], int], doc_length: Callable[[int], int],
    limit: int, fallback: Callable[[list[Hit]], list[Passage]],
) -> list[Passage]:
    """The whole document for hits in documents of at most ``limit`` tokens; ``fallback(hits)`` (the
    strategy's own expansion) for the hits in longer documents. Passages keep their best hit's rank."""
    small = [h for h in hits if doc_tokens(h.span.doc_id) <= limit]
    large = [h for h in hits if doc_tokens(h.span.doc_id) > limit]
    windows = [_Window(Span(h.span.doc_id, 0, doc_length(h.span.doc_id)), [h], None,
                       [f"whole document ({doc_tokens(h.span.doc_id)} tokens ≤ {limit})"]) for h in small]
    rank_of = {h.chunk_id: h.rank for h in hits}
    passages = merge_windows(windows) + (fallback(large) if large else [])
    passages.sort(key=lambda p: min(rank_of.get(c, p.rank) for c in p.hit_chunk_ids) if p.hit_chunk_ids else p.rank)
    return [Passage(p.span, p.hit_chunk_ids, p.hit_spans, i, p.score, p.chunk_rows, p.tokens, p.reasons)
            for i, p in enumerate(passages, start=1)]
