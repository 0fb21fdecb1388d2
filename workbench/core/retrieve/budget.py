"""The context budget, in one place: token counts of passages, and budget-aware trimming of expansion
windows (shrink the weakest windows before dropping any hit).

Design note (issue #16). Every expansion turns a ranked hit into a window of chunks around its hit chunk.
When the windows together exceed the token budget, context is given up in the order that costs the
least recall:

1. *Shrink.* The lowest-ranked window loses chunks one at a time, always from the side farther from its
   hit chunk (the later side on a tie), until it is down to the hit chunk; then the next-lowest window
   shrinks, and so on up the ranking, stopping as soon as the windows fit.
2. *Drop.* Only when every window is down to its hit chunk and the hit chunks still do not fit is a hit
   dropped, the lowest-ranked first. A dropped hit whose hit chunk fits after later drops comes back
   (best rank first), so a large hit chunk does not push out a smaller one ranked below it.
3. *Undo.* The trims no longer needed are undone in reverse order (the best hits' nearest neighbours
   come back first), stopping at the first one that does not fit, so the result is always the state
   after some prefix of the trims in step 1: a window never loses a chunk while a lower-ranked window
   still has a neighbour.

What a state of the windows costs is measured, not added up: ``fit_to_budget`` merges the kept windows by the one
merge rule (``passages.merged_windows``) and counts each merged passage's own text with the embedding model's
tokenizer (``Corpus.span_tokens``), so overlapping chunks, shared chunks and the text between them are charged
exactly what is sent (adding per-chunk counts charged a chunker's overlap twice). ``trim_to_budget`` is pure: its
measure is an argument (by default the distinct chunks' counts, for chunks that do not overlap); ``fit_to_budget``
applies it to a strategy's passages (each hit's own window rebuilt by running the expansion on that hit
alone, then widened to the chunks of the set it overlaps); passages that fit are left exactly as the
expansion made them. ``assemble`` still checks the budget on the final passages. A negative budget counts
as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.passages import DocText, Passage, Window, merge_windows, merged_windows
from workbench.core.retrieve.search import Hit
from workbench.core.spans import Span


@dataclass(frozen=True)
class WindowChunk:
    """One chunk of a window: its span, token count and row in its chunk set (when it has one)."""

    span: Span
    tokens: int
    row: int | None = None


@dataclass(frozen=True)
class RankedWindow:
    """A hit (rank 1 = best) and the window of chunks around it, in document order."""

    hit_chunk_id: int
    rank: int
    chunks: tuple[WindowChunk, ...]
    hit_index: int

    def __post_init__(self) -> None:
        if not 0 <= self.hit_index < len(self.chunks):
            raise ValueError(f"hit index {self.hit_index} outside a window of {len(self.chunks)} chunks")
        if len({c.span.doc_id for c in self.chunks}) != 1:
            raise ValueError("a window lies inside one document")


@dataclass(frozen=True)
class TrimmedWindow:
    """A window after trimming: the chunks kept and how many were cut on each side of the hit."""

    hit_chunk_id: int
    rank: int
    chunks: tuple[WindowChunk, ...]
    hit_index: int
    trimmed_before: int
    trimmed_after: int

    @property
    def span(self) -> Span:
        """The character range the kept chunks cover."""
        return Span(self.chunks[0].span.doc_id, self.chunks[0].span.start, self.chunks[-1].span.end)

    @property
    def tokens(self) -> int:
        """Tokens of the kept chunks (shared chunks counted here too)."""
        return sum(c.tokens for c in self.chunks)

    @property
    def reason(self) -> str:
        """Why the window has the size it has."""
        if not self.trimmed_before and not self.trimmed_after:
            return "whole window"
        return (f"trimmed {self.trimmed_before} chunk(s) before and {self.trimmed_after} after the hit "
                "to fit the budget")


@dataclass(frozen=True)
class DroppedHit:
    """A hit left out because even its hit chunk does not fit, and why."""

    hit_chunk_id: int
    rank: int
    reason: str


@dataclass(frozen=True)
class TrimResult:
    """The kept windows (in the input order), the dropped hits (best first) and the tokens used."""

    windows: tuple[TrimmedWindow, ...]
    dropped: tuple[DroppedHit, ...]
    tokens: int
    budget: int


def union_tokens(chunk_lists: Sequence[Sequence[WindowChunk]]) -> int:
    """Tokens of the distinct chunks (by span) across the lists."""
    seen: dict[Span, int] = {}
    for chunks in chunk_lists:
        for chunk in chunks:
            seen.setdefault(chunk.span, chunk.tokens)
    return sum(seen.values())


Measure = Callable[[Sequence[Sequence[WindowChunk]]], int]
"""Tokens of a state of the windows: the kept chunks of each window (and the extra chunks tried)."""


class _State:
    """Mutable trimming state: the kept range ``[lo, hi]`` of each window and which are dropped."""

    def __init__(self, windows: Sequence[RankedWindow], measure: Measure) -> None:
        self.windows = windows
        self.measure = measure
        self.lo = [0 for _ in windows]
        self.hi = [len(w.chunks) - 1 for w in windows]
        self.kept = [True for _ in windows]

    def total(self, extra: Sequence[WindowChunk] = ()) -> int:
        """Tokens of the kept chunks, plus ``extra``."""
        lists = [w.chunks[self.lo[i]:self.hi[i] + 1] for i, w in enumerate(self.windows) if self.kept[i]]
        return self.measure([*lists, extra] if extra else lists)

    def at_hit(self, i: int) -> bool:
        """True when window ``i`` is down to its hit chunk."""
        return self.lo[i] == self.hi[i] == self.windows[i].hit_index


def trim_to_budget(windows: Sequence[RankedWindow], budget_tokens: int, measure: Measure = union_tokens,
                   ) -> TrimResult:
    """Shrink, then drop, then undo unneeded trims, so the windows fit ``budget_tokens`` (see module doc), each
    state's tokens as ``measure`` counts them."""
    budget = max(budget_tokens, 0)
    state = _State(windows, measure)
    weakest_first = sorted(range(len(windows)), key=lambda i: (-windows[i].rank, -i))
    trims: list[tuple[int, int]] = []  # (window, -1 for a chunk cut before the hit, +1 after)
    for i in weakest_first:
        hit = windows[i].hit_index
        while state.total() > budget and not state.at_hit(i):
            side = 1 if state.hi[i] - hit >= hit - state.lo[i] else -1
            if side == 1:
                state.hi[i] -= 1
            else:
                state.lo[i] += 1
            trims.append((i, side))
    dropped_order: list[int] = []
    for i in weakest_first:
        if state.total() <= budget:
            break
        state.kept[i] = False
        dropped_order.append(i)
    for i in sorted(dropped_order, key=lambda j: (windows[j].rank, j)):
        hit_chunk = windows[i].chunks[windows[i].hit_index]
        if state.total([hit_chunk]) <= budget:
            state.kept[i] = True
    for i, side in reversed(trims):
        if not state.kept[i]:
            continue
        lo, hi = state.lo[i], state.hi[i]
        state.lo[i], state.hi[i] = (lo - 1, hi) if side == -1 else (lo, hi + 1)
        if state.total() > budget:
            state.lo[i], state.hi[i] = lo, hi
            break
    return _result(state, budget_tokens)


