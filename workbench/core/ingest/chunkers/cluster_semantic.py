"""Cluster-semantic chunking (after Chroma's ClusterSemanticChunker, written anew on spans).

The document is first cut by the recursive splitter into small pieces of at most ``piece_tokens`` tokens.
Each piece is embedded (through the caller's ``embed`` and a vector cache); the similarity of two pieces is
their cosine minus the mean cosine of all distinct pairs, and a piece is not similar to itself. Dynamic
programming then chooses the segmentation of the piece sequence into consecutive groups that maximises the
summed within-group similarity, subject to each group spanning at most ``max_tokens`` tokens. As every piece
fits, every chunk respects ``max_tokens``. Unlike the original, the limit is in tokens of the spanned text
(not a count of pieces), and the best score starts from minus infinity, so an all-negative document still
splits validly.

The cost is linear in the document: no piece-by-piece matrix is built. The mean over all pairs comes from
the sum of the vectors (``|Σv|² - Σ|v|²`` over ``n(n - 1)``), and the dynamic programme only needs the
similarities of pieces that can share a group: a band as wide as the most pieces ``max_tokens`` can hold,
computed one piece at a time (``best_segmentation``).
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

import numpy as np

from workbench.core.ingest.chunkers.cut_explanation import CutExplanation, cut_reasons
from workbench.core.ingest.chunkers.protocol import (
    ChunkerError,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    Embed,
    ParamSpec,
)
from workbench.core.ingest.chunkers.recursive import TokenRuler, recursive_spans
from workbench.core.ingest.chunkers.vector_cache import LruVectors, embed_cached
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter

_TIE = 1e-9  # scores this close (relative) are equal: rounding must not decide between two groupings


def mean_pair_similarity(vectors: np.ndarray) -> float:
    """The mean dot product over distinct pairs of rows, from their sum (no pair matrix)."""
    n = len(vectors)
    if n < 2:
        return 0.0
    v = np.asarray(vectors, dtype=np.float64)
    total = v.sum(axis=0)
    return float((total @ total - np.einsum("ij,ij->", v, v)) / (n * (n - 1)))


def group_starts(pieces: Sequence[Cut], ruler: TokenRuler, max_tokens: int) -> np.ndarray:
    """For each piece ``e``, the first piece a group ending with ``e`` may start at: the group then spans
    at most ``max_tokens`` tokens (a piece always may stand alone)."""
    bounds = np.asarray(pieces, dtype=np.int64).reshape(-1, 2)
    first = np.searchsorted(ruler.starts, bounds[:, 0])  # index of each piece's first token
    last = np.searchsorted(ruler.starts, bounds[:, 1])  # tokens starting before each piece's end
    earliest = np.searchsorted(first, last - max_tokens, side="left")
    return np.minimum(earliest, np.arange(len(bounds)))


def best_segmentation(vectors: np.ndarray, pieces: Sequence[Cut], ruler: TokenRuler, max_tokens: int) -> list[Cut]:
    """Groups ``[j, e)`` of consecutive pieces maximising the sum of centred similarities of the pairs
    inside the groups (each pair counted both ways, as in a square block of the similarity matrix), each
    group spanning at most ``max_tokens`` tokens (a single piece always may stand alone).

    Time and memory are linear in the number of pieces times the band width (the most pieces one group
    may hold): ``block[j]``, the score of group ``[j, e)``, grows by the new piece's similarities to the
    pieces before it as ``e`` moves on, over the band only. Among equal scores (within rounding) the later
    start wins.
    """
    n = len(pieces)
    if n == 0:
        return []
    v = np.asarray(vectors, dtype=np.float64).reshape(n, -1)
    mean = mean_pair_similarity(v)
    lows = group_starts(pieces, ruler, max_tokens)
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    block = np.zeros(0, dtype=np.float64)  # block[k]: score of group [low + k, e) for the current e
    low = 0
    for e in range(1, n + 1):
        last = e - 1  # the piece that ends the groups considered now
        new_low = int(lows[last])
        block = block[new_low - low:]  # groups starting before new_low are too long from now on
        low = new_low
        sims = v[low:last] @ v[last] - mean  # the new piece against the pieces of the band before it
        suffix = np.cumsum(sims[::-1])[::-1]  # group [j, e) gains its pairs with the new piece
        block = np.append(block + 2.0 * suffix, 0.0)
        scores = best[low:e] + block
        top = scores.max()
        k = int(np.nonzero(scores >= top - _TIE * (1.0 + abs(top)))[0][-1])  # the latest start among ties
        best[e], back[e] = scores[k], low + k
    groups: list[Cut] = []
    e = n
    while e > 0:
        j = int(back[e])
        groups.append((pieces[j][0], pieces[e - 1][1]))
        e = j
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

    def texts_to_embed(self, text: str, headings: Sequence[Heading]) -> list[str]:
        """The small pieces ``chunk`` embeds (``EmbeddingChunker``; none for a document of one piece)."""
        pieces = recursive_spans(text, headings, TokenRuler(text, self._counter), self.piece_tokens)
        return [text[a:b] for a, b in pieces] if len(pieces) >= 2 else []

    def explain(self, text: str, headings: Sequence[Heading]) -> CutExplanation:
        """The centred similarity (cosine minus the mean over all pairs) of each neighbouring pair of pieces
        and the groups the dynamic programme chose (it has no threshold: a group ends where the summed
        within-group similarity is best, so a boundary below 0 is where pieces are less alike than
        average); the one computation ``chunk`` returns the cuts of."""
        ruler = TokenRuler(text, self._counter)
        pieces = recursive_spans(text, headings, ruler, self.piece_tokens)
        if len(pieces) < 2:
            return CutExplanation(self.spec.label(), "piece", tuple(pieces), (), None, "", "", (), tuple(pieces))
        vectors = embed_cached([text[a:b] for a, b in pieces], self._embed, self._cache, self._embed_id)
        groups = best_segmentation(vectors, pieces, ruler, self.max_tokens)
        v = np.asarray(vectors, dtype=np.float64)
        centred = np.einsum("ij,ij->i", v[:-1], v[1:]) - mean_pair_similarity(v)
        return CutExplanation(self.spec.label(), "piece", tuple(pieces), tuple(float(x) for x in centred), None,
                              "no threshold: groups maximise the summed within-group similarity",
                              "cosine similarity of neighbouring pieces minus the mean over all pairs",
                              cut_reasons(pieces, groups, [True] * (len(pieces) - 1)), tuple(groups))

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """Spans of grouped pieces (see the module docstring)."""
        return list(self.explain(text, headings).cuts)

def _build(spec: ChunkerSpec, resources: ChunkerResources) -> ClusterSemanticChunker:
    assert resources.counter is not None and resources.embed is not None  # checked by ChunkerKind.make
    return ClusterSemanticChunker(spec, resources.counter, resources.embed, resources.embed_id,
                                  resources.vector_cache)


CLUSTER_SEMANTIC = ChunkerKind(
    "cluster_semantic", "small pieces grouped by dynamic programming to maximise within-chunk similarity",
    (ParamSpec("max_tokens", 400, 1, 100_000, help="largest chunk, in the embedding model's tokens"),
     ParamSpec("piece_tokens", 50, 1, 100_000, help="size of the small pieces that are grouped")),
    _build, needs=("counter", "embed"))
