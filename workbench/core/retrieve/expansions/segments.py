"""Relevant segment extraction as an expansion: the best contiguous runs of chunks around the hits.

Every chunk within ``max_segment_chunks - 1`` positions of a hit (same document) is a candidate; its
similarity is the cosine of its stored vector with the question vector (read back from the chunk set's
vector index, never re-embedded). ``segments.extract_segments`` then values the chunks (similarity
discounted by rank, minus ``penalty``) and takes the best non-overlapping segments, most valuable first,
until the strategy's context budget is spent (no budget: every segment worth more than nothing). Each
passage says what its segment is worth and why each chunk is in; hits no segment covers come back as
dropped, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.core.retrieve.expand import Passage
from workbench.core.retrieve.expansions.base import Expansion, Knob, register
from workbench.core.retrieve.segments import (
    DocumentCandidates,
    RseSettings,
    Segment,
    SegmentChunk,
    SegmentSelection,
    extract_segments,
)

if TYPE_CHECKING:
    from workbench.core.retrieve.chunk_set import SetRuntime
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit


@register
@dataclass(frozen=True)
class Segments(Expansion):
    """Relevant segment extraction: best-valued contiguous segments around the hits, within the budget."""

    penalty: float = 0.18
    decay: float = 20.0
    max_segment_chunks: int = 8

    kind = "segments"
    label = "relevant segments (RSE)"
    order = 50
    knobs = (
        Knob("penalty", "Penalty", 0.0, 1.0, 0.01,
             "Relevant segments: the similarity a chunk must clear to pay its way; weaker chunks are kept only "
             "between relevant ones. Higher: shorter, more precise segments. Instant.", decimals=2),
        Knob("decay", "Rank decay", 1.0, 100.0, 1.0,
             "Relevant segments: how fast a lower rank discounts similarity (large: similarity alone; small: "
             "the top hits dominate). Instant.", decimals=0),
        Knob("max_segment_chunks", "Max segment", 1, 32, 1,
             "Relevant segments: the most chunks one segment may hold. Instant: nothing is re-embedded."),
    )
    extent = "max_segment_chunks"
    selects_within_budget = True  # the expansion spends the strategy's budget itself

    def __post_init__(self) -> None:
        if not 0.0 <= self.penalty <= 1.0:
            raise ValueError("penalty must be between 0 and 1")
        self.settings()  # decay > 0, max_segment_chunks ≥ 1

    def settings(self) -> RseSettings:
        """The knobs as ``RseSettings``."""
        return RseSettings(penalty=self.penalty, decay=self.decay, max_segment_chunks=self.max_segment_chunks)

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[Passage]:
        """The chosen segments as passages, most valuable first."""
        return self.expand_detailed(ctx, hits)[0]

    def expand_detailed(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> tuple[list[Passage], list[Passage]]:
        """``(passages, dropped)``: the segments as passages, and each hit no segment covers as a one-chunk
        passage whose reason says why it was left out."""
        rt = ctx.runtime
        documents = candidate_documents(rt, hits, ctx.query_vector, self.max_segment_chunks - 1)
        budget = ctx.budget or sum(c.tokens for d in documents for c in d.chunks)
        selection = extract_segments(documents, {h.chunk_id: h.rank for h in hits}, budget, self.settings())
        return segment_passages(rt, hits, selection)

    def describe(self, unit: str) -> str:
        """``segments (penalty P, ≤ N chunks)``."""
        return f"segments (penalty {self.penalty:g}, ≤ {self.max_segment_chunks} chunks)"

    def chip(self) -> str:
        """``RSE P``."""
        return f"RSE {self.penalty:g}"


def candidate_documents(rt: SetRuntime, hits: Sequence[Hit], query_vector: np.ndarray, reach: int,
                        ) -> list[DocumentCandidates]:
    """The chunks within ``reach`` positions of a hit, per document (in first-hit order), with their cosine
    to the question from the stored vectors."""
    rows_of_doc: dict[int, set[int]] = {}
    for hit in sorted(hits, key=lambda h: h.rank):
        first, end = rt.doc_rows(hit.span.doc_id)
        rows_of_doc.setdefault(hit.span.doc_id, set()).update(
            range(max(first, hit.row - reach), min(end, hit.row + reach + 1)))
    all_rows = sorted(r for rows in rows_of_doc.values() for r in rows)
    if not all_rows:
        return []
    ids = rt.table.ids[np.asarray(all_rows)]
    sims = np.asarray(rt.index.vectors_for(ids), dtype=np.float32) @ np.asarray(query_vector, dtype=np.float32)
    similarity = {int(i): float(s) for i, s in zip(ids.tolist(), sims.tolist(), strict=True)}
    documents = []
    for doc_id, rows in rows_of_doc.items():
        chunks = tuple(SegmentChunk(rt.chunk_id(r), r, int(rt.table.starts[r]), int(rt.table.ends[r]),
                                    int(rt.table.tokens[r])) for r in sorted(rows))
        documents.append(DocumentCandidates(doc_id, chunks, {c.chunk_id: similarity[c.chunk_id] for c in chunks}))
    return documents


def _passage(rt: SetRuntime, segment: Segment, rank: int, hit_of: dict[int, Hit]) -> Passage:
    """One segment as a passage: its hits best first, its value and each chunk's reason."""
    hits = sorted((hit_of[c] for c in segment.chunk_ids if c in hit_of), key=lambda h: h.rank)
    first, last = segment.first_position, segment.last_position
    head = (f"segment value {segment.value:+.2f}: {last - first + 1} chunk(s), {segment.tokens} tokens, "
            f"hit(s) {', '.join(f'#{h.rank}' for h in hits) or 'none'}")
    return Passage(rt.range_span(first, last), tuple(h.chunk_id for h in hits), tuple(h.span for h in hits), rank,
                   hits[0].score if hits else segment.value, (first, last),
                   0 if rt.info.config.overlap else segment.tokens, (head, *segment.reasons))


def segment_passages(rt: SetRuntime, hits: Sequence[Hit], selection: SegmentSelection,
                     ) -> tuple[list[Passage], list[Passage]]:
    """``(passages, dropped)`` of a segment selection (passages ranked by segment value)."""
    hit_of = {h.chunk_id: h for h in hits}
    passages = [_passage(rt, s, rank, hit_of) for rank, s in enumerate(selection.segments, start=1)]
    dropped = []
    for d in selection.dropped:
        hit = hit_of[d.chunk_id]
        dropped.append(Passage(hit.span, (hit.chunk_id,), (hit.span,), hit.rank, hit.score, (hit.row, hit.row),
                               0, (d.reason,)))
    return passages, dropped