def _result(state: _State, budget_tokens: int) -> TrimResult:
    """Freeze the state into kept windows and dropped hits with their reasons."""
    kept: list[TrimmedWindow] = []
    dropped: list[DroppedHit] = []
    hits_only = state.measure([[w.chunks[w.hit_index]] for i, w in enumerate(state.windows) if state.kept[i]])
    for i, w in enumerate(state.windows):
        lo, hi = state.lo[i], state.hi[i]
        if state.kept[i]:
            kept.append(TrimmedWindow(w.hit_chunk_id, w.rank, w.chunks[lo:hi + 1], w.hit_index - lo,
                                      lo, len(w.chunks) - 1 - hi))
            continue
        hit_tokens = w.chunks[w.hit_index].tokens
        dropped.append(DroppedHit(w.hit_chunk_id, w.rank, (
            f"budget: even with every window cut to its hit chunk, this {hit_tokens}-token hit chunk "
            f"does not fit ({hits_only} of {max(budget_tokens, 0)} tokens go to the kept hits)")))
    dropped.sort(key=lambda d: d.rank)
    return TrimResult(tuple(kept), tuple(dropped), state.total(), budget_tokens)


ExpandHits = Callable[[list[Hit]], list[Passage]]
SpanTokens = Callable[[Span], int]
"""Tokens of a span's own text under the embedding model's tokenizer (``Corpus.span_tokens``)."""


