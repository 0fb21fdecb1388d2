"""Embedding pieces of a document through a cache, so re-chunking with other thresholds does not re-embed.

Keys are ``"<embed_id>|<sha256 of the text>"``: the caller's ``embed_id`` names the embedding, so one cache
never mixes vectors of two models. The cache is any mutable mapping the caller passes (a plain dict kept for a
session, say); without one each chunker keeps a bounded ``LruVectors`` of its own.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping

import numpy as np

from workbench.core.ingest.chunkers.protocol import Embed


class LruVectors(MutableMapping[str, np.ndarray]):
    """A mapping that forgets its least recently used vectors beyond ``max_items``."""

    def __init__(self, max_items: int = 20_000) -> None:
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self.max_items = max_items

    def __getitem__(self, key: str) -> np.ndarray:
        value = self._items[key]
        self._items.move_to_end(key)
        return value

    def __setitem__(self, key: str, value: np.ndarray) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)

    def __delitem__(self, key: str) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def text_key(embed_id: str, text: str) -> str:
    """The cache key of ``text`` embedded by ``embed_id``."""
    return f"{embed_id}|{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}"


def embed_cached(texts: list[str], embed: Embed, cache: MutableMapping[str, np.ndarray],
                 embed_id: str = "") -> np.ndarray:
    """Unit-normalised vectors of ``texts`` (one row each); only texts missing from ``cache`` are embedded,
    in one call (no call at all when every text is cached)."""
    keys = [text_key(embed_id, t) for t in texts]
    if not keys:
        return np.zeros((0, 0), dtype=np.float32)
    found = {k: cache[k] for k in dict.fromkeys(keys) if k in cache}
    missing = [k for k in dict.fromkeys(keys) if k not in found]
    if missing:
        by_key = dict(zip(keys, texts, strict=True))
        fresh = np.asarray(embed([by_key[k] for k in missing]), dtype=np.float32).reshape(len(missing), -1)
        norms = np.linalg.norm(fresh, axis=1, keepdims=True)
        fresh = (fresh / np.where(norms == 0, 1.0, norms)).astype(np.float32)
        for key, vector in zip(missing, fresh, strict=True):
            found[key] = cache[key] = vector
    return np.stack([found[k] for k in keys])
