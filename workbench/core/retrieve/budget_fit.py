"""Budget-aware assembly for every expansion: shrink the weakest windows before dropping any hit.

When a strategy has a token budget and its expanded passages exceed it, each hit's own window is rebuilt
(the expansion run on that hit alone, then widened to the chunks of the set it overlaps) and handed to
``budget_trim.trim_to_budget``: the lowest-ranked windows lose their outer chunks first, a hit is dropped
only when every window is down to its hit chunk, and the trims no longer needed are undone best hit first.
The kept windows merge as every expansion's windows do. Passages that fit the budget are left exactly as
the expansion made them. Token counts are the chunk set's stored per-chunk counts (a chunk two windows
share counts once); ``assemble`` still checks the budget on the final passages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.core.retrieve.budget_trim import RankedWindow, WindowChunk, trim_to_budget
from workbench.core.retrieve.chunk_set import SetRuntime
from workbench.core.retrieve.expand import DocText, Passage, _Window, merge_windows
from workbench.core.retrieve.search import Hit

ExpandHits = Callable[[list[Hit]], list[Passage]]


def passage_tokens(passages: Sequence[Passage], doc_text: DocText, count_tokens: Callable[[str], int]) -> int:
    """Tokens of the passages (their stored count, or counted from the text)."""
    return sum(p.tokens or count_tokens(doc_text(p.span.doc_id)[p.span.start:p.span.end]) for p in passages)


def _hit_rows(rt: SetRuntime, hit: Hit, expand: ExpandHits) -> list[int]:
    """The chunk rows of ``hit``'s own window (the expansion run on the hit alone), in document order."""
    rows: list[int] = []
    for p in expand([hit]):
        if hit.chunk_id in p.hit_chunk_ids:
            rows = rt.chunks_in(p.span) if p.chunk_rows is None else list(range(p.chunk_rows[0], p.chunk_rows[1] + 1))
            break
    return rows if hit.row in rows else [hit.row]


def fit_to_budget(rt: SetRuntime, hits: Sequence[Hit], passages: list[Passage], budget: int, expand: ExpandHits,
                  doc_text: DocText, count_tokens: Callable[[str], int]) -> tuple[list[Passage], list[Passage]]:
    """``(passages, dropped)`` within ``budget`` tokens (0 = none): ``passages`` (made from ``hits`` by
    ``expand``) unchanged when they fit, else the windows of the hits they hold trimmed by rank (see module
    doc); each dropped hit is a one-chunk passage whose reason says why."""
    if not budget or passage_tokens(passages, doc_text, count_tokens) <= budget:
        return passages, []
    covered = {cid for p in passages for cid in p.hit_chunk_ids}
    hit_of = {h.chunk_id: h for h in hits if h.chunk_id in covered}
    reasons_of = {cid: p.reasons for p in passages for cid in p.hit_chunk_ids}
    rows_of: dict[int, list[int]] = {}
    windows = []
    for hit in sorted(hit_of.values(), key=lambda h: h.rank):
        rows = _hit_rows(rt, hit, expand)
        rows_of[hit.chunk_id] = rows
        chunks = tuple(WindowChunk(rt.span(r), int(rt.table.tokens[r])) for r in rows)
        windows.append(RankedWindow(hit.chunk_id, hit.rank, chunks, rows.index(hit.row)))
    result = trim_to_budget(windows, budget)
    kept = []
    for w in result.windows:
        rows = rows_of[w.hit_chunk_id][w.trimmed_before:len(rows_of[w.hit_chunk_id]) - w.trimmed_after]
        reasons = list(reasons_of.get(w.hit_chunk_id, ()))
        if w.trimmed_before or w.trimmed_after:
            reasons.append(f"hit #{w.rank}: {w.reason}")
        kept.append(_Window(rt.range_span(rows[0], rows[-1]), [hit_of[w.hit_chunk_id]], (rows[0], rows[-1]), reasons))
    dropped = [Passage(hit_of[d.hit_chunk_id].span, (d.hit_chunk_id,), (hit_of[d.hit_chunk_id].span,), d.rank,
                       hit_of[d.hit_chunk_id].score, (hit_of[d.hit_chunk_id].row,) * 2, 0, (d.reason,))
               for d in result.dropped]
    return merge_windows(kept, doc_text), dropped

