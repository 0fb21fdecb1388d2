"""Everything a workspace keeps in memory about its data folder, in one object keyed on the store's generation.

What was read of the documents (texts, token offsets, parent spans), the chunk sets loaded for search, which sets
were found current at which generation, the last build estimate of each set, the question vectors, and the
retriever's hit and section caches. ``invalidate`` is the one way to drop what a change made stale:
``invalidate(DOCUMENTS)`` when stored documents changed, ``invalidate(set_id)`` when a chunk set did; ``observe``
calls the first when the store's generation moved (another process may have changed documents).
"""

from __future__ import annotations

import threading
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.core.retrieve.lru import LRU

if TYPE_CHECKING:
    from workbench.core.index.estimate import BuildEstimate
    from workbench.core.ingest.documents import Document
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.pipeline import Retriever


class Stale(Enum):
    """What ``WorkspaceCache.invalidate`` may be told changed besides one chunk set."""

    DOCUMENTS = "documents"


DOCUMENTS = Stale.DOCUMENTS
"""``invalidate(DOCUMENTS)``: stored documents were added, changed or removed."""


class WorkspaceCache:
    """The in-memory caches of one workspace (thread-safe; ``lock`` guards a loaded set's replacement).

    Question vectors are keyed by model and question text and never go stale; everything else is dropped by
    ``invalidate``.
    """

    def __init__(self, retriever: Retriever) -> None:
        self.lock = threading.RLock()
        self.retriever = retriever  # its hit cache and section cache are dropped with the rest
        self.texts: LRU[int, Document] = LRU(256)
        self.offsets: LRU[int, np.ndarray] = LRU(64)
        self.parents: LRU[tuple[int, int, str], list[tuple[int, int]]] = LRU(256)
        self.span_tokens: LRU[tuple[str, int, int, int], int] = LRU(65536)  # (counter, doc, start, end) → tokens
        self.query_vectors: LRU[tuple[str, str], np.ndarray] = LRU(4096)  # (model id, question)
        self.loaded: dict[str, LoadedSet] = {}  # set id → the chunk set loaded for search
        self.current: dict[str, int] = {}  # set id → the store generation at which it was found current
        self.estimates: dict[str, tuple[Any, BuildEstimate]] = {}  # set id → (its state, the last estimate)
        self.generation = -1  # the store generation the cached document reads belong to

    def observe(self, generation: int) -> None:
        """Note the store's generation: when it moved since the last call (here or in another process), what was
        read of the documents is dropped (``invalidate(DOCUMENTS)``)."""
        with self.lock:
            if generation != self.generation:
                self.generation = generation
                self.invalidate(DOCUMENTS)

    def invalidate(self, changed: Stale | str) -> None:
        """Drop what ``changed`` made stale: for ``DOCUMENTS`` the documents' texts, token offsets, parent spans,
        spans' token counts and the section vectors; for a chunk set's id its loaded set, its current-check, its
        kept estimate and the cached hits and section vectors (they hold rows of the set as it was)."""
        with self.lock:
            if changed is DOCUMENTS:
                self.texts.clear()
                self.offsets.clear()
                self.parents.clear()
                self.span_tokens.clear()
            else:
                self.loaded.pop(changed, None)
                self.current.pop(changed, None)
                self.estimates.pop(changed, None)
                self.retriever.forget_hits()
            self.retriever.forget_sections()
