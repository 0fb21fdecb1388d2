"""Relevant segment extraction (RSE): the best contiguous runs of chunks around the hits, under a budget;
the algorithm and the expansion that runs it.

Design note (issue #16; the method is dsRAG's, the code is ours).

*Value of a chunk.* ``value = exp(-(rank - 1) / decay) * similarity - penalty``.
``similarity`` is the chunk's cosine with the question, computed by the caller for the chunks near the hits.
``rank`` is the hit's rank (1 = best); a chunk the search did not return ranks just below the last hit
(largest hit rank + 1), so its similarity counts at about the weight of the weakest hit. A chunk without a
computed similarity counts as similarity 0, so its value is ``-penalty``: a pure cost, kept only as a
bridge between relevant chunks whose surplus pays for it.

*Why the penalty.* Without it every chunk with a positive similarity adds value and the best segment would
be as long as the length cap allows. The penalty is the (rank-weighted) similarity a chunk must clear to
pay its way. A weak chunk sandwiched between relevant ones is still included when the surplus of its
neighbours exceeds its deficit; that rule falls out of maximising a sum and needs no special case.
``decay`` sets how fast rank discounts similarity (large: similarity alone; small: the top hits dominate).

*Segments.* The value of a segment is the sum of its chunk values. A segment never crosses a document nor
a gap in chunk positions (the caller may pass only the chunks near the hits). Each step finds, exactly,
the maximum-sum run of at most ``max_segment_chunks`` chunks that fits the remaining token budget and
overlaps no segment taken so far (O(n·L) per stretch of free chunks), over all documents, and takes the
best one; it stops when no such run is worth more than ``min_segment_value``. Segments come out in
non-increasing value. Each step is exact; the whole selection is greedy and not the optimum of the
knapsack: with a budget of 10 tokens, A (value 3, 6 tokens) beats B and C (value 2, 5 tokens each), so
greedy returns 3 where B + C would give 4. Greedy keeps the single best segment first, which is what the
reader sees first. Segments may touch (a run cut by the length cap can continue in the next segment).

*Presets* (cosines of a small sentence model: on-topic chunks about 0.4-0.7, off-topic 0.0-0.2):
precision (penalty 0.25, decay 10, at most 4 chunks) keeps short segments of clearly on-topic chunks;
balanced (0.18, 20, 8) is dsRAG's middle ground; recall (0.10, 40, 16) keeps long segments and lets weak
chunks ride along with strong ones. The token budget is the caller's context budget, not part of a preset.

*As an expansion* (``Segments``). Every chunk within ``max_segment_chunks - 1`` positions of a hit (same
document) is a candidate; its
similarity is the cosine of its stored vector with the question vector (read back from the chunk set's
vector index, never re-embedded). ``extract_segments`` then values the chunks (similarity
discounted by rank, minus ``penalty``) and takes the best non-overlapping segments, most valuable first,
until the strategy's context budget is spent (no budget: every segment worth more than nothing). Each
passage says what its segment is worth and why each chunk is in; hits no segment covers come back as
dropped, with the reason.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from workbench.core.retrieve.expansions.base import Expansion, Knob, register
from workbench.core.retrieve.passages import Passage
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.search import Hit


@dataclass(frozen=True)
class RseSettings:
    """The knobs of relevant segment extraction (see the module docstring for their meaning)."""

    penalty: float = 0.18
    decay: float = 20.0
    max_segment_chunks: int = 8
    min_segment_value: float = 0.0

    def __post_init__(self) -> None:
        if self.decay <= 0:
            raise ValueError("decay must be positive")
        if self.max_segment_chunks < 1:
            raise ValueError("max_segment_chunks must be at least 1")


RSE_PRESETS: dict[str, RseSettings] = {
    "precision": RseSettings(penalty=0.25, decay=10.0, max_segment_chunks=4),
    "balanced": RseSettings(penalty=0.18, decay=20.0, max_segment_chunks=8),
    "recall": RseSettings(penalty=0.10, decay=40.0, max_segment_chunks=16),
}


@dataclass(frozen=True)
class SegmentChunk:
    """One chunk of a document as RSE sees it: id, position in the document, character range, tokens."""

    chunk_id: int
    position: int
    start: int
    end: int
    tokens: int


@dataclass(frozen=True)
class DocumentCandidates:
    """The chunks of one document near the hits (ordered by position) and their similarity to the question."""

    doc_id: int
    chunks: tuple[SegmentChunk, ...]
    similarities: Mapping[int, float] = field(default_factory=dict)  # chunk id → cosine; missing: 0


@dataclass(frozen=True)
class ChunkValue:
    """Why a chunk is in a segment: its rank (hits only), similarity, value and a sentence saying so."""

    chunk_id: int
    position: int
    rank: int | None
    similarity: float | None
    value: float
    reason: str


@dataclass(frozen=True)
class Segment:
    """A contiguous run of chunks of one document chosen as context, with its value and token count."""

    doc_id: int
    first_position: int
    last_position: int
    span: Span
    value: float
    tokens: int
    chunks: tuple[ChunkValue, ...]

    @property
    def chunk_ids(self) -> tuple[int, ...]:
        """The chunk ids of the segment, in document order."""
        return tuple(c.chunk_id for c in self.chunks)

    @property
    def hit_ranks(self) -> tuple[int, ...]:
        """The ranks of the hits inside the segment, best first."""
        return tuple(sorted(c.rank for c in self.chunks if c.rank is not None))

    @property
    def reasons(self) -> tuple[str, ...]:
        """One sentence per chunk saying why it is in."""
        return tuple(c.reason for c in self.chunks)


@dataclass(frozen=True)
class DroppedSegmentHit:
    """A hit no chosen segment covers, and why."""

    chunk_id: int
    rank: int
    reason: str


@dataclass(frozen=True)
class SegmentSelection:
    """The chosen segments (best first), the hits left out, and the tokens spent of the budget."""

    segments: tuple[Segment, ...]
    dropped: tuple[DroppedSegmentHit, ...]
    tokens: int
    budget: int


def chunk_value(similarity: float | None, rank: int, settings: RseSettings) -> float:
    """``exp(-(rank - 1) / decay) * similarity - penalty``; a missing similarity counts as 0."""
    sim = 0.0 if similarity is None else similarity
    return math.exp(-(rank - 1) / settings.decay) * sim - settings.penalty


RunTokens = Callable[[int, int], int]
"""Tokens of the run of items ``first..last`` (inclusive): its text counted whole."""


def summed(tokens: Sequence[int]) -> RunTokens:
    """A run's tokens as the sum of its items' (items that share no text)."""
    prefix = [0, *itertools.accumulate(tokens)]
    return lambda first, last: prefix[last + 1] - prefix[first]


def best_segment(values: Sequence[float], tokens: Sequence[int] | RunTokens, max_chunks: int, max_tokens: int,
                 ) -> tuple[int, int, float] | None:
    """The maximum-sum run ``(first, last, value)`` (inclusive indices) of at most ``max_chunks`` items
    whose tokens (a run's count, or the items' counts summed) are at most ``max_tokens``; ``None`` when not even
    one item fits.

    Ties go to the run with fewer tokens, then fewer items, then the earlier start. O(n·max_chunks).
    """
    cost = tokens if callable(tokens) else summed(tokens)
    best: tuple[float, int, int, int, int] | None = None  # (value, -tokens, -length, -first, last)
    for first in range(len(values)):
        total = 0.0
        for last in range(first, min(len(values), first + max_chunks)):
            spent = cost(first, last)
            if spent > max_tokens:
                break
            total += values[last]
            key = (total, -spent, -(last - first), -first, last)
            if best is None or key > best:
                best = key
    return None if best is None else (-best[3], best[4], best[0])


@dataclass
class _Stretch:
    """A run of consecutive, still free chunks of one document, with their values."""

    doc_order: int
    doc_id: int
    chunks: list[SegmentChunk]
    values: list[float]
    span_tokens: Callable[[Span], int] | None = None

    def tokens(self, first: int, last: int) -> int:
        """Tokens of the run ``first..last``: its own text counted whole (``span_tokens``), else the chunks'
        counts summed."""
        if self.span_tokens is None:
            return sum(c.tokens for c in self.chunks[first:last + 1])
        return self.span_tokens(Span(self.doc_id, self.chunks[first].start, self.chunks[last].end))


def _runs(doc: DocumentCandidates) -> list[list[SegmentChunk]]:
    """Split a document's chunks where positions are not consecutive."""
    runs: list[list[SegmentChunk]] = []
    for chunk in doc.chunks:
        if runs and chunk.position <= runs[-1][-1].position:
            raise ValueError(f"chunks of document {doc.doc_id} are not in increasing position order")
        if runs and chunk.position == runs[-1][-1].position + 1:
            runs[-1].append(chunk)
        else:
            runs.append([chunk])
    return runs


