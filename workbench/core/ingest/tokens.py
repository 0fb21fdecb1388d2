"""Token counting with character offsets.

The default counter is the embedding model's own tokenizer (``tokenizer.json`` read by the fast
``tokenizers`` library, no torch needed), so "chunk size in tokens" means the tokens the model sees.
Offsets are tiled over the text (``boundaries.tile_spans``): a character the tokenizer drops (a control
character, a combining mark an uncased model strips) lies inside the token beside it, so spans built from
tokens never leave it out or cut a letter from its accent; the number of tokens is the tokenizer's.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from workbench.core.ingest.boundaries import extender_class, tile_spans

if TYPE_CHECKING:
    from tokenizers import Encoding

_WORDISH = re.compile(r"\w+|[^\w\s]")
_BLOCK_CHARS = 60_000
MAX_TOKEN_CHARS = 16  # a "token" longer than this (an [UNK] for a long unbroken run) counts as several
MEMO_MIN_CHARS = 4_000  # a text at least this long (a document) keeps its offsets for the next cut
MEMO_TOKENS = 4_000_000  # offsets kept in all, per counter (16 bytes a token: 64 MB)


def split_long(spans: np.ndarray, max_chars: int) -> np.ndarray:
    """``spans`` with every span longer than ``max_chars`` cut into consecutive pieces of ``max_chars``
    characters (the last one shorter): a 1 MB run without spaces, which a tokenizer returns as a single
    unknown token, counts and chunks as ~62,500 tokens, not one. Spans stay exact and in order."""
    spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    lengths = spans[:, 1] - spans[:, 0]
    if not len(spans) or int(lengths.max()) <= max_chars:
        return spans
    pieces = np.maximum(1, -(-lengths // max_chars))  # ceil
    starts = np.repeat(spans[:, 0], pieces)
    first = np.repeat(np.cumsum(pieces) - pieces, pieces)
    k = np.arange(len(starts)) - first  # piece number within its span
    out_start = starts + k * max_chars
    out_end = np.minimum(out_start + max_chars, np.repeat(spans[:, 1], pieces))
    return np.stack([out_start, out_end], axis=1)


class TokenCounter(Protocol):
    """Anything that can split text into tokens with character offsets."""

    name: str

    def offsets(self, text: str) -> np.ndarray:
        """``(start, end)`` character offsets of each token of ``text``: an ``(n, 2)`` int64 array, tiled
        over the text (``boundaries.tile_spans``: every non-space character inside a token, no token edge
        between a letter and its combining marks)."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


@lru_cache(maxsize=1)
def _wordish_with_marks() -> re.Pattern[str]:
    """``_WORDISH`` where combining marks (and other extenders) belong to the character before them."""
    marks = extender_class()
    return re.compile(rf"(?:\w|{marks})+|[^\w\s]{marks}*")


class RegexTokenCounter:
    """A dependency-free approximation: words and punctuation marks each count as one token (a combining
    mark counts with its letter)."""

    name = "regex"

    def offsets(self, text: str) -> np.ndarray:
        """Word and punctuation spans, tiled over the text (``boundaries.tile_spans``)."""
        pattern = _WORDISH if text.isascii() else _wordish_with_marks()
        return tile_spans(text, split_long(match_spans(pattern, text), MAX_TOKEN_CHARS), in_place=True)

    def count(self, text: str) -> int:
        return len(self.offsets(text))


class OffsetsMemo:
    """The token offsets of the documents cut last, so cutting them again at another size (the window's chunk
    size slider, a sweep, the advisor) does not tokenize them again: least recently used first out, at most
    ``max_tokens`` offsets in all. A hit is the same text, compared whole; the arrays are read-only."""

    def __init__(self, max_tokens: int = MEMO_TOKENS) -> None:
        self.max_tokens = max_tokens
        self._entries: OrderedDict[int, tuple[str, np.ndarray]] = OrderedDict()
        self._tokens = 0
        self._lock = threading.Lock()

    def get(self, text: str) -> np.ndarray | None:
        """The offsets kept for ``text``, or None."""
        key = hash(text)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != text:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, text: str, offsets: np.ndarray) -> np.ndarray:
        """Keep ``offsets`` for ``text`` (made read-only) and return them."""
        offsets.flags.writeable = False
        if len(offsets) > self.max_tokens:
            return offsets
        key = hash(text)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._tokens -= len(old[1])
            self._entries[key] = (text, offsets)
            self._tokens += len(offsets)
            while self._tokens > self.max_tokens:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._tokens -= len(dropped)
        return offsets


