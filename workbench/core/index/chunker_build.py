"""Cutting documents for a chunk set: by the config's own fields, or by the registry chunker it names.

A registry chunker is built once per set with the workspace's resources: the token counter of the embedding
model, and (for semantic chunkers) an ``embed`` function that goes through the store's embedding cache, so
sentence vectors are embedded once per model and re-chunking with another threshold embeds nothing. Every
span is verified (``chunk_verified``: a chunker whose output does not match the text fails naming itself and
the document).

Late chunking stores the late-pooled vector of each chunk in the embedding cache under a key of its own,
``late:<sha256 of spec, document and span>``, never the plain text hash: the same text embedded alone has
another vector, and both may be cached for the same model. Questions are embedded as always.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from workbench.core.index.embedding import Embedder, embed_cached
from workbench.core.ingest.chunkers.choice import chunker_spec
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.late import late_chunk_vectors
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerResources,
    ChunkerSpec,
    chunk_verified,
    pieces_from_spans,
)
from workbench.core.ingest.chunkers.registry import make_chunker
from workbench.core.ingest.chunking import ChunkConfig, ChunkPiece, chunk_document
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.jobs import CancelToken
from workbench.core.store import Store

LATE_PREFIX = "late:"


def late_key(spec: ChunkerSpec, doc_sha: str, start: int, end: int) -> str:
    """The embedding-cache key of one late-chunked vector (spec, document content and span)."""
    digest = hashlib.sha256(f"{spec.to_json()}|{doc_sha}|{start}:{end}".encode()).hexdigest()
    return LATE_PREFIX + digest


class SetCutter:
    """Cuts the documents of one chunk set (and, for late chunking, caches their pooled vectors)."""

    def __init__(self, config: ChunkConfig, store: Store, embedder: Embedder, counter: TokenCounter) -> None:
        self.config = config
        self.store = store
        self.embedder = embedder
        self.counter = counter
        self.spec = chunker_spec(config)
        self.chunker: Chunker | None = None
        if self.spec is not None:
            resources = ChunkerResources(counter=counter, embed=self._embed, embed_id=embedder.model_id)
            self.chunker = make_chunker(self.spec, resources)
        self.late = self.spec is not None and self.spec.name == "late"
        if self.late and not hasattr(embedder, "model"):
            raise ChunkerError("chunker 'late' pools token vectors and needs a sentence-transformers model "
                               f"(this workspace embeds with {embedder.model_id})")

    def _embed(self, texts: list[str]) -> np.ndarray:
        return embed_cached(self.store, self.embedder, texts)

    def pieces(self, doc: Document) -> list[ChunkPiece]:
        """The document's chunks, verified to be exact spans."""
        if self.chunker is None:
            return chunk_document(doc.text, doc.headings, self.config, self.counter)
        spans = chunk_verified(self.chunker, doc.text, doc.headings, doc.path)
        return pieces_from_spans(spans, doc.headings)

    def vector_keys(self, doc: Document, pieces: Sequence[ChunkPiece],
                    cancel: CancelToken | None = None) -> list[str] | None:
        """Late chunking: the cache keys of the chunks' pooled vectors (computed and cached when missing);
        None for every other chunker (chunks are keyed by the hash of their embedded text)."""
        if not self.late or self.spec is None:
            return None
        keys = [late_key(self.spec, doc.sha256, p.start, p.end) for p in pieces]
        if keys and len(self.store.cached_vectors(self.embedder.model_id, keys)) < len(set(keys)):
            vectors = late_chunk_vectors(self.embedder, doc.text, [(p.start, p.end) for p in pieces], cancel=cancel)
            self.store.put_vectors(self.embedder.model_id, dict(zip(keys, vectors, strict=True)))
        return keys