def _describe(rank: int | None, similarity: float | None, value: float, settings: RseSettings) -> str:
    """One sentence on why a chunk with this value is in a segment."""
    if similarity is None:
        return f"no similarity computed (counted as 0): value {value:+.2f}, bridged by the chunks around it"
    role = f"hit #{rank}" if rank is not None else "neighbour"
    if value > 0:
        return f"{role}: similarity {similarity:.2f} clears the penalty {settings.penalty:.2f}: value {value:+.2f}"
    return f"{role}: similarity {similarity:.2f}, value {value:+.2f}, kept between relevant chunks"


def extract_segments(documents: Sequence[DocumentCandidates], hit_ranks: Mapping[int, int], budget_tokens: int,
                     settings: RseSettings | None = None, span_tokens: Callable[[Span], int] | None = None,
                     ) -> SegmentSelection:
    """Choose the best non-overlapping segments of the candidate chunks within ``budget_tokens``.

    ``hit_ranks`` maps the chunk id of each hit to its rank (1 = best). Hits that no chosen segment covers
    are reported in ``dropped`` with the reason (budget, or a value too low to form a segment). A segment's
    tokens are its own text's (``span_tokens``, what the pipeline passes: chunks that overlap share their
    text), else its chunks' counts summed.
    """
    settings = settings or RSE_PRESETS["balanced"]
    unretrieved_rank = max(hit_ranks.values(), default=0) + 1
    stretches: list[_Stretch] = []
    for order, doc in enumerate(documents):
        for run in _runs(doc):
            values = [chunk_value(doc.similarities.get(c.chunk_id), hit_ranks.get(c.chunk_id, unretrieved_rank),
                                  settings) for c in run]
            stretches.append(_Stretch(order, doc.doc_id, run, values, span_tokens))
    similarity_of = {c.chunk_id: doc.similarities.get(c.chunk_id) for doc in documents for c in doc.chunks}
    chosen: list[Segment] = []
    remaining = max(budget_tokens, 0)
    while True:
        pick: tuple[tuple[float, int, int, int], int, tuple[int, int, float]] | None = None
        for index, stretch in enumerate(stretches):
            found = best_segment(stretch.values, stretch.tokens, settings.max_segment_chunks, remaining)
            if found is None or found[2] <= settings.min_segment_value:
                continue
            first, last, value = found
            spent = stretch.tokens(first, last)
            key = (value, -spent, -stretch.doc_order, -stretch.chunks[first].position)
            if pick is None or key > pick[0]:
                pick = (key, index, found)
        if pick is None:
            break
        _, index, (first, last, value) = pick
        stretch = stretches.pop(index)
        members = stretch.chunks[first:last + 1]
        explained = tuple(
            ChunkValue(c.chunk_id, c.position, hit_ranks.get(c.chunk_id), similarity_of[c.chunk_id], v,
                       _describe(hit_ranks.get(c.chunk_id), similarity_of[c.chunk_id], v, settings))
            for c, v in zip(members, stretch.values[first:last + 1], strict=True))
        tokens = stretch.tokens(first, last)
        chosen.append(Segment(stretch.doc_id, members[0].position, members[-1].position,
                              Span(stretch.doc_id, members[0].start, members[-1].end), value, tokens, explained))
        remaining -= tokens
        for lo, hi in ((0, first), (last + 1, len(stretch.chunks))):
            if lo < hi:
                stretches.append(_Stretch(stretch.doc_order, stretch.doc_id, stretch.chunks[lo:hi],
                                          stretch.values[lo:hi], span_tokens))
    dropped = _dropped_hits(stretches, hit_ranks, chosen, remaining, settings)
    return SegmentSelection(tuple(chosen), dropped, sum(s.tokens for s in chosen), budget_tokens)


