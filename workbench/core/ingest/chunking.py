"""Chunkers: a document's text → ordered ``ChunkPiece`` spans, each exactly ``text[start:end]``.

Units are tokens of the embedding model's tokenizer (default), words or sentences. A unit never spans more
than a fixed number of characters (16 for tokens, 64 for words, 2,000 for sentences): a long unbroken run is
cut into several units, so no chunk is far larger than its size. Fixed-size chunking
slides a window of ``size`` units with ``overlap``; structure-aware chunking first splits on headings and
paragraphs, packs whole paragraphs of one section up to ``size`` and only splits paragraphs that are too
long. Structure-aware chunks leave heading lines out of the chunk text: the heading path holds them, and
heading-path embedding puts them back into what is embedded.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

import numpy as np

from workbench.core.ingest.boundaries import tile_spans
from workbench.core.ingest.headings import Heading, heading_path_at, section_spans
from workbench.core.ingest.sentences import sentence_spans
from workbench.core.ingest.tokens import TokenCounter, match_spans, split_long
from workbench.core.ingest.values import ChunkPiece, WindowShape

_WORD = re.compile(r"\S+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
MAX_WORD_CHARS = 64  # longer unbroken runs count as several words (a chunk never grows without bound)
MAX_SENTENCE_CHARS = 2_000  # a "sentence" with no end for longer than this is cut into pieces


def unit_spans(text: str, unit: str, counter: TokenCounter | None = None) -> np.ndarray:
    """Offsets of the units (tokens / words / sentences) of ``text`` as an ``(n, 2)`` int64 array.

    The units are tiled over the text (``boundaries.tile_spans``): together they cover every non-space
    character (a control character the tokenizer drops belongs to the token beside it) and none begins or
    ends between a letter and its combining marks; a text with non-space characters but no token (only
    control characters, say) is one unit. Chunks made of consecutive units therefore cover the text."""
    if unit == "tokens":  # token counters tile their offsets themselves
        if counter is None:
            raise ValueError("token units need a token counter")
        spans = np.asarray(counter.offsets(text), dtype=np.int64).reshape(-1, 2)
    elif unit == "words":  # a "word" of 1 MB without spaces is cut into 64-character pieces
        spans = tile_spans(text, split_long(match_spans(_WORD, text), MAX_WORD_CHARS), in_place=True)
    elif unit == "sentences":
        spans = split_long(np.asarray(sentence_spans(text), dtype=np.int64).reshape(-1, 2), MAX_SENTENCE_CHARS)
        spans = tile_spans(text, spans, in_place=True)
    else:
        raise ValueError(f"unknown unit {unit!r}")
    if not len(spans):
        stripped = text.strip()
        if not stripped:
            return spans
        lead = len(text) - len(text.lstrip())
        return np.array([[lead, lead + len(stripped)]], dtype=np.int64)
    return spans


def _windows(units: np.ndarray, lo: int, hi: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Unit-index windows ``[i, j)`` over ``units[lo:hi]`` of ``size`` with ``overlap``."""
    out = []
    step = size - overlap
    i = lo
    while i < hi:
        j = min(hi, i + size)
        out.append((i, j))
        if j >= hi:
            break
        i += step
    return out


def _paragraph_blocks(text: str, headings: Sequence[Heading]) -> list[tuple[int, int]]:
    """Paragraphs inside each section; heading lines are left out (the heading path of the text a heading
    introduces carries it), so no chunk is only a heading. A heading with no body of its own (``# Plans``
    straight before ``## Monthly pass``) lives on in the heading paths below it; only a document that is
    nothing but headings keeps its heading lines, so that it is not left without chunks."""
    heading_at = {h.start: h.end for h in headings}
    blocks = []
    for s_start, s_end in section_spans(headings, len(text)):
        pos = heading_at.get(s_start, s_start)
        for m in _PARAGRAPH_BREAK.finditer(text, pos, s_end):
            blocks.append((pos, m.start()))
            pos = m.end()
        blocks.append((pos, s_end))
    blocks = [(a, b) for a, b in blocks if b > a and text[a:b].strip()]
    if not blocks and text.strip():
        blocks = [(h.start, h.end) for h in headings if text[h.start : h.end].strip()]
    return blocks


def _structured_windows(
    text: str, headings: Sequence[Heading], units: np.ndarray, size: int, overlap: int
) -> list[tuple[int, int]]:
    starts = units[:, 0]
    sections = section_spans(headings, len(text))
    section_of = [s for s, _ in sections]
    out: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None  # unit window being packed
    current_section = -1
    for b_start, b_end in _paragraph_blocks(text, headings):
        lo = int(np.searchsorted(starts, b_start))
        hi = int(np.searchsorted(starts, b_end))
        if hi <= lo:
            continue
        section = bisect.bisect_right(section_of, b_start) - 1
        if current and section == current_section and hi - current[0] <= size:
            current = (current[0], hi)
            continue
        if current:
            out.append(current)
            current = None
        if hi - lo > size:
            out.extend(_windows(units, lo, hi, size, overlap))
        else:
            current, current_section = (lo, hi), section
    if current:
        out.append(current)
    return out


def chunk_document(
    text: str,
    headings: Sequence[Heading],
    config: WindowShape,
    counter: TokenCounter | None = None,
    units: np.ndarray | Sequence[tuple[int, int]] | None = None,
) -> list[ChunkPiece]:
    """Cut one document into ordered chunks. ``units`` may be passed in when already computed."""
    if units is None:
        units = unit_spans(text, config.unit, counter)
    units = np.asarray(units, dtype=np.int64).reshape(-1, 2)
    if not len(units):
        return []
    if config.structure_aware:
        windows = _structured_windows(text, headings, units, config.size, config.overlap)
    else:
        windows = _windows(units, 0, len(units), config.size, config.overlap)
    pieces = []
    for position, (i, j) in enumerate(windows):
        start, end = int(units[i, 0]), int(units[j - 1, 1])
        pieces.append(ChunkPiece(position, start, end, heading_path_at(headings, start)))
    return pieces
