"""Recursive chunking: split by separators in order, to a maximum size in the embedding model's tokens.

The text is cut at the coarsest separators first: heading lines and blank lines (paragraphs), then line
breaks, then sentence boundaries, then word starts, and last token starts. Pieces that fit ``max_tokens``
are packed greedily, in order, into chunks of at most ``max_tokens``; a piece that does not fit is cut at
the next finer separator, down to single tokens, so every chunk respects the limit. Consecutive chunks
packed from the same run of pieces share whole pieces up to ``overlap`` tokens. Chunks are trimmed of
white space; together they cover every non-space character, in document order.

A span's size is the number of the document's tokens (``TokenCounter.offsets`` of the whole text) that
start inside it, so sizes are the tokens the model sees in context, measured without re-tokenising slices.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from workbench.core.ingest.chunkers.protocol import (
    ChunkerError,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    ParamSpec,
)
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.sentences import sentence_spans
from workbench.core.ingest.tokens import TokenCounter

LEVELS = ("paragraphs", "lines", "sentences", "words", "tokens")
_BLANK_LINE = re.compile(r"(?:\r\n|\r(?!\n)|\n)[ \t]*(?:\r\n|\r(?!\n)|\n)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_WORD = re.compile(r"\S+")


class TokenRuler:
    """Measures spans of one document in its tokens: those whose start lies inside the span."""

    def __init__(self, text: str, counter: TokenCounter) -> None:
        offsets = np.asarray(counter.offsets(text), dtype=np.int64).reshape(-1, 2)
        self.starts = offsets[:, 0]

    def size(self, start: int, end: int) -> int:
        """Tokens starting in ``[start, end)``."""
        return int(np.searchsorted(self.starts, end) - np.searchsorted(self.starts, start))

    def starts_inside(self, start: int, end: int) -> list[int]:
        """Token starts strictly inside ``(start, end)``."""
        lo, hi = np.searchsorted(self.starts, start, side="right"), np.searchsorted(self.starts, end)
        return [int(s) for s in self.starts[lo:hi]]


def trimmed(text: str, start: int, end: int) -> Cut | None:
    """``(start, end)`` without leading and trailing white space, or None when nothing else is left."""
    piece = text[start:end]
    core = piece.strip()
    if not core:
        return None
    lead = len(piece) - len(piece.lstrip())
    return start + lead, start + lead + len(core)


def _cuts(text: str, start: int, end: int, level: int, headings: Sequence[Heading], ruler: TokenRuler) -> list[int]:
    """Offsets where separators of ``LEVELS[level]`` cut ``[start, end)``."""
    if level == 0:
        cuts = [m.end() for m in _BLANK_LINE.finditer(text, start, end)]
        cuts += [edge for h in headings for edge in (h.start, h.end)]
    elif level == 1:
        cuts = [m.end() for m in _LINE_BREAK.finditer(text, start, end)]
    elif level == 2:
        cuts = [a for a, _ in sentence_spans(text[start:end], start)]
    elif level == 3:
        cuts = [m.start() for m in _WORD.finditer(text, start, end)]
    else:
        cuts = ruler.starts_inside(start, end)
    return sorted({c for c in cuts if start < c < end})


def _segments(text: str, start: int, end: int, cuts: list[int]) -> list[Cut]:
    bounds = [start, *cuts, end]
    return [s for a, b in zip(bounds, bounds[1:], strict=False) if (s := trimmed(text, a, b))]


def _pack(segments: list[Cut], ruler: TokenRuler, max_tokens: int, overlap: int) -> list[Cut]:
    """Greedy packing of consecutive segments (each fits) into chunks, sharing up to ``overlap`` tokens."""
    out: list[Cut] = []
    current: list[Cut] = []
    for seg in segments:
        if current and ruler.size(current[0][0], seg[1]) > max_tokens:
            last_end = current[-1][1]
            out.append((current[0][0], last_end))
            tail: list[Cut] = []
            for piece in reversed(current):
                if ruler.size(piece[0], last_end) > overlap or ruler.size(piece[0], seg[1]) > max_tokens:
                    break
                tail.insert(0, piece)
            current = tail
        current.append(seg)
    if current:
        out.append((current[0][0], current[-1][1]))
    return out


def split_span(text: str, start: int, end: int, headings: Sequence[Heading], ruler: TokenRuler, max_tokens: int,
               overlap: int = 0) -> list[Cut]:
    """Chunks of ``text[start:end]`` of at most ``max_tokens`` tokens, cut at the coarsest separators that
    make them fit (the recursive splitter on one span; trimmed, in order, covering its non-space text)."""

    def split(lo: int, hi: int, level: int) -> list[Cut]:
        out: list[Cut] = []
        run: list[Cut] = []
        for seg in _segments(text, lo, hi, _cuts(text, lo, hi, level, headings, ruler)):
            if ruler.size(*seg) <= max_tokens or level == len(LEVELS) - 1:
                run.append(seg)
                continue
            out += _pack(run, ruler, max_tokens, overlap)
            run = []
            out += split(seg[0], seg[1], level + 1)
        return out + _pack(run, ruler, max_tokens, overlap)

    whole = trimmed(text, start, end)
    return split(*whole, 0) if whole else []


def recursive_spans(text: str, headings: Sequence[Heading], ruler: TokenRuler, max_tokens: int,
                    overlap: int = 0) -> list[Cut]:
    """Chunks of at most ``max_tokens`` tokens, cut at the coarsest separators that make them fit."""
    return split_span(text, 0, len(text), headings, ruler, max_tokens, overlap)


def within_limit(text: str, spans: Sequence[Cut], ruler: TokenRuler, max_tokens: int,
                 headings: Sequence[Heading] = ()) -> list[Cut]:
    """``spans`` with each one longer than ``max_tokens`` tokens replaced by the recursive splitter's pieces
    of it (paragraphs, lines, sentences, words, then tokens): for chunkers whose method, or library, can
    return a longer chunk (one sentence of 5 MB). Spans within the limit are kept as they are."""
    out: list[Cut] = []
    for start, end in spans:
        if ruler.size(start, end) <= max_tokens:
            out.append((start, end))
        else:
            out += split_span(text, start, end, headings, ruler, max_tokens)
    return out


class RecursiveChunker:
    """The recursive splitter as a protocol chunker."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter) -> None:
        params = spec.param_dict
        self.spec = spec
        self.max_tokens = int(params["max_tokens"])
        self.overlap = int(params["overlap"])
        if self.overlap >= self.max_tokens:
            raise ChunkerError(f"chunker {spec.name!r}: overlap must be smaller than max_tokens")
        self._counter = counter

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """Spans of at most ``max_tokens`` tokens (see the module docstring)."""
        return recursive_spans(text, headings, TokenRuler(text, self._counter), self.max_tokens, self.overlap)


def _build(spec: ChunkerSpec, resources: ChunkerResources) -> RecursiveChunker:
    assert resources.counter is not None  # ChunkerKind.make checks "counter" in needs
    return RecursiveChunker(spec, resources.counter)


RECURSIVE = ChunkerKind(
    "recursive", "split by headings/paragraphs, lines, sentences, words, tokens to a maximum size",
    (ParamSpec("max_tokens", 256, 1, 100_000, help="largest chunk, in the embedding model's tokens"),
     ParamSpec("overlap", 0, 0, 50_000, help="tokens of whole pieces shared with the previous chunk")),
    _build, needs=("counter",))
