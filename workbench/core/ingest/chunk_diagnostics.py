"""Boundary diagnostics of a chunking: chunk sizes, chunks that end mid-sentence, headings cut off from
their text and reference spans split across chunks.

Pure functions over character offsets: a ``ChunkedText`` holds one document's text, its chunk spans with
their token counts, its sentence boundaries and heading spans (and, optionally, reference spans);
``document_counts`` counts what went wrong in it, ``combine`` adds documents up and ``summarise`` turns
the counts into shares and a size histogram. Trailing white space never matters: a chunk that ends in the
blank line after a sentence ends at that sentence.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from workbench.core.ingest.sentences import sentence_spans

Offsets = Sequence[tuple[int, int]]


@dataclass(frozen=True)
class ChunkedText:
    """One document as a chunker cut it: the inputs of ``document_counts``."""

    text: str
    chunks: Offsets  # (start, end) character spans of the chunks, in any order
    tokens: Sequence[int]  # token count of each chunk (same order as ``chunks``)
    sentence_ends: Sequence[int]  # offsets where a sentence (or a heading line) ends
    headings: Offsets = ()  # (start, end) spans of the heading lines
    references: Offsets = ()  # (start, end) spans of reference passages


@dataclass
class BoundaryCounts:
    """Raw counts over one document or several (``combine`` adds them)."""

    tokens: list[int] = field(default_factory=list)  # token count of every chunk
    mid_sentence: int = 0  # chunks whose end is not at a sentence boundary
    headings: int = 0  # headings followed by text they introduce
    separated_headings: int = 0  # … whose chunk ends right after the heading
    references: int = 0  # reference spans (non-blank)
    split_references: int = 0  # … that no single chunk contains

    @property
    def chunks(self) -> int:
        """Number of chunks counted."""
        return len(self.tokens)


@dataclass(frozen=True)
class Histogram:
    """Chunk sizes in bins: ``counts[i]`` chunks have ``edges[i] <= tokens < edges[i + 1]`` (the last bin
    includes its upper edge)."""

    edges: tuple[int, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class ChunkDiagnostics:
    """The diagnostics of a chunking (one document or a whole chunk set)."""

    chunks: int
    tokens_mean: float
    tokens_p10: float
    tokens_p90: float
    histogram: Histogram
    mid_sentence: int
    mid_sentence_share: float
    headings: int
    separated_headings: int
    separated_heading_share: float
    references: int
    split_references: int
    split_reference_share: float | None  # None without reference spans

    def as_dict(self) -> dict[str, object]:
        """JSON-ready values (the histogram as ``{"edges": [...], "counts": [...]}``)."""
        out: dict[str, object] = dict(self.__dict__)
        out["histogram"] = {"edges": list(self.histogram.edges), "counts": list(self.histogram.counts)}
        return out


def sentence_ends(text: str, headings: Offsets = ()) -> list[int]:
    """Sorted offsets where a sentence of ``text`` ends (``sentences.sentence_spans``), plus heading ends."""
    return sorted({end for _start, end in sentence_spans(text)} | {end for _start, end in headings})


def _trimmed_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing white space (not before ``start``)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    end = _trimmed_end(text, start, end)
    while start < end and text[start].isspace():
        start += 1
    return start, end


def _at_boundary(ends: Sequence[int], offset: int) -> bool:
    i = bisect.bisect_left(ends, offset)
    return i < len(ends) and ends[i] == offset


def mid_sentence_ends(text: str, chunks: Offsets, ends: Sequence[int]) -> int:
    """Chunks whose end (trailing white space ignored) is not a sentence boundary in ``ends`` (sorted);
    an end at the end of the text (or of a blank chunk) never counts."""
    text_end = _trimmed_end(text, 0, len(text))
    count = 0
    for start, end in chunks:
        stop = _trimmed_end(text, start, end)
        if stop > start and stop < text_end and not _at_boundary(ends, stop):
            count += 1
    return count


class _SortedChunks:
    """Chunk spans sorted by start with the running maximum of their ends (fast containment queries)."""

    def __init__(self, chunks: Offsets) -> None:
        self.spans = sorted(chunks)
        self.starts = [s for s, _e in self.spans]
        self.reach: list[int] = []
        for _s, e in self.spans:
            self.reach.append(max(e, self.reach[-1]) if self.reach else e)

    def holding(self, offset: int) -> list[tuple[int, int]]:
        """Chunks with ``start < offset <= end`` (those holding the character before ``offset``)."""
        out = []
        j = bisect.bisect_left(self.starts, offset) - 1
        while j >= 0 and self.reach[j] >= offset:
            if self.spans[j][1] >= offset:
                out.append(self.spans[j])
            j -= 1
        return out

    def contains(self, start: int, end: int) -> bool:
        """True when one chunk spans all of ``[start, end)``."""
        j = bisect.bisect_right(self.starts, start) - 1
        return j >= 0 and self.reach[j] >= end


def separated_headings(text: str, chunks: Offsets, headings: Offsets) -> tuple[int, int]:
    """``(headings with text after them, those separated from it)``: a heading is separated when a chunk
    ends right after it (nothing but white space between the heading and the chunk's end) and no chunk
    that holds the heading's last character goes on past it, so its text starts in the next chunk."""
    total = separated = 0
    ordered = _SortedChunks(chunks)
    for h_start, h_end in headings:
        if h_end <= h_start or not text[h_end:].strip():
            continue  # a heading with nothing after it introduces no text
        total += 1
        holding = ordered.holding(h_end)
        if holding and all(_trimmed_end(text, h_end, e) == h_end for _s, e in holding):
            separated += 1
    return total, separated


def split_references(text: str, chunks: Offsets, references: Offsets) -> tuple[int, int]:
    """``(references, those no single chunk contains)``; references are trimmed of white space first and
    blank ones are not counted."""
    total = split = 0
    ordered = _SortedChunks(chunks)
    for r_start, r_end in references:
        start, end = _trimmed(text, max(0, r_start), min(len(text), r_end))
        if end <= start:
            continue
        total += 1
        if not ordered.contains(start, end):
            split += 1
    return total, split


def document_counts(doc: ChunkedText) -> BoundaryCounts:
    """The raw boundary counts of one document."""
    ends = sorted(doc.sentence_ends)
    heading_total, heading_split = separated_headings(doc.text, doc.chunks, doc.headings)
    ref_total, ref_split = split_references(doc.text, doc.chunks, doc.references)
    return BoundaryCounts(
        tokens=[int(t) for t in doc.tokens], mid_sentence=mid_sentence_ends(doc.text, doc.chunks, ends),
        headings=heading_total, separated_headings=heading_split, references=ref_total,
        split_references=ref_split,
    )


def combine(parts: Iterable[BoundaryCounts]) -> BoundaryCounts:
    """The counts of several documents added up."""
    total = BoundaryCounts()
    for part in parts:
        total.tokens.extend(part.tokens)
        total.mid_sentence += part.mid_sentence
        total.headings += part.headings
        total.separated_headings += part.separated_headings
        total.references += part.references
        total.split_references += part.split_references
    return total


def percentile(values: Sequence[int], q: float) -> float:
    """The ``q``-th percentile (0–100) with linear interpolation (0.0 for no values)."""
    return float(np.percentile(values, q)) if len(values) else 0.0


def _nice_step(span: float, bins: int) -> int:
    raw = max(1.0, span / bins)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover - the loop always returns


def size_histogram(tokens: Sequence[int], bins: int = 12) -> Histogram:
    """Chunk sizes in at most about ``bins`` bins of a round width (1, 2, 5, 10, 20 … tokens) starting at a
    multiple of that width; no chunks give no bins."""
    if not tokens:
        return Histogram((), ())
    low, high = min(tokens), max(tokens)
    step = _nice_step(high - low + 1, bins)
    first = (low // step) * step
    count = (high - first) // step + 1
    edges = tuple(first + i * step for i in range(count + 1))
    counts = [0] * count
    for t in tokens:
        counts[min((t - first) // step, count - 1)] += 1
    return Histogram(edges, tuple(counts))


def counts_in_bins(tokens: Sequence[int], edges: Sequence[int]) -> tuple[int, ...]:
    """How many of ``tokens`` fall in each bin of ``edges`` (another chunking's bins; sizes outside them
    go to the first or last bin)."""
    if len(edges) < 2:
        return ()
    counts = [0] * (len(edges) - 1)
    for t in tokens:
        i = bisect.bisect_right(edges, t) - 1
        counts[min(max(i, 0), len(counts) - 1)] += 1
    return tuple(counts)


def with_references(d: ChunkDiagnostics, references: int, split: int) -> ChunkDiagnostics:
    """``d`` with its reference counts replaced (no references: no share)."""
    return replace(d, references=references, split_references=split,
                   split_reference_share=_share(split, references) if references else None)


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def summarise(counts: BoundaryCounts, bins: int = 12) -> ChunkDiagnostics:
    """Shares, size statistics and the size histogram of raw ``counts``."""
    tokens = counts.tokens
    return ChunkDiagnostics(
        chunks=counts.chunks, tokens_mean=sum(tokens) / len(tokens) if tokens else 0.0,
        tokens_p10=percentile(tokens, 10), tokens_p90=percentile(tokens, 90),
        histogram=size_histogram(tokens, bins), mid_sentence=counts.mid_sentence,
        mid_sentence_share=_share(counts.mid_sentence, counts.chunks), headings=counts.headings,
        separated_headings=counts.separated_headings,
        separated_heading_share=_share(counts.separated_headings, counts.headings),
        references=counts.references, split_references=counts.split_references,
        split_reference_share=_share(counts.split_references, counts.references) if counts.references else None,
    )


def diagnose(docs: Iterable[ChunkedText], bins: int = 12) -> ChunkDiagnostics:
    """The diagnostics of several documents together (one document: pass a one-item list)."""
    return summarise(combine(document_counts(d) for d in docs), bins)