def _dropped_hits(free: Sequence[_Stretch], hit_ranks: Mapping[int, int], chosen: Sequence[Segment],
                  remaining: int, settings: RseSettings) -> tuple[DroppedSegmentHit, ...]:
    """Every hit outside the chosen segments, with why: no room left, a value too low, or not a candidate."""
    covered = {cid for seg in chosen for cid in seg.chunk_ids}
    where = {c.chunk_id: (s, i) for s in free for i, c in enumerate(s.chunks)}
    dropped: list[DroppedSegmentHit] = []
    for chunk_id, rank in sorted(hit_ranks.items(), key=lambda item: (item[1], item[0])):
        if chunk_id in covered:
            continue
        if chunk_id not in where:
            dropped.append(DroppedSegmentHit(chunk_id, rank, "not among the candidate chunks"))
            continue
        stretch, index = where[chunk_id]
        value, tokens = _best_around(stretch, index, settings.max_segment_chunks)
        if value > settings.min_segment_value:
            reason = (f"budget: the best segment around it (value {value:+.2f}, {tokens} tokens) "
                      f"does not fit in the {remaining} tokens left")
        else:
            reason = (f"low value: the best segment around it is worth {value:+.2f}, "
                      f"not more than {settings.min_segment_value:+.2f}")
        dropped.append(DroppedSegmentHit(chunk_id, rank, reason))
    return tuple(dropped)


