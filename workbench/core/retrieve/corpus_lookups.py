"""The workspace's cached lookups of stored documents: texts, token offsets, parent spans and question
vectors (a mixin of ``core.workspace.Workspace``, which provides the store, the embedder and the counter).

These are what the retrieval steps read through the ``Corpus`` protocol (``retrieve.inputs``); the caches
are per workspace, thread-safe, and dropped with ``_forget_lookups`` when documents change.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from workbench.core.index.embedding import Embedder, embed_cached
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import section_spans
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.lru import LRU
from workbench.core.store import Store


class WorkspaceParts:
    """What ``core.workspace.Workspace`` provides to the parts it is made of (``CorpusLookups`` here, its
    ``workspace_records`` and ``workspace_loading``): the store, the embedders, the token counter, its lock."""

    _lock: threading.RLock

    @property
    def store(self) -> Store:  # pragma: no cover - provided by the workspace
        """This thread's connection to the store."""
        raise NotImplementedError

    @property
    def embedder(self) -> Embedder:  # pragma: no cover - provided by the workspace
        """The embedding model."""
        raise NotImplementedError

    def embedder_for(self, model: str | None = "") -> Embedder:  # pragma: no cover - provided by the workspace
        """The embedder of a model spec (``""``: the default)."""
        raise NotImplementedError

    @property
    def counter(self) -> TokenCounter:  # pragma: no cover - provided by the workspace
        """Token counter of the embedding model's tokenizer."""
        raise NotImplementedError


class CorpusLookups(WorkspaceParts):
    """Cached reads of the corpus; the class using it provides ``WorkspaceParts`` and calls ``_init_lookups``
    once."""

    def _init_lookups(self) -> None:
        self._query_vectors: LRU[tuple[str, str], np.ndarray] = LRU(4096)  # (model id, question)
        self._texts: LRU[int, Document] = LRU(256)
        self._offsets: LRU[int, np.ndarray] = LRU(64)
        self._parents: LRU[tuple[int, int, str], list[tuple[int, int]]] = LRU(256)

    def _forget_lookups(self) -> None:
        """Drop what was read of the documents (they changed); question vectors stay."""
        with self._lock:
            self._texts.clear()
            self._offsets.clear()
            self._parents.clear()

    def document(self, doc_id: int) -> Document:
        """A stored document (text cached)."""
        with self._lock:
            doc = self._texts.get(doc_id)
        if doc is None:
            doc = self.store.document(doc_id)
            with self._lock:
                self._texts.put(doc_id, doc)
        return doc

    def doc_text(self, doc_id: int) -> str:
        """The stored text of a document."""
        return self.document(doc_id).text

    def query_vector(self, question: str, model: str | None = "") -> np.ndarray:
        """The question's embedding by ``model`` (``""``: the default; cached in memory and in the store's
        vector cache, per model)."""
        vec = self._query_vectors.get((self.embedder_for(model).model_id, question))
        if vec is None:
            vec = self.query_vectors([question], model=model)[0]
        return vec

    def query_vectors(
        self, questions: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        model: str | None = "",
    ) -> np.ndarray:
        """Embeddings of many questions by ``model``: cached ones read back, the rest embedded in one batch
        and cached."""
        embedder = self.embedder_for(model)
        vectors: dict[str, np.ndarray] = {}
        for q in dict.fromkeys(questions):
            cached = self._query_vectors.get((embedder.model_id, q))
            if cached is not None:
                vectors[q] = cached
        missing = [q for q in dict.fromkeys(questions) if q not in vectors]
        if missing:
            vecs = embed_cached(self.store, embedder, missing, progress=progress, cancel=cancel)
            for q, v in zip(missing, vecs, strict=True):
                vectors[q] = self._query_vectors.put((embedder.model_id, q), v)
        return np.stack([vectors[q] for q in questions]) if questions else np.zeros((0, 0))

    def token_offsets(self, doc_id: int) -> np.ndarray:
        """Token offsets of a whole document (cached)."""
        with self._lock:
            offs = self._offsets.get(doc_id)
        if offs is None:
            offs = self.counter.offsets(self.doc_text(doc_id))
            with self._lock:
                self._offsets.put(doc_id, offs)
        return offs

    def parents_of(self, doc_id: int, parent_size: int, unit: str = "tokens") -> list[tuple[int, int]]:
        """Parent spans of a document: chunks of ``parent_size`` ``unit`` (the children's unit: tokens,
        words or sentences), or heading sections when 0."""
        key = (doc_id, parent_size, unit)
        with self._lock:
            spans = self._parents.get(key)
        if spans is None:
            doc = self.document(doc_id)
            if parent_size:
                units = self.token_offsets(doc_id) if unit == "tokens" else None
                pieces = chunk_document(doc.text, doc.headings, ChunkConfig(unit=unit, size=parent_size),
                                        self.counter, units=units)
                spans = [(p.start, p.end) for p in pieces]
            else:
                spans = section_spans(doc.headings, len(doc.text))
            with self._lock:
                self._parents.put(key, spans)
        return spans

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the embedding model's tokenizer."""
        return self.counter.count(text)
