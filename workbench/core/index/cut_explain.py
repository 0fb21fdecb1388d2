"""A chunk set's explanation of its cuts on one document (``chunkers.cut_explanation``), from the chunker the
set is cut with, built with the same resources as a build: the store's embedding cache and the workspace's
in-memory vectors, so explaining a built set embeds nothing."""

from __future__ import annotations

from collections.abc import MutableMapping

import numpy as np

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import Embedder
from workbench.core.ingest.chunkers.choice import chunker_name
from workbench.core.ingest.chunkers.cut_explanation import CutExplanation, ExplainingChunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import Store

EXPLAINING_KINDS = ("semantic", "cluster_semantic")


def explains_cuts(config: ChunkConfig) -> bool:
    """True when the chunker of ``config`` can say why it cut (a semantic chunker), without building it."""
    try:
        return chunker_name(config) in EXPLAINING_KINDS
    except ChunkerError:
        return False


def explain_document(config: ChunkConfig, store: Store, embedder: Embedder, counter: TokenCounter, doc: Document,
                     vector_cache: MutableMapping[str, np.ndarray] | None = None) -> CutExplanation:
    """Why the chunker of ``config`` cut ``doc`` where it did; ``ChunkerError`` when it cannot say."""
    cutter = SetCutter(config, store, embedder, counter, vector_cache=vector_cache)
    chunker = cutter.chunker
    if not isinstance(chunker, ExplainingChunker):
        raise ChunkerError(f"{chunking_label(config)} does not explain its cuts (only a semantic chunker does)")
    return chunker.explain(doc.text, doc.headings)