def _best_around(stretch: _Stretch, index: int, max_chunks: int) -> tuple[float, int]:
    """Value and tokens of the best run of at most ``max_chunks`` that contains item ``index`` (no budget)."""
    best: tuple[float, int] | None = None
    for first in range(max(0, index - max_chunks + 1), index + 1):
        for last in range(index, min(len(stretch.chunks), first + max_chunks)):
            value = sum(stretch.values[first:last + 1])
            tokens = stretch.tokens(first, last)
            if best is None or (value, -tokens) > (best[0], -best[1]):
                best = (value, tokens)
    assert best is not None
    return best


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

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """The chosen segments as passages, most valuable first."""
        return self.expand_detailed(ctx, hits)[0]

    def expand_detailed(self, ctx: SearchInputs, hits: Sequence[Hit]) -> tuple[list[Passage], list[Passage]]:
        """``(passages, dropped)``: the segments as passages, and each hit no segment covers as a one-chunk
        passage whose reason says why it was left out."""
        rt = ctx.runtime
        documents = candidate_documents(rt, hits, ctx.query_vector, self.max_segment_chunks - 1)
        budget = ctx.budget or sum(c.tokens for d in documents for c in d.chunks)
        selection = extract_segments(documents, {h.chunk_id: h.rank for h in hits}, budget, self.settings(),
                                     ctx.corpus.span_tokens)
        return segment_passages(rt, hits, selection)

    def describe(self, unit: str) -> str:
        """``segments (penalty P, ≤ N chunks)``."""
        return f"segments (penalty {self.penalty:g}, ≤ {self.max_segment_chunks} chunks)"

    def chip(self) -> str:
        """``RSE P``."""
        return f"RSE {self.penalty:g}"


def candidate_documents(rt: LoadedSet, hits: Sequence[Hit], query_vector: np.ndarray, reach: int,
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


def _passage(rt: LoadedSet, segment: Segment, rank: int, hit_of: dict[int, Hit]) -> Passage:
    """One segment as a passage: its hits best first, its value and each chunk's reason."""
    hits = sorted((hit_of[c] for c in segment.chunk_ids if c in hit_of), key=lambda h: h.rank)
    first, last = segment.first_position, segment.last_position
    head = (f"segment value {segment.value:+.2f}: {last - first + 1} chunk(s), {segment.tokens} tokens, "
            f"hit(s) {', '.join(f'#{h.rank}' for h in hits) or 'none'}")
    return Passage(rt.range_span(first, last), tuple(h.chunk_id for h in hits), tuple(h.span for h in hits), rank,
                   hits[0].score if hits else segment.value, (first, last), segment.tokens,
                   (head, *segment.reasons))


def segment_passages(rt: LoadedSet, hits: Sequence[Hit], selection: SegmentSelection,
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