def passage_tokens(passages: Sequence[Passage], span_tokens: SpanTokens) -> int:
    """Tokens of the passages, each counted on its own text."""
    return sum(span_tokens(p.span) for p in passages)


def merged_measure(doc_text: DocText, span_tokens: SpanTokens) -> Measure:
    """The measure of ``fit_to_budget``: the kept chunks of each window merged into passages by the one merge rule,
    each passage counted on its own text."""
    def measure(chunk_lists: Sequence[Sequence[WindowChunk]]) -> int:
        windows = []
        for chunks in chunk_lists:
            if not chunks:
                continue
            first, last = chunks[0], chunks[-1]
            rows = (first.row, last.row) if first.row is not None and last.row is not None else None
            windows.append(Window(Span(first.span.doc_id, first.span.start, last.span.end), [], rows, []))
        return sum(span_tokens(w.span) for w in merged_windows(windows, doc_text))
    return measure


def _hit_rows(rt: LoadedSet, hit: Hit, expand: ExpandHits) -> list[int]:
    """The chunk rows of ``hit``'s own window (the expansion run on the hit alone), in document order."""
    rows: list[int] = []
    for p in expand([hit]):
        if hit.chunk_id in p.hit_chunk_ids:
            rows = rt.chunks_in(p.span) if p.chunk_rows is None else list(range(p.chunk_rows[0], p.chunk_rows[1] + 1))
            break
    return rows if hit.row in rows else [hit.row]


def fit_to_budget(rt: LoadedSet, hits: Sequence[Hit], passages: list[Passage], budget: int, expand: ExpandHits,
                  doc_text: DocText, span_tokens: SpanTokens) -> tuple[list[Passage], list[Passage]]:
    """``(passages, dropped)`` within ``budget`` tokens (0 = none): ``passages`` (made from ``hits`` by
    ``expand``) unchanged when they fit, else the windows of the hits they hold trimmed by rank (see module
    doc); each dropped hit is a one-chunk passage whose reason says why."""
    if not budget or passage_tokens(passages, span_tokens) <= budget:
        return passages, []
    covered = {cid for p in passages for cid in p.hit_chunk_ids}
    hit_of = {h.chunk_id: h for h in hits if h.chunk_id in covered}
    reasons_of = {cid: p.reasons for p in passages for cid in p.hit_chunk_ids}
    rows_of: dict[int, list[int]] = {}
    windows = []
    for hit in sorted(hit_of.values(), key=lambda h: h.rank):
        rows = _hit_rows(rt, hit, expand)
        rows_of[hit.chunk_id] = rows
        chunks = tuple(WindowChunk(rt.span(r), int(rt.table.tokens[r]), r) for r in rows)
        windows.append(RankedWindow(hit.chunk_id, hit.rank, chunks, rows.index(hit.row)))
    result = trim_to_budget(windows, budget, merged_measure(doc_text, span_tokens))
    kept = []
    for w in result.windows:
        rows = rows_of[w.hit_chunk_id][w.trimmed_before:len(rows_of[w.hit_chunk_id]) - w.trimmed_after]
        reasons = list(reasons_of.get(w.hit_chunk_id, ()))
        if w.trimmed_before or w.trimmed_after:
            reasons.append(f"hit #{w.rank}: {w.reason}")
        kept.append(Window(rt.range_span(rows[0], rows[-1]), [hit_of[w.hit_chunk_id]], (rows[0], rows[-1]), reasons))
    dropped = [Passage(hit_of[d.hit_chunk_id].span, (d.hit_chunk_id,), (hit_of[d.hit_chunk_id].span,), d.rank,
                       hit_of[d.hit_chunk_id].score, (hit_of[d.hit_chunk_id].row,) * 2, 0, (d.reason,))
               for d in result.dropped]
    return merge_windows(kept, doc_text), dropped

