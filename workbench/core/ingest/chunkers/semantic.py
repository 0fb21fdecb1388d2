"""Semantic chunking: break between sentences where the meaning shifts.

Each sentence is embedded together with ``window`` neighbours on each side (so a short sentence is read in
context); the distance between neighbouring sentences is ``1 - cosine``. A chunk ends after sentence ``i``
when that distance is above the ``percentile``-th percentile of all distances in the document (a higher
percentile gives fewer, longer chunks). Groups larger than ``max_tokens`` are then cut greedily at sentence
boundaries. A sentence longer than ``max_tokens`` (a line with no sentence end at all) is first cut by the
recursive splitter (at words, then tokens) into pieces that fit, which count as sentences, so every chunk
respects ``max_tokens`` and the cost stays linear in the document.

The chunker never loads a model: it takes the caller's ``embed`` function. Sentence vectors go through a
cache keyed by model and text hash (``vector_cache``), so moving the threshold re-chunks without embedding
again; ``texts_to_embed`` names them, so a caller embeds the sentences of many documents in one batched job.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

import numpy as np

from workbench.core.ingest.chunkers.cut_explanation import CutExplanation, cut_reasons
from workbench.core.ingest.chunkers.protocol import (
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    Embed,
    ParamSpec,
)
from workbench.core.ingest.chunkers.recursive import TokenRuler, within_limit
from workbench.core.ingest.chunkers.vector_cache import LruVectors, embed_cached
from workbench.core.ingest.chunking import unit_spans
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter


def pack_sentences(sentences: list[Cut], breaks: Sequence[bool], ruler: TokenRuler, max_tokens: int) -> list[Cut]:
    """Chunks of consecutive sentences: a new chunk after each sentence ``i`` with ``breaks[i]`` and
    whenever adding a sentence would take the chunk over ``max_tokens``."""
    out: list[Cut] = []
    first = 0
    for i in range(1, len(sentences) + 1):
        if i == len(sentences) or breaks[i - 1] or ruler.size(sentences[first][0], sentences[i][1]) > max_tokens:
            out.append((sentences[first][0], sentences[i - 1][1]))
            first = i
    return out


class SemanticChunker:
    """Percentile-threshold semantic chunking over cached sentence vectors."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter, embed: Embed, embed_id: str = "",
                 vector_cache: MutableMapping[str, np.ndarray] | None = None) -> None:
        params = spec.param_dict
        self.spec = spec
        self.percentile = float(params["percentile"])
        self.window = int(params["window"])
        self.max_tokens = int(params["max_tokens"])
        self._counter = counter
        self._embed = embed
        self._embed_id = embed_id
        self._cache: MutableMapping[str, np.ndarray] = LruVectors() if vector_cache is None else vector_cache

    def sentence_windows(self, text: str, ruler: TokenRuler) -> tuple[list[Cut], list[str]]:
        """The document's sentences (those over ``max_tokens`` cut to fit) and the text embedded for each:
        the sentence with ``window`` neighbours on each side (none for a document of one sentence)."""
        units = [(int(a), int(b)) for a, b in unit_spans(text, "sentences")]
        sentences = within_limit(text, units, ruler, self.max_tokens)
        if len(sentences) < 2:
            return sentences, []
        w, n = self.window, len(sentences)
        return sentences, [text[sentences[max(0, i - w)][0] : sentences[min(n - 1, i + w)][1]] for i in range(n)]

    def texts_to_embed(self, text: str, headings: Sequence[Heading]) -> list[str]:
        """The sentence windows ``chunk`` embeds (``EmbeddingChunker``)."""
        return self.sentence_windows(text, TokenRuler(text, self._counter))[1]

    def sentence_distances(self, text: str, ruler: TokenRuler | None = None) -> tuple[list[Cut], np.ndarray]:
        """The document's sentences (those over ``max_tokens`` cut to fit) and the ``1 - cosine`` distance
        between each neighbouring pair."""
        sentences, windows = self.sentence_windows(text, ruler or TokenRuler(text, self._counter))
        if len(sentences) < 2:
            return sentences, np.zeros(0, dtype=np.float32)
        vectors = embed_cached(windows, self._embed, self._cache, self._embed_id)
        distances = 1.0 - np.einsum("ij,ij->i", vectors[:-1], vectors[1:])
        return sentences, distances

    def explain(self, text: str, headings: Sequence[Heading]) -> CutExplanation:
        """The similarity (``1 - distance``) of each neighbouring pair of sentences, the percentile line
        (as a similarity: the chunker cuts where the similarity is below it) and the chunks: the one
        computation ``chunk`` returns the cuts of."""
        ruler = TokenRuler(text, self._counter)
        sentences, distances = self.sentence_distances(text, ruler)
        line = float(np.percentile(distances, self.percentile)) if len(distances) else 0.0
        breaks = [bool(b) for b in distances > line]
        cuts = pack_sentences(sentences, breaks, ruler, self.max_tokens) if sentences else []
        return CutExplanation(self.spec.label(), "sentence", tuple(sentences),
                              tuple(float(1.0 - d) for d in distances), 1.0 - line if len(distances) else None,
                              f"similarity at the {self.percentile:g}th percentile of the distances",
                              f"cosine similarity of neighbouring sentences (each with {self.window} on each side)",
                              cut_reasons(sentences, cuts, breaks), tuple(cuts))

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """Sentence groups split where the distance passes the percentile threshold (and by size)."""
        return list(self.explain(text, headings).cuts)

def _build(spec: ChunkerSpec, resources: ChunkerResources) -> SemanticChunker:
    assert resources.counter is not None and resources.embed is not None  # checked by ChunkerKind.make
    return SemanticChunker(spec, resources.counter, resources.embed, resources.embed_id, resources.vector_cache)


SEMANTIC = ChunkerKind(
    "semantic", "break between sentences where neighbouring-sentence similarity drops (percentile threshold)",
    (ParamSpec("percentile", 95.0, 1.0, 100.0, help="break where the distance is above this percentile"),
     ParamSpec("window", 1, 0, 5, help="neighbouring sentences embedded with each sentence, on each side"),
     ParamSpec("max_tokens", 512, 1, 100_000, help="largest chunk in tokens (a longer sentence is cut to fit)")),
    _build, needs=("counter", "embed"))