class HFTokenCounter:
    """Tokens of a Hugging Face fast tokenizer loaded from a local ``tokenizer.json``; a document's offsets
    are kept for its next cut (``OffsetsMemo``)."""

    def __init__(self, tokenizer_file: str | Path, name: str | None = None) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(tokenizer_file))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.name = name or Path(tokenizer_file).parent.name
        self.memo = OffsetsMemo()

    def _encode_offsets(self, text: str, shift: int = 0) -> np.ndarray:
        enc = self._tok.encode(text, add_special_tokens=False)
        arr = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
        arr = arr[arr[:, 1] > arr[:, 0]]
        return arr + shift if shift else arr

    def offsets(self, text: str) -> np.ndarray:
        """Token offsets as an ``(n, 2)`` array; long texts are tokenized in blocks cut at white space,
        so memory stays proportional to the number of tokens (16 bytes each), not to Python tuples.
        The offsets are tiled over the text (``boundaries.tile_spans``): characters the tokenizer drops
        (control characters, an uncased model's combining marks) belong to the token next to them. A
        document's offsets are kept for its next cut, read-only."""
        if len(text) < MEMO_MIN_CHARS:
            return self._offsets(text)
        kept = self.memo.get(text)
        return kept if kept is not None else self.memo.put(text, self._offsets(text))

    def _offsets(self, text: str) -> np.ndarray:
        if len(text) <= _BLOCK_CHARS:
            return tile_spans(text, split_long(self._encode_offsets(text), MAX_TOKEN_CHARS), in_place=True)
        out: list[np.ndarray] = []
        pos = 0
        while pos < len(text):
            end = min(len(text), pos + _BLOCK_CHARS)
            if end < len(text):  # cut at white space so no token is split between blocks
                cut = max(text.rfind("\n", pos, end), text.rfind(" ", pos, end))
                end = cut + 1 if cut > pos else end
            out.append(self._encode_offsets(text[pos:end], pos))
            pos = end
        if not out:
            return np.zeros((0, 2), dtype=np.int64)
        return tile_spans(text, split_long(np.concatenate(out), MAX_TOKEN_CHARS), in_place=True)

    def count(self, text: str) -> int:
        """Tokens in ``text`` as ``offsets`` counts them (an over-long unknown token counts per 16 characters)."""
        if len(text) <= _BLOCK_CHARS:
            return _count(self._tok.encode(text, add_special_tokens=False))
        return len(self.offsets(text))

    def count_many(self, texts: list[str]) -> list[int]:
        """Token counts for many texts in one batched call."""
        return [_count(e) for e in self._tok.encode_batch(texts, add_special_tokens=False)]


def _count(encoding: Encoding) -> int:
    """Tokens of an encoding, an over-long one (an [UNK] for a long run) counted per ``MAX_TOKEN_CHARS``."""
    n = len(encoding.ids)
    for a, b in encoding.offsets:
        if b - a > MAX_TOKEN_CHARS:
            n += -(-(b - a) // MAX_TOKEN_CHARS) - 1
    return n


def match_spans(pattern: re.Pattern[str], text: str) -> np.ndarray:
    """Spans of every match of ``pattern`` as an ``(n, 2)`` int64 array (no list of tuples in between)."""
    flat = np.fromiter(itertools.chain.from_iterable(m.span() for m in pattern.finditer(text)), dtype=np.int64)
    return flat.reshape(-1, 2)


@lru_cache(maxsize=8)
@lru_cache(maxsize=8)
def counter_for_model(model_path: str | None) -> TokenCounter:
    """The token counter of a local sentence-transformers model folder (regex fallback if none), one per
    folder in the process (its tokenizer is read once, and documents' offsets are kept across cuts)."""
    if model_path:
        path = Path(model_path) / "tokenizer.json"
        if path.exists():
            return HFTokenCounter(path, Path(model_path).name)
    return RegexTokenCounter()
