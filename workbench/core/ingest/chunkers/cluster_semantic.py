"""Cluster-semantic chunking (after Chroma's ClusterSemanticChunker, written anew on spans).

The document is first cut by the recursive splitter into small pieces of at most ``piece_tokens`` tokens.
Each piece is embedded (through the caller's ``embed`` and a vector cache); the similarity matrix of the
pieces is centred on the mean similarity of distinct pairs and its diagonal zeroed. Dynamic programming then
chooses the segmentation of the piece sequence into consecutive groups that maximises the summed within-group
similarity, subject to each group spanning at most ``max_tokens`` tokens. As every piece fits, every chunk
respects ``max_tokens``. Unlike the original, the limit is in tokens of the spanned text (not a count of
pieces), and the best score starts from minus infinity, so an all-negative document still splits validly.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

import numpy as np

from workbench.core.ingest.chunkers.protocol import (
    ChunkerError,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Embed,
    ParamSpec,
    Span,
)
from workbench.core.ingest.chunkers.recursive import TokenRuler, recursive_spans
from workbench.core.ingest.chunkers.vector_cache import LruVectors, embed_cached
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter


def centred_similarity(vectors: np.ndarray) -> np.ndarray:
    """Cosine similarities minus the mean over distinct pairs, with a zero diagonal."""
    sims = vectors @ vectors.T
    n = len(sims)
    if n > 1:
        sims = sims - sims[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(sims, 0.0)
    return np.asarray(sims)


def best_segmentation(sims: np.ndarray, pieces: Sequence[Span], ruler: TokenRuler, max_tokens: int) -> list[Span]:
    """Groups ``[j, i)`` of consecutive pieces maximising the sum of ``sims`` inside the groups, each group
    spanning at most ``max_tokens`` tokens (a single piece always may stand alone)."""
    n = len(pieces)
    prefix = np.zeros((n + 1, n + 1), dtype=np.float64)
    prefix[1:, 1:] = np.cumsum(np.cumsum(sims, axis=0), axis=1)
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(i - 1, -1, -1):
            if j < i - 1 and ruler.size(pieces[j][0], pieces[i - 1][1]) > max_tokens:
                break
            block = prefix[i, i] - prefix[j, i] - prefix[i, j] + prefix[j, j]
            if best[j] + block > best[i]:
                best[i], back[i] = best[j] + block, j
    groups: list[Span] = []
    i = n
    while i > 0:
        j = int(back[i])
        groups.append((pieces[j][0], pieces[i - 1][1]))
        i = j
    return groups[::-1]


class ClusterSemanticChunker:
    """Small recursive pieces grouped by dynamic programming to maximise within-chunk similarity."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter, embed: Embed, embed_id: str = "",
                 vector_cache: MutableMapping[str, np.ndarray] | None = None) -> None:
        params = spec.param_dict
        self.spec = spec
        self.max_tokens = int(params["max_tokens"])
        self.piece_tokens = int(params["piece_tokens"])
        if self.piece_tokens > self.max_tokens:
            raise ChunkerError(f"chunker {spec.name!r}: piece_tokens must not exceed max_tokens")
        self._counter = counter
        self._embed = embed
        self._embed_id = embed_id
        self._cache: MutableMapping[str, np.ndarray] = LruVectors() if vector_cache is None else vector_cache

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Span]:
        """Spans of grouped pieces (see the module docstring)."""
        ruler = TokenRuler(text, self._counter)
        pieces = recursive_spans(text, headings, ruler, self.piece_tokens)
        if len(pieces) < 2:
            return pieces
        vectors = embed_cached([text[a:b] for a, b in pieces], self._embed, self._cache, self._embed_id)
        return best_segmentation(centred_similarity(vectors), pieces, ruler, self.max_tokens)


def _build(spec: ChunkerSpec, resources: ChunkerResources) -> ClusterSemanticChunker:
    assert resources.counter is not None and resources.embed is not None  # checked by ChunkerKind.make
    return ClusterSemanticChunker(spec, resources.counter, resources.embed, resources.embed_id,
                                  resources.vector_cache)


CLUSTER_SEMANTIC = ChunkerKind(
    "cluster_semantic", "small pieces grouped by dynamic programming to maximise within-chunk similarity",
    (ParamSpec("max_tokens", 400, 1, 100_000, help="largest chunk, in the embedding model's tokens"),
     ParamSpec("piece_tokens", 50, 1, 100_000, help="size of the small pieces that are grouped")),
    _build, needs=("counter", "embed"))
