"""Where spans of a document may begin and end: over every non-space character, never inside a letter.

Tokenizers drop characters: control characters (``\\x01``, ``\\x7f``), and an uncased model's normaliser
strips combining marks (the ``\\u0301`` of a decomposed ``é``), so token offsets leave them out. Units and
chunks built from such offsets would leave those characters outside every chunk, or cut a letter from its
accent. ``tile_spans`` widens spans over what lies between them: a run of non-space characters between two
spans joins the span it touches (the previous one when it touches both, or neither; the next one when white
space separates it from the previous), text before the first span joins the first and text after the last
joins the last, and no span starts or ends between a character and the combining marks, zero-width joiner
or emoji modifiers that extend it. Spans are never added, removed or reordered, so a token count stays what
the tokenizer says.

A character is white space when ``str.isspace`` says so; ``\\x1c``–``\\x1f`` and ``\\x85`` are white space
to Python, so they are never needed inside a span.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

import numpy as np

_ZWJ = 0x200D
_EMOJI_MODIFIERS = range(0x1F3FB, 0x1F400)
_FIRST_EXTENDER = 0x300  # no combining mark, joiner or modifier lies below U+0300


def is_extender(char: str) -> bool:
    """True for a character that belongs to the one before it: a combining mark (categories Mn, Mc, Me),
    the zero-width joiner or an emoji skin-tone modifier."""
    code = ord(char)
    return code >= _FIRST_EXTENDER and (unicodedata.category(char)[0] == "M" or code == _ZWJ
                                        or code in _EMOJI_MODIFIERS)


_SPACE_LIMIT = 0x3001  # no white-space character lies above U+3000
_BLOCK = 1 << 16  # spans tiled at a time: the code points looked at stay a few MB on any document


@lru_cache(maxsize=1)
def _space_table() -> np.ndarray:
    """``table[c]``: whether ``chr(c).isspace()``, for code points below ``_SPACE_LIMIT``."""
    return np.array([chr(c).isspace() for c in range(_SPACE_LIMIT)], dtype=bool)


@lru_cache(maxsize=1)
def extender_class() -> str:
    """A regular-expression character class (``[...]``) of every extender (see ``is_extender``)."""
    codes = [c for c in range(_FIRST_EXTENDER, sys.maxunicode + 1) if is_extender(chr(c))]
    ranges: list[tuple[int, int]] = []
    for c in codes:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    parts = [re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges]
    return "[" + "".join(parts) + "]"


class _Window:
    """The code points of ``text[lo:hi]`` (one byte each for ASCII text, else four)."""

    def __init__(self, text: str, lo: int, hi: int) -> None:
        piece = text[lo:hi]
        self.lo = lo
        self.ascii = piece.isascii()
        data = piece.encode("ascii") if self.ascii else piece.encode("utf-32-le", "surrogatepass")
        self.codes = np.frombuffer(data, dtype=np.uint8 if self.ascii else np.uint32)

    def at(self, positions: np.ndarray) -> np.ndarray:
        """Code points at text positions ``positions`` (each inside the window)."""
        return np.asarray(self.codes[positions - self.lo])

    def space(self, positions: np.ndarray) -> np.ndarray:
        """Which of ``positions`` hold white space."""
        codes = self.at(positions).astype(np.int64)
        return np.where(codes < _SPACE_LIMIT, _space_table()[np.minimum(codes, _SPACE_LIMIT - 1)], False)

    def extender(self, positions: np.ndarray) -> np.ndarray:
        """Which of ``positions`` hold an extender (see ``is_extender``)."""
        out = np.zeros(len(positions), dtype=bool)
        if self.ascii:
            return out
        codes = self.at(positions)
        high = np.nonzero(codes >= _FIRST_EXTENDER)[0]
        if len(high):
            values = codes[high]
            unique = np.unique(values)
            extenders = unique[[is_extender(chr(int(c))) for c in unique]]
            out[high] = np.isin(values, extenders)
        return out


def _last_space(text: str, start: int, end: int) -> int:
    """Index of the last white-space character in ``text[start:end]``, or -1."""
    for i in range(end - 1, start - 1, -1):
        if text[i].isspace():
            return i
    return -1


def _fill_gap(text: str, i: int, lo: int, hi: int, starts: np.ndarray, ends: np.ndarray) -> None:
    """Give the non-space characters of ``text[lo:hi]``, between span ``i`` (reaching ``lo``) and span
    ``i + 1`` (starting at ``hi``), to the span they touch (module docstring)."""
    if text[lo:hi].isspace():
        return
    space = _last_space(text, lo, hi)
    if space < 0:  # glued to both neighbours: the previous span takes it (a mark follows its letter)
        ends[i] = max(int(ends[i]), hi)
        return
    if space + 1 < hi:  # glued to the next span
        starts[i + 1] = space + 1
    head = text[lo:space].rstrip()
    if head:
        ends[i] = max(int(ends[i]), lo + len(head))


def _fill_edges(text: str, starts: np.ndarray, ends: np.ndarray) -> None:
    """Give non-space characters before the first span to it, and those after every span to the last."""
    first, last = int(starts[0]), int(ends.max())
    lead = text[:first]
    if lead.strip():
        starts[0] = len(lead) - len(lead.lstrip())
    tail = text[last:]
    if tail.strip():
        ends[-1] = max(int(ends[-1]), last + len(tail.rstrip()))


def _keep_extenders(text: str, window: _Window, k0: int, k1: int, starts: np.ndarray, ends: np.ndarray) -> None:
    """Move the edges of spans ``k0 .. k1 - 1`` (in place) that fall between a character and its
    extenders: an end past them, a start after them (unless nothing would be left of the span)."""
    length = len(text)
    block_ends, block_starts = ends[k0:k1], starts[k0:k1]
    inner = np.nonzero((block_ends > 0) & (block_ends < length))[0]
    for i in (k0 + inner[window.extender(block_ends[inner])]).tolist():
        end = int(ends[i])
        if not text[end - 1].isspace():
            while end < length and is_extender(text[end]):
                end += 1
            ends[i] = end
    inner = np.nonzero(block_starts > 0)[0]
    for i in (k0 + inner[window.extender(block_starts[inner])]).tolist():
        start = int(starts[i])
        if text[start - 1].isspace():
            continue  # a mark after white space has no letter to belong to
        moved = start
        while moved < length and is_extender(text[moved]):
            moved += 1
        if moved < ends[i]:
            starts[i] = moved
            if i and ends[i - 1] >= start:
                ends[i - 1] = max(int(ends[i - 1]), moved)


def tile_spans(text: str, spans: np.ndarray, in_place: bool = False) -> np.ndarray:
    """``spans`` (an ``(n, 2)`` array, starts in document order) widened so that together they cover
    every non-space character of ``text`` and no edge separates a character from its extenders (see the
    module docstring). The same number of spans, in the same order: a copy, or ``spans`` itself changed
    when ``in_place`` (an int64 array). Linear in the spans; the code points looked at are read a block of
    spans at a time, so memory beyond the spans stays small on any document."""
    out = spans if in_place else np.array(spans, dtype=np.int64)
    out = out.reshape(-1, 2)
    n = len(out)
    if not n or not text:
        return out
    starts, ends = out[:, 0], out[:, 1]  # views: the helpers write through them
    _fill_edges(text, starts, ends)
    carry = 0  # how far the spans before the block reach
    for k0 in range(0, n, _BLOCK):
        k1 = min(n, k0 + _BLOCK)
        reach = np.maximum(np.maximum.accumulate(ends[k0:k1]), carry)
        carry = int(reach[-1])
        next_start = int(starts[k1]) if k1 < n else len(text)
        window = _Window(text, int(starts[k0]), min(len(text), max(carry, next_start) + 1))
        gap_lo = reach[:k1 - k0 if k1 < n else k1 - k0 - 1]
        gap_hi = starts[k0 + 1:k0 + 1 + len(gap_lo)]
        sizes = gap_hi - gap_lo
        single = np.nonzero(sizes == 1)[0]
        suspects = np.concatenate([single[~window.space(gap_lo[single])], np.nonzero(sizes > 1)[0]])
        for g in np.sort(suspects).tolist():
            _fill_gap(text, k0 + g, int(gap_lo[g]), int(gap_hi[g]), starts, ends)
        _keep_extenders(text, window, k0, k1, starts, ends)
    return out


def tile_span_list(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``tile_spans`` for a list of ``(start, end)`` pairs (a chunker's output), as a list."""
    if not spans:
        return spans
    return [(int(a), int(b)) for a, b in tile_spans(text, np.asarray(spans, dtype=np.int64))]
