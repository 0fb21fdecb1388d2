"""Chunkers behind one protocol: fixed-size, sentence, structure-aware, recursive, semantic, late,
cluster-semantic, adapters for LangChain, chonkie and semchunk, and the user's own ``module:function``,
each verified to return exact spans."""

from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    ParamSpec,
    chunk_verified,
    pieces_from_spans,
    verify_spans,
)
from workbench.core.ingest.chunkers.registry import chunker_kinds, get_kind, make_chunker, register

__all__ = [
    "Chunker", "ChunkerError", "ChunkerKind", "ChunkerResources", "ChunkerSpec", "ParamSpec", "Cut",
    "chunk_verified", "chunker_kinds", "get_kind", "make_chunker", "pieces_from_spans", "register",
    "verify_spans",
]
