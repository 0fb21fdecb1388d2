"""Cutting documents for a chunk set: one path for every chunker, the built-in cuts (``fixed``, ``sentence``,
``structure``) as much as the registry's others (``chunkers.choice.chunker_spec`` reads which cuts a set).

The chunker is built once per set with the workspace's resources: the token counter of the embedding
model, and (for semantic chunkers) an ``embed`` function that goes through the store's embedding cache, so
sentence vectors are embedded once per model — across thresholds, sizes and chunkers, and across sessions —
and re-chunking with another threshold embeds nothing. The workspace also lends one in-memory vector cache
(model and text hash → vector) to every chunker it builds, so a threshold moved in the window reads no vector
back from SQLite. ``prepare`` embeds the texts an embedding chunker will need for many documents in one
batched job (sorted by length across documents), before the documents are cut one by one. Every span is
verified (``chunk_verified``: a chunker whose output does not match the text fails naming itself and the
document).

Late chunking stores the late-pooled vector of each chunk in the embedding cache under a key of its own,
``late:<sha256 of spec, document and span>``, never the plain text hash: the same text embedded alone has
another vector, and both may be cached for the same model. Questions are embedded as always.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableMapping, Sequence

import numpy as np

from workbench.core.index.embedding import Embedder, EmbedMeter, embed_cached
from workbench.core.ingest.chunkers.choice import chunker_spec
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.late import late_chunk_vectors
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerResources,
    ChunkerSpec,
    Embed,
    EmbeddingChunker,
    chunk_verified,
    pieces_from_spans,
)
from workbench.core.ingest.chunkers.registry import make_chunker
from workbench.core.ingest.chunkers.vector_cache import LruVectors
from workbench.core.ingest.chunkers.vector_cache import embed_cached as embed_through
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig, ChunkPiece
from workbench.core.jobs import CancelToken, ProgressEvent, ProgressSink
from workbench.core.store import Store

LATE_PREFIX = "late:"


def late_key(spec: ChunkerSpec, doc_sha: str, start: int, end: int) -> str:
    """The embedding-cache key of one late-chunked vector (spec, document content and span)."""
    digest = hashlib.sha256(f"{spec.to_json()}|{doc_sha}|{start}:{end}".encode()).hexdigest()
    return LATE_PREFIX + digest


class SetCutter:
    """Cuts the documents of one chunk set (and, for late chunking, caches their pooled vectors).

    ``vector_cache``: the in-memory vector cache lent to an embedding chunker (the workspace's shared one;
    a private one when None). ``embed``: another embedding function for the chunker (the cost estimate's
    dry run). ``meter`` adds up the time spent embedding."""

    def __init__(self, config: ChunkConfig, store: Store, embedder: Embedder, counter: TokenCounter,
                 vector_cache: MutableMapping[str, np.ndarray] | None = None, embed: Embed | None = None,
                 meter: EmbedMeter | None = None) -> None:
        self.config = config
        self.store = store
        self.embedder = embedder
        self.counter = counter
        self.meter = meter
        self.spec = chunker_spec(config, store.cuts.get)  # edited:NAME: the chunking of this store
        self.vector_cache: MutableMapping[str, np.ndarray] = LruVectors() if vector_cache is None else vector_cache
        self._chunker_embed = embed or self._embed
        resources = ChunkerResources(counter=counter, embed=self._chunker_embed, embed_id=embedder.model_id,
                                     vector_cache=self.vector_cache)
        self.chunker: Chunker = make_chunker(self.spec, resources, store.cuts.get)
        self.late = self.spec.name == "late"
        if self.late and not hasattr(embedder, "model"):
            raise ChunkerError("chunker 'late' pools token vectors and needs a sentence-transformers model "
                               f"(this workspace embeds with {embedder.model_id})")

    def _embed(self, texts: list[str], progress: ProgressSink | None = None,
               cancel: CancelToken | None = None) -> np.ndarray:
        return embed_cached(self.store, self.embedder, texts, progress=progress, cancel=cancel, meter=self.meter)

    def prepare(self, docs: Sequence[Document], progress: ProgressSink | None = None,
                cancel: CancelToken | None = None) -> int:
        """Embed, in one batched job, every text an embedding chunker will embed to cut ``docs`` (those not
        cached yet); returns how many texts the documents need. Other chunkers embed nothing here."""
        chunker = self.chunker
        if not isinstance(chunker, EmbeddingChunker):
            return 0
        texts: list[str] = []
        for doc in docs:
            try:
                texts += chunker.texts_to_embed(doc.text, doc.headings)
            except Exception:  # cutting the document reports the chunker's failure, naming both
                continue
        if texts:
            def embed(missing: list[str]) -> np.ndarray:
                def said(ev: ProgressEvent) -> None:
                    if progress is not None:
                        progress(ProgressEvent("embedding", ev.done, ev.total,
                                               f"sentences of {len(docs)} document(s)", ev.elapsed))

                return self._embed(missing, said, cancel)

            embed_through(texts, embed, self.vector_cache, self.embedder.model_id)
        return len(texts)

    def pieces(self, doc: Document) -> list[ChunkPiece]:
        """The document's chunks, verified to be exact spans."""
        spans = chunk_verified(self.chunker, doc.text, doc.headings, doc.path)
        return pieces_from_spans(spans, doc.headings)

    def vector_keys(self, doc: Document, pieces: Sequence[ChunkPiece],
                    cancel: CancelToken | None = None) -> list[str] | None:
        """Late chunking: the cache keys of the chunks' pooled vectors (computed and cached when missing);
        None for every other chunker (chunks are keyed by the hash of their embedded text)."""
        if not self.late:
            return None
        keys = [late_key(self.spec, doc.sha256, p.start, p.end) for p in pieces]
        if keys and len(self.store.caches.cached_vectors(self.embedder.model_id, keys)) < len(set(keys)):
            vectors = late_chunk_vectors(self.embedder, doc.text, [(p.start, p.end) for p in pieces], cancel=cancel)
            self.store.caches.put_vectors(self.embedder.model_id, dict(zip(keys, vectors, strict=True)))
        return keys
