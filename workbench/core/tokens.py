"""Token counting with character offsets.

The default counter is the embedding model's own tokenizer (``tokenizer.json`` read by the fast
``tokenizers`` library, no torch needed), so "chunk size in tokens" means the tokens the model sees.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Protocol

_WORDISH = re.compile(r"\w+|[^\w\s]")
_BLOCK_CHARS = 60_000


class TokenCounter(Protocol):
    """Anything that can split text into tokens with character offsets."""

    name: str

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` character offsets of each token of ``text``."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


class RegexTokenCounter:
    """A dependency-free approximation: words and punctuation marks each count as one token."""

    name = "regex"

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _WORDISH.finditer(text)]

    def count(self, text: str) -> int:
        return sum(1 for _ in _WORDISH.finditer(text))


class HFTokenCounter:
    """Tokens of a Hugging Face fast tokenizer loaded from a local ``tokenizer.json``."""

    def __init__(self, tokenizer_file: str | Path, name: str | None = None) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(tokenizer_file))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.name = name or Path(tokenizer_file).parent.name

    def _encode_offsets(self, text: str) -> list[tuple[int, int]]:
        enc = self._tok.encode(text, add_special_tokens=False)
        return [(s, e) for s, e in enc.offsets if e > s]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        if len(text) <= _BLOCK_CHARS:
            return self._encode_offsets(text)
        out: list[tuple[int, int]] = []
        pos = 0
        while pos < len(text):
            end = min(len(text), pos + _BLOCK_CHARS)
            if end < len(text):  # cut at white space so no token is split between blocks
                cut = max(text.rfind("\n", pos, end), text.rfind(" ", pos, end))
                end = cut + 1 if cut > pos else end
            out.extend((s + pos, e + pos) for s, e in self._encode_offsets(text[pos:end]))
            pos = end
        return out

    def count(self, text: str) -> int:
        if len(text) <= _BLOCK_CHARS:
            return len(self._tok.encode(text, add_special_tokens=False).ids)
        return len(self.offsets(text))

    def count_many(self, texts: list[str]) -> list[int]:
        """Token counts for many texts in one batched call."""
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=False)]


@lru_cache(maxsize=8)
def counter_for_model(model_path: str | None) -> TokenCounter:
    """The token counter of a local sentence-transformers model folder (regex fallback if none)."""
    if model_path:
        path = Path(model_path) / "tokenizer.json"
        if path.exists():
            return HFTokenCounter(path, Path(model_path).name)
    return RegexTokenCounter()
