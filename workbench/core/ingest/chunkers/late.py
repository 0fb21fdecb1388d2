"""Late chunking: embed the whole document first, then pool each chunk's token vectors.

The embedding model reads the document in long windows of its tokens (as long as its position limit
allows: ``max_seq_length`` minus the two special tokens; neighbouring windows overlap by a quarter, and a
token takes its vector from the window where it lies farthest from an edge, so it has context on both
sides). A chunk's vector is the mean of the vectors of the tokens that overlap its character span,
normalised, so it "sees" the text around the chunk; the chunk's display text stays the chunk.

Chunk boundaries come from any other chunker (the ``late`` kind's ``base`` parameter, default the ``fixed``
token window): ``late`` cuts exactly where its base cuts. Storing late vectors in the index is a later
step; ``late_chunk_vectors(embedder, text, spans)`` computes them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    ParamSpec,
    Span,
)
from workbench.core.ingest.headings import Heading


def pool_chunk_vectors(token_vectors: np.ndarray, token_offsets: np.ndarray, spans: Sequence[Span],
                       normalize: bool = True) -> np.ndarray:
    """One vector per span: the mean of the vectors of the tokens whose ``[start, end)`` character range
    overlaps the span (tokens in document order). A span no token overlaps takes the nearest token's vector.
    Rows are L2-normalised unless ``normalize`` is False."""
    vectors = np.asarray(token_vectors, dtype=np.float32)
    offsets = np.asarray(token_offsets, dtype=np.int64).reshape(-1, 2)
    if len(vectors) != len(offsets):
        raise ValueError(f"{len(vectors)} token vectors but {len(offsets)} token offsets")
    out = np.zeros((len(spans), vectors.shape[1] if vectors.ndim == 2 else 0), dtype=np.float32)
    if not len(vectors):
        return out
    sums = np.vstack([np.zeros((1, vectors.shape[1]), dtype=np.float64), np.cumsum(vectors, axis=0, dtype=np.float64)])
    ends = np.maximum.accumulate(offsets[:, 1])  # non-decreasing, so searchsorted finds the first overlap
    for row, (a, b) in enumerate(spans):
        lo = int(np.searchsorted(ends, a, side="right"))  # first token ending after a
        hi = int(np.searchsorted(offsets[:, 0], b, side="left"))  # tokens starting before b
        if hi > lo:
            out[row] = (sums[hi] - sums[lo]) / (hi - lo)
        else:
            out[row] = vectors[min(lo, len(vectors) - 1)]
    if normalize:
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out = (out / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    return out


def windows(n_tokens: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """``[start, end)`` token windows of at most ``size`` covering ``n_tokens``, neighbours sharing ``overlap``."""
    if size <= overlap:
        raise ValueError("the window must be longer than its overlap")
    out: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + size, n_tokens)
        out.append((start, end))
        if end >= n_tokens:
            return out
        start = end - overlap


def token_vectors(embedder: Any, text: str, batch_size: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Contextual token vectors of ``text`` and their character offsets, read in overlapping windows of
    the model's position limit (see the module docstring). ``embedder`` lends its SentenceTransformer."""
    import torch

    model = embedder.model
    tokenizer = model.tokenizer
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    ids, offsets = list(encoded["input_ids"]), np.asarray(encoded["offset_mapping"], dtype=np.int64).reshape(-1, 2)
    dim = int(model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension")
              else model.get_sentence_embedding_dimension())
    vectors = np.zeros((len(ids), dim), dtype=np.float32)
    if not ids:
        return vectors, offsets
    specials = list(tokenizer("", add_special_tokens=True)["input_ids"])  # e.g. [CLS] [SEP]
    head, tail = specials[:1], specials[1:]
    size = int(model.max_seq_length) - len(specials)
    spans = windows(len(ids), size, size // 4)
    best = np.full(len(ids), -1, dtype=np.int64)
    for first in range(0, len(spans), batch_size):
        batch = spans[first:first + batch_size]
        rows = [head + ids[a:b] + tail for a, b in batch]
        features = tokenizer.pad({"input_ids": rows}, return_tensors="pt")
        features = {k: v.to(model.device) for k, v in features.items()}
        with torch.no_grad():
            hidden = model.forward(features)["token_embeddings"].float().cpu().numpy()
        for (a, b), states in zip(batch, hidden, strict=True):
            position = np.arange(a, b)
            room = np.minimum(position - a, b - 1 - position)  # distance to the nearer window edge
            take = room > best[a:b]
            vectors[a:b][take] = states[len(head):len(head) + b - a][take]
            best[a:b][take] = room[take]
    return vectors, offsets


def late_chunk_vectors(embedder: Any, text: str, spans: Sequence[Span]) -> np.ndarray:
    """Late-chunked vectors (normalised, one row per span) of ``spans`` of ``text``."""
    vectors, offsets = token_vectors(embedder, text)
    if not len(vectors):
        return np.zeros((len(spans), vectors.shape[1]), dtype=np.float32)
    return pool_chunk_vectors(vectors, offsets, spans)


class LateChunker:
    """Cuts where its base chunker cuts; what is late is the vectors (``late_chunk_vectors``)."""

    def __init__(self, spec: ChunkerSpec, base: Chunker) -> None:
        self.spec = spec
        self.base = base

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Any]:
        """The base chunker's spans (verified, as every chunker's, by ``chunk_verified``)."""
        return list(self.base.chunk(text, headings))


def late_kind(get_kind: Callable[[str], ChunkerKind]) -> ChunkerKind:
    """The ``late`` chunker kind; ``get_kind`` finds its base chunker by name (the registry's lookup, passed
    in so that this module does not import the registry that lists it)."""

    def build(spec: ChunkerSpec, resources: ChunkerResources) -> LateChunker:
        params = spec.param_dict
        if params["base"] == spec.name:
            raise ChunkerError("chunker 'late' cannot use itself as its base")
        try:
            base_params = json.loads(str(params["base_params"]))
        except json.JSONDecodeError as exc:
            raise ChunkerError(f"chunker 'late': base_params is not JSON ({exc})") from None
        if not isinstance(base_params, dict):
            raise ChunkerError("chunker 'late': base_params must be a JSON object")
        return LateChunker(spec, get_kind(str(params["base"])).make(resources, **base_params))

    return ChunkerKind(
        "late", "late chunking: a base chunker's spans, vectors pooled from whole-document token embeddings",
        (ParamSpec("base", "fixed", help="the chunker whose spans are used (any registered chunker)"),
         ParamSpec("base_params", "{}", help="JSON object of the base chunker's parameters")),
        build)
