"""The workspace's cached lookups of stored documents: texts, token offsets, parent spans and question vectors
(``ws.corpus``, the ``Corpus`` the retrieval steps read through, ``retrieve.inputs``).

The lookups are kept in the workspace's one cache (``WorkspaceCache``), which drops them when documents change.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.core.index.embedder_pool import EmbedderPool
from workbench.core.index.embedding import Embedder, embed_cached
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import section_spans
from workbench.core.ingest.tokens import TokenCounter, counter_for_model
from workbench.core.ingest.values import Windowing
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.spans import Span
from workbench.core.store import Store, ThreadStores
from workbench.core.workspace.cache import WorkspaceCache


class CorpusLookups:
    """Cached reads of the stored documents and embeddings of questions and texts, over this thread's store, the
    workspace's embedding models and its cache."""

    def __init__(self, stores: ThreadStores, models: EmbedderPool, cache: WorkspaceCache) -> None:
        self._stores = stores
        self._models = models
        self._cache = cache

    @property
    def store(self) -> Store:
        """This thread's store (BM25 full-text search and the LLM output cache read it)."""
        return self._stores.get()

    @property
    def embedder(self) -> Embedder:
        """The default embedding model."""
        return self._models.default

    @property
    def counter(self) -> TokenCounter:
        """Token counter of the default embedding model's tokenizer."""
        return counter_for_model(getattr(self.embedder, "model_path", None))

    def document(self, doc_id: int) -> Document:
        """A stored document (text cached)."""
        doc = self._cache.texts.get(doc_id)
        if doc is None:
            doc = self._cache.texts.put(doc_id, self.store.documents.document(doc_id))
        return doc

    def doc_text(self, doc_id: int) -> str:
        """The stored text of a document."""
        return self.document(doc_id).text

    def query_vector(self, question: str, model: str | None = "") -> np.ndarray:
        """The question's embedding by ``model`` (``""``: the default; cached in memory and in the store's
        vector cache, per model)."""
        vec = self._cache.query_vectors.get((self._models.get(model).model_id, question))
        if vec is None:
            vec = self.query_vectors([question], model=model)[0]
        return vec

    def query_vectors(
        self, questions: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        model: str | None = "",
    ) -> np.ndarray:
        """Embeddings of many questions by ``model``: cached ones read back, the rest embedded in one batch
        and cached."""
        embedder = self._models.get(model)
        vectors: dict[str, np.ndarray] = {}
        for q in dict.fromkeys(questions):
            cached = self._cache.query_vectors.get((embedder.model_id, q))
            if cached is not None:
                vectors[q] = cached
        missing = [q for q in dict.fromkeys(questions) if q not in vectors]
        if missing:
            vecs = embed_cached(self.store, embedder, missing, progress=progress, cancel=cancel)
            for q, v in zip(missing, vecs, strict=True):
                vectors[q] = self._cache.query_vectors.put((embedder.model_id, q), v)
        return np.stack([vectors[q] for q in questions]) if questions else np.zeros((0, 0))

    def token_offsets(self, doc_id: int) -> np.ndarray:
        """Token offsets of a whole document (cached)."""
        offs = self._cache.offsets.get(doc_id)
        if offs is None:
            offs = self._cache.offsets.put(doc_id, self.counter.offsets(self.doc_text(doc_id)))
        return offs

    def parents_of(self, doc_id: int, parent_size: int, unit: str = "tokens") -> list[tuple[int, int]]:
        """Parent spans of a document: chunks of ``parent_size`` ``unit`` (the children's unit: tokens,
        words or sentences), or heading sections when 0."""
        key = (doc_id, parent_size, unit)
        spans = self._cache.parents.get(key)
        if spans is None:
            doc = self.document(doc_id)
            if parent_size:
                units = self.token_offsets(doc_id) if unit == "tokens" else None
                pieces = chunk_document(doc.text, doc.headings, Windowing(unit, parent_size),
                                        self.counter, units=units)
                spans = [(p.start, p.end) for p in pieces]
            else:
                spans = section_spans(doc.headings, len(doc.text))
            self._cache.parents.put(key, spans)
        return spans

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the embedding model's tokenizer."""
        return self.counter.count(text)

    def span_tokens(self, span: Span) -> int:
        """Tokens of a span's own text under the embedding model's tokenizer, kept until the documents change
        (budget trimming and segment choice measure the same spans many times)."""
        counter = self.counter
        key = (counter.name, span.doc_id, span.start, span.end)
        tokens = self._cache.span_tokens.get(key)
        if tokens is None:
            tokens = self._cache.span_tokens.put(key, counter.count(self.doc_text(span.doc_id)[span.start:span.end]))
        return tokens

    def embed_texts(self, texts: Sequence[str], cancel: CancelToken | None = None) -> np.ndarray:
        """Vectors of ``texts`` by the default model, read from (and added to) the vector cache."""
        return embed_cached(self.store, self.embedder, texts, cancel=cancel)
