"""Late chunking: embed the whole document first, then pool each chunk's token vectors.

The embedding model reads the document in long windows of its tokens (as long as its position limit
allows: ``max_seq_length`` minus the two special tokens; neighbouring windows overlap by a quarter, and a
token takes its vector from the window where it lies farthest from an edge, so it has context on both
sides). A chunk's vector is the mean of the vectors of the tokens that overlap its character span,
normalised, so it "sees" the text around the chunk; the chunk's display text stays the chunk.

Memory stays bounded on any document: the text is tokenized in blocks cut at white space, the windows are
read a batch at a time, and each batch's finished token vectors are added straight into running sums per
chunk (``SpanPool``), so no document-length array of token vectors is ever held: what grows with the
document is its token ids and offsets (24 bytes a token) and one sum per chunk.

Chunk boundaries come from any other chunker (the ``late`` kind's ``base`` parameter, default the ``fixed``
token window): ``late`` cuts exactly where its base cuts. Storing late vectors in the index is a later
step; ``late_chunk_vectors(embedder, text, spans)`` computes them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    ParamSpec,
)
from workbench.core.ingest.headings import Heading
from workbench.core.jobs import CancelToken
from workbench.core.lanes import in_lanes, lane_count

BLOCK_CHARS = 60_000  # the text is tokenized this many characters at a time (cut at white space)
POOL_BLOCK = 4_096  # token vectors pooled this many at a time by ``pool_chunk_vectors``


class SpanPool:
    """Running means of token vectors over character spans, fed block by block in token order.

    A span takes the tokens whose ``[start, end)`` character range overlaps it (tokens in document order);
    a span no token overlaps takes the nearest token. Blocks of consecutive tokens' vectors are added with
    ``add``; ``vectors`` returns the means. Memory: one float64 sum per span."""

    def __init__(self, token_offsets: np.ndarray, spans: Sequence[Cut]) -> None:
        offsets = np.asarray(token_offsets, dtype=np.int64).reshape(-1, 2)
        bounds = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
        self.n_tokens = len(offsets)
        if self.n_tokens:
            ends = np.maximum.accumulate(offsets[:, 1])  # non-decreasing, so searchsorted finds the first overlap
            lo = np.searchsorted(ends, bounds[:, 0], side="right")  # first token ending after the span starts
            hi = np.searchsorted(offsets[:, 0], bounds[:, 1], side="left")  # tokens starting before it ends
            alone = hi <= lo
            lo[alone] = np.minimum(lo[alone], self.n_tokens - 1)
            hi[alone] = lo[alone] + 1
        else:
            lo = hi = np.zeros(len(bounds), dtype=np.int64)
        order = np.argsort(lo, kind="stable")  # spans come in document order; this keeps any order working
        self._order, self._lo, self._hi = order, lo[order], hi[order]
        self._hi_reach = np.maximum.accumulate(self._hi) if len(bounds) else self._hi
        self._sums: np.ndarray | None = None
        self._spans = len(bounds)

    def add(self, first: int, vectors: np.ndarray) -> None:
        """Add the vectors of tokens ``first .. first + len(vectors) - 1``."""
        if not len(vectors):
            return
        block = np.asarray(vectors, dtype=np.float64)
        if self._sums is None:
            self._sums = np.zeros((self._spans, block.shape[1]), dtype=np.float64)
        last = first + len(block)
        begin = int(np.searchsorted(self._hi_reach, first, side="right"))  # spans before end at or before first
        stop = int(np.searchsorted(self._lo, last, side="left"))  # spans after start at or after last
        if stop <= begin:
            return
        sel = begin + np.nonzero(self._hi[begin:stop] > first)[0]
        if not len(sel):
            return
        sums = np.vstack([np.zeros((1, block.shape[1])), np.cumsum(block, axis=0)])
        a = np.clip(self._lo[sel], first, last) - first
        b = np.clip(self._hi[sel], first, last) - first
        self._sums[self._order[sel]] += sums[b] - sums[a]

    def vectors(self, dim: int, normalize: bool = True) -> np.ndarray:
        """One float32 row per span: the mean of its tokens' vectors (L2-normalised unless ``normalize`` is
        False); zeros when there were no tokens."""
        if self._sums is None:
            return np.zeros((self._spans, dim), dtype=np.float32)
        counts = np.empty(self._spans, dtype=np.float64)
        counts[self._order] = np.maximum(self._hi - self._lo, 1)
        out = self._sums / counts[:, None]
        if normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out = out / np.where(norms > 0, norms, 1.0)
        return out.astype(np.float32)


def pool_chunk_vectors(token_vectors: np.ndarray, token_offsets: np.ndarray, spans: Sequence[Cut],
                       normalize: bool = True) -> np.ndarray:
    """One vector per span: the mean of the vectors of the tokens whose ``[start, end)`` character range
    overlaps the span (tokens in document order). A span no token overlaps takes the nearest token's vector.
    Rows are L2-normalised unless ``normalize`` is False."""
    vectors = np.asarray(token_vectors, dtype=np.float32)
    offsets = np.asarray(token_offsets, dtype=np.int64).reshape(-1, 2)
    if len(vectors) != len(offsets):
        raise ValueError(f"{len(vectors)} token vectors but {len(offsets)} token offsets")
    pool = SpanPool(offsets, spans)
    for first in range(0, len(vectors), POOL_BLOCK):
        pool.add(first, vectors[first:first + POOL_BLOCK])
    return pool.vectors(vectors.shape[1] if vectors.ndim == 2 else 0, normalize)


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


def model_tokens(tokenizer: Any, text: str) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and character offsets of ``text`` under the model's tokenizer, read ``BLOCK_CHARS`` at a
    time (cut at white space, so no word is split between blocks): numpy arrays, not Python lists of the
    whole document."""
    ids: list[np.ndarray] = []
    offsets: list[np.ndarray] = []
    pos = 0
    while pos < len(text):
        end = min(len(text), pos + BLOCK_CHARS)
        if end < len(text):
            cut = max(text.rfind("\n", pos, end), text.rfind(" ", pos, end))
            end = cut + 1 if cut > pos else end
        encoded = tokenizer(text[pos:end], add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        ids.append(np.asarray(encoded["input_ids"], dtype=np.int64))
        offsets.append(np.asarray(encoded["offset_mapping"], dtype=np.int64).reshape(-1, 2) + pos)
        pos = end
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(ids), np.concatenate(offsets)


def _dimension(model: Any) -> int:
    return int(model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension")
               else model.get_sentence_embedding_dimension())


def token_vector_blocks(embedder: Any, ids: np.ndarray, batch_size: int = 8) -> Iterator[tuple[int, np.ndarray]]:
    """The contextual vectors of the tokens ``ids``, in order, as ``(first token, vectors)`` blocks: the
    windows (see the module docstring) are read ``batch_size`` at a time, and after each batch the tokens no
    later window reads are final and handed out. ``embedder`` lends its SentenceTransformer, and its
    ``inference()`` context (its precision) when it has one."""
    import torch

    model = embedder.model
    tokenizer = model.tokenizer
    n = len(ids)
    if not n:
        return
    specials = list(tokenizer("", add_special_tokens=True)["input_ids"])  # e.g. [CLS] [SEP]
    head, tail = specials[:1], specials[1:]
    size = int(model.max_seq_length) - len(specials)
    spans = windows(n, size, size // 4)
    dim = _dimension(model)
    lanes = lane_count()
    inference = getattr(embedder, "inference", contextlib.nullcontext)  # the embedder's precision
    done = 0  # tokens before this one were handed out
    held = np.zeros((0, dim), dtype=np.float32)  # vectors of tokens done .. done + len(held)
    room_held = np.zeros(0, dtype=np.int64)  # each held token's distance to its window's nearer edge
    for first in range(0, len(spans), batch_size):
        batch = spans[first:first + batch_size]
        rows = [head + ids[a:b].tolist() + tail for a, b in batch]
        parts = [rows[i::lanes] for i in range(min(lanes, len(rows)))]  # one share of the windows per lane
        features = [{k: v.to(model.device) for k, v in tokenizer.pad({"input_ids": part}, return_tensors="pt").items()}
                    for part in parts]

        def forward(part: dict[str, Any]) -> np.ndarray:
            """One share of the windows' token vectors (grad mode and precision are per thread: set here)."""
            with torch.no_grad(), inference():
                return np.asarray(model.forward(part)["token_embeddings"].float().cpu().numpy())

        shares = list(in_lanes(forward, features))
        hidden = [shares[i % len(parts)][i // len(parts)] for i in range(len(rows))]  # the windows' own order
        grow = batch[-1][1] - (done + len(held))
        if grow > 0:
            held = np.vstack([held, np.zeros((grow, dim), dtype=np.float32)])
            room_held = np.concatenate([room_held, np.full(grow, -1, dtype=np.int64)])
        for (a, b), states in zip(batch, hidden, strict=True):
            position = np.arange(a, b)
            room = np.minimum(position - a, b - 1 - position)  # distance to the nearer window edge
            take = room > room_held[a - done:b - done]
            held[a - done:b - done][take] = states[len(head):len(head) + b - a][take]
            room_held[a - done:b - done][take] = room[take]
        final = spans[first + batch_size][0] if first + batch_size < len(spans) else n
        yield done, held[:final - done]
        held, room_held = held[final - done:], room_held[final - done:]
        done = final


def token_vectors(embedder: Any, text: str, batch_size: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Contextual token vectors of ``text`` and their character offsets, as whole arrays (for a short text
    or a test: ``late_chunk_vectors`` never holds them all)."""
    ids, offsets = model_tokens(embedder.model.tokenizer, text)
    vectors = np.zeros((len(ids), _dimension(embedder.model)), dtype=np.float32)
    for first, block in token_vector_blocks(embedder, ids, batch_size):
        vectors[first:first + len(block)] = block
    return vectors, offsets


def late_chunk_vectors(embedder: Any, text: str, spans: Sequence[Cut], batch_size: int = 8,
                       cancel: CancelToken | None = None) -> np.ndarray:
    """Late-chunked vectors (normalised, one row per span) of ``spans`` of ``text``, pooled as the windows
    are read (bounded memory on any document); ``cancel`` is checked between blocks of windows (a long
    document takes minutes)."""
    ids, offsets = model_tokens(embedder.model.tokenizer, text)
    pool = SpanPool(offsets, spans)
    for first, block in token_vector_blocks(embedder, ids, batch_size):
        if cancel is not None:
            cancel.check()
        pool.add(first, block)
    return pool.vectors(_dimension(embedder.model))


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
