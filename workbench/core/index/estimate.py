"""What building a chunk set will cost, before it is built: how many chunks, how many of their texts are not
in the vector cache yet, and about how long it takes (``BuildEstimate``).

A stand-in with the interface issue #30 gives ``Workspace.estimate_chunk_set`` (kept at merge: one of the two
implementations stays): documents are cut without embedding anything and the cut texts looked up in the
vector cache; chunkers that need vectors to cut (semantic, cluster-semantic) and late chunking are estimated
from the documents' token counts instead. Embedding is taken at ``EMBED_RATE`` texts a second, the rate of
all-MiniLM-L6-v2 on a 2-core laptop (late chunking reads whole documents: ``TOKEN_RATE`` tokens a second);
cutting is timed as it is done.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from workbench.core.index.build import embedded_texts
from workbench.core.index.embedding import Embedder, text_hash
from workbench.core.ingest.chunkers.choice import (
    apply_chunker,
    chunk_size,
    chunker_name,
    chunker_spec,
    parse_chunker,
)
from workbench.core.ingest.chunkers.protocol import ChunkerResources, chunk_verified, pieces_from_spans
from workbench.core.ingest.chunkers.registry import get_kind, make_chunker
from workbench.core.ingest.chunking import ChunkConfig, chunk_document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.store import Store

EMBED_RATE = 20.0  # texts embedded per second (all-MiniLM-L6-v2, 2 CPU cores)
TOKEN_RATE = 2500.0  # tokens a second through the model when whole documents are read (late chunking)
SENTENCE_TOKENS = 25  # a semantic chunker embeds about one sentence window per this many tokens
NEEDS_VECTORS = ("semantic", "cluster_semantic", "late")


@dataclass(frozen=True)
class BuildEstimate:
    """What building one chunk set costs: ``chunks`` it will hold, ``to_embed`` of them (and of what a semantic
    chunker embeds to cut) not in the vector cache, and ``seconds`` expected on this machine."""

    chunks: int
    to_embed: int
    seconds: float

    def describe(self) -> str:
        """One line for people: ``~1,240 chunks, 310 to embed, about 25 s``."""
        return f"~{self.chunks:,} chunks, {self.to_embed:,} to embed, about {_duration(self.seconds)}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _no_embedding(texts: list[str]) -> np.ndarray:
    raise RuntimeError("an estimate embeds nothing")


def estimate_build(store: Store, config: ChunkConfig, embedder: Embedder, counter: TokenCounter,
                   doc_ids: Iterable[int]) -> BuildEstimate:
    """The cost of building ``config``'s chunk set over ``doc_ids`` from nothing (cached vectors count as free)."""
    started = time.perf_counter()
    docs = [store.document(d) for d in doc_ids]
    name = chunker_name(config)
    if name in NEEDS_VECTORS:
        tokens = sum(counter.count(doc.text) for doc in docs)
        size = max(1, chunk_size(_base_config(config)) if name == "late" else chunk_size(config))
        chunks = math.ceil(tokens / (size * (0.7 if name != "late" else 1.0)))
        cutting = 0
        if name == "semantic":
            cutting = math.ceil(tokens / SENTENCE_TOKENS)
        elif name == "cluster_semantic":
            cutting = math.ceil(tokens / int(json.loads(config.chunker).get("piece_tokens", 50)))
        embedding = (chunks + cutting) / EMBED_RATE if name != "late" else tokens / TOKEN_RATE
        return BuildEstimate(chunks, chunks + cutting, time.perf_counter() - started + embedding)
    chunker = None
    spec = chunker_spec(config)
    if spec is not None:
        chunker = make_chunker(spec, ChunkerResources(counter=counter, embed=_no_embedding,
                                                      embed_id=embedder.model_id))
    hashes: list[str] = []
    for doc in docs:
        if chunker is None:
            pieces = chunk_document(doc.text, doc.headings, config, counter)
        else:
            pieces = pieces_from_spans(chunk_verified(chunker, doc.text, doc.headings, doc.path), doc.headings)
        if config.contextual:  # the sentences are not written yet: every chunk is embedded
            hashes += [f"contextual:{doc.sha256}:{p.start}" for p in pieces]
            continue
        hashes += [text_hash(t) for t in embedded_texts(doc, pieces, config)[1]]
    cached = store.cached_vectors(embedder.model_id, hashes)
    missing = len({h for h in hashes if h not in cached})
    return BuildEstimate(len(hashes), missing, time.perf_counter() - started + missing / EMBED_RATE)


def _base_config(config: ChunkConfig) -> ChunkConfig:
    """The chunking a late chunker's base chunker does (its size)."""
    _, params = parse_chunker(config.chunker)
    raw = params.get("base_params", "{}")
    base = json.loads(raw) if isinstance(raw, str) else dict(raw)  # type: ignore[call-overload]
    get_kind(str(params.get("base", "fixed")))
    return apply_chunker(ChunkConfig(), {"name": str(params.get("base", "fixed")), **base})
