"""What building a chunk set will cost, before the work starts: how many chunks, how many texts to embed, and
how long it takes on this machine.

The documents the set does not hold yet are cut without embedding anything (a dry run): all of them when they
total up to ``SAMPLE_CHARS`` characters, else documents spread over the corpus up to that much, and the counts
are scaled by characters. Chunks whose embedded text (or late-chunking key) is cached already cost nothing to
embed. An embedding chunker (semantic, cluster-semantic) cuts with the cached vectors of its sentences where
they are all there, so its chunk count is exact; where they are not, it cuts with stand-in vectors (random,
fixed per text) and its sentences count as texts to embed as well — for a percentile threshold the chunk count
is then its expected value.

Seconds = the dry run's own time (the chunking, measured, scaled) + the characters to embed ÷ this machine's
embedding rate for the model (``rates``: kept from every build). Before a model's first build the rate is
measured on a few of the texts to embed (their vectors are kept: no work is lost); when even that cannot run
(an Ollama server away) a conservative rate is assumed. An LLM's situating sentences (contextual chunk sets)
are not in the figure.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import ChainMap
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.core.index.build import embedded_texts
from workbench.core.index.chunker_build import SetCutter, late_key
from workbench.core.index.embedding import BATCH_SIZE, Embedder, EmbedMeter, embed_cached, text_hash
from workbench.core.index.rates import embedding_rate, keep_rate
from workbench.core.ingest.chunkers.choice import chunk_size, chunk_unit
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.chunkers.vector_cache import LruVectors
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import Scope, Store

SAMPLE_CHARS = 400_000  # characters cut by the dry run at most; larger corpora are sampled and scaled
CALIBRATION_TEXTS = 2 * BATCH_SIZE  # texts embedded to measure a model's rate before its first build
ASSUMED_CHARS_PER_S = 3_000.0  # ~750 tokens/s: MiniLM on a busy 2-core laptop, when nothing was measured
CONTEXT_PREFIX_CHARS = 200  # about what an LLM's situating sentence adds to each embedded text
LATE_OVERLAP = 4 / 3  # late chunking reads each token about this many times (windows overlap by a quarter)
STAND_IN_DIM = 64
OVERSIZE_RATIO = 8  # a chunking making this many times the chunks its size implies is asked about first
OVERSIZE_LEAST = 1_000  # ... when it makes at least this many chunks (a small corpus is never asked about)


class OversizedChunking(ValueError):
    """A chunking would make far more chunks than its size implies (``BuildEstimate.oversized``): refused
    before anything is embedded, until the person confirms (``--yes``)."""


@dataclass(frozen=True)
class BuildEstimate:
    """What building a chunk set will cost: ``chunks`` it will hold, ``to_embed`` of their texts (and an
    embedding chunker's sentences) not in the vector cache yet, and ``seconds`` of wall time on this machine
    (chunking and embedding); ``measured``: texts embedded (and cached) to measure the model's rate while
    estimating, which the build then finds cached."""

    chunks: int
    to_embed: int
    seconds: float
    measured: int = 0
    expected: int = 0  # chunks a cut at the chunking's own size would make (0: no size to match)

    def oversized(self) -> bool:
        """True when the chunking makes more than ``OVERSIZE_RATIO`` × the chunks its size implies (and at
        least ``OVERSIZE_LEAST``): e.g. a recursive splitter falling back to tiny pieces on text without
        spaces, 16× the chunks (and the embedding time) of the other token chunkers."""
        return self.expected > 0 and self.chunks >= OVERSIZE_LEAST and self.chunks > OVERSIZE_RATIO * self.expected

    def oversize_text(self, label: str) -> str:
        """One line saying what an oversized chunking would cost and how to go on."""
        return (f"{label} would make ~{self.chunks:,} chunks, {self.chunks / max(1, self.expected):.0f}× the "
                f"~{self.expected:,} its size implies ({self.describe()}); nothing was built. Choose another "
                "chunker or size, or confirm with --yes")

    def describe(self) -> str:
        """One line for people, e.g. ``~1,240 chunks, 310 to embed, about 25 s``."""
        embed = f"{self.to_embed:,} to embed" if self.to_embed else "nothing to embed"
        if self.measured:  # the rate probe embedded these: the build's own count and the total both add up
            embed = (f"{self.to_embed + self.measured:,} to embed ({self.measured:,} embedded now to measure this "
                     f"machine's rate, {self.to_embed:,} by the build)")
        return f"~{self.chunks:,} chunks, {embed}, {about(self.seconds)}"


def duration(seconds: float) -> str:
    """A duration for people: ``under a second``, ``25 s``, ``4 min``, ``1 h 20 min``."""
    if math.isnan(seconds):
        return "an unknown time"
    if seconds >= 1e8:  # past ~3 years a figure says nothing (it was a 300-digit number of hours)
        return "more than 3 years"
    if seconds < 1:
        return "under a second"
    if seconds >= 172_800:
        return f"{seconds / 86_400:,.0f} days"
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    return f"{int(minutes // 60)} h {minutes % 60:.0f} min"


def about(seconds: float) -> str:
    """An expected duration: ``under a second``, ``about 25 s``, ``about 4 min``, ``about 1 h 20 min``."""
    said = duration(seconds)
    return said if not seconds >= 1 or said.startswith("more than") else f"about {said}"


@dataclass
class DryEmbed:
    """An embedding function that embeds nothing: cached vectors where a call's texts are all cached, else
    stand-in vectors for the whole call (random, fixed per text, of the model's dimension when any vector of
    it is cached), the missing texts remembered."""

    store: Store
    model_id: str
    missing: dict[str, str] = field(default_factory=dict)  # text hash → text

    def __post_init__(self) -> None:
        self.dim = self.store.caches.vector_dim(self.model_id) or STAND_IN_DIM

    def __call__(self, texts: list[str]) -> np.ndarray:
        hashes = [text_hash(t) for t in texts]
        cached = self.store.caches.cached_vectors(self.model_id, hashes)
        if len(cached) == len(set(hashes)):
            return np.stack([cached[h] for h in hashes]) if hashes else np.zeros((0, self.dim), np.float32)
        self.missing |= {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
        return np.stack([stand_in(h, self.dim) for h in hashes])


def stand_in(digest: str, dim: int) -> np.ndarray:
    """A unit vector fixed by a text's hash."""
    seed = int.from_bytes(hashlib.blake2b(digest.encode(), digest_size=8).digest(), "little")
    v: np.ndarray = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return v / float(np.linalg.norm(v))


def sample_documents(doc_ids: Sequence[int], sizes: dict[int, int], budget: int = SAMPLE_CHARS) -> list[int]:
    """Documents to cut: all of them within ``budget`` characters, else a fixed random sample of them
    reaching ``budget``."""
    if sum(sizes.get(d, 0) for d in doc_ids) <= budget:
        return list(doc_ids)
    picked: list[int] = []
    total = 0
    for i in np.random.default_rng(0).permutation(len(doc_ids)):
        picked.append(doc_ids[int(i)])
        total += sizes.get(doc_ids[int(i)], 0)
        if total >= budget:
            break
    return picked


def estimate_build(store: Store, config: ChunkConfig, embedder: Embedder, counter: TokenCounter,
                   calibrate: bool = True, scope: Scope | None = None,
                   vector_cache: MutableMapping[str, np.ndarray] | None = None) -> BuildEstimate:
    """The cost of bringing the chunk set of ``config`` and ``embedder`` up to date (see the module docstring);
    ``calibrate``: measure the model's rate on a few texts when none is kept yet; ``scope``: the set covers
    those documents only (a scoped set, ``ws.sets.set_scope``); ``vector_cache``: the in-memory vectors an
    embedding chunker may read (the dry run's stand-ins never enter it)."""
    set_id = chunk_set_id(config, embedder.model_id, scope.key if scope else "", store.cuts.get)
    shas = store.documents.document_shas()
    if scope is not None:
        shas = {d: shas[d] for d in scope.doc_ids if d in shas}
    chunked = store.sets.chunked_docs(set_id)
    counts = store.sets.chunk_counts(set_id)
    held = sum(counts.get(d, 0) for d, sha in shas.items() if chunked.get(d) == sha)
    todo = [d for d, sha in sorted(shas.items()) if chunked.get(d) != sha]
    if not todo:
        return BuildEstimate(held, 0, 0.0)
    sizes = store.documents.document_sizes(todo)
    sample = sample_documents(todo, sizes)
    dry = DryEmbed(store, embedder.model_id)
    private = LruVectors()  # stand-in vectors stay here; reads fall through to the shared cache
    vectors = private if vector_cache is None else ChainMap(private, vector_cache)
    cutter = SetCutter(config, store, embedder, counter, vector_cache=vectors, embed=dry)
    chunks = expected = 0
    size, unit = chunk_size(config), chunk_unit(config)
    keyed: dict[str, str] = {}  # vector-cache key → the text embedded under it
    fresh: list[str] = []  # texts no cache can hold yet (a contextual set's sentences are not written)
    started = time.perf_counter()
    for doc_id in sample:
        doc = store.documents.document(doc_id)
        try:
            pieces = cutter.pieces(doc)
        except ChunkerError:  # the build leaves such a document out, with a warning
            continue
        chunks += len(pieces)
        expected += _expected_chunks(doc.text, size, unit, counter)
        if cutter.late:
            keyed |= {late_key(cutter.spec, doc.sha256, p.start, p.end): doc.text[p.start:p.end] for p in pieces}
        elif config.contextual:
            fresh += [" " * CONTEXT_PREFIX_CHARS + doc.text[p.start:p.end] for p in pieces]
        else:
            keyed |= {text_hash(t): t for t in embedded_texts(doc, pieces, config)[1]}
    chunking_s = time.perf_counter() - started
    cached = store.caches.cached_hashes(embedder.model_id, keyed)
    missing = [t for k, t in keyed.items() if k not in cached]
    chars = sum(len(t) for t in missing) * (LATE_OVERLAP if cutter.late else 1.0)
    missing += fresh + list(dry.missing.values())
    chars += sum(len(t) for t in fresh) + sum(len(t) for t in dry.missing.values())
    scale = sum(sizes.get(d, 0) for d in todo) / max(1, sum(sizes.get(d, 0) for d in sample))
    rate = embedding_rate(store, embedder.model_id)
    to_embed = len(missing) * scale
    measured: list[str] = []
    if rate is None and calibrate and missing:
        rate, measured = measure_rate(store, embedder, missing)
        to_embed -= len(measured)  # embedded (and cached) already: the build will not embed them again
        chars -= sum(len(t) for t in measured) / scale
    seconds = chunking_s * scale + max(0.0, chars) * scale / (rate or ASSUMED_CHARS_PER_S)
    return BuildEstimate(held + round(chunks * scale), max(0, round(to_embed)), seconds, len(measured),
                         held + round(expected * scale) if expected else 0)


def _expected_chunks(text: str, size: int, unit: str, counter: TokenCounter) -> int:
    """The chunks a cut at ``size`` ``unit``s would make of ``text`` (at least one); 0 when the chunking
    has no size in tokens or words to match (headings-only or sentence cuts)."""
    if size <= 0 or unit not in ("tokens", "words"):
        return 0
    length = counter.count(text) if unit == "tokens" else len(text.split())
    return max(1, -(-length // size))


def measure_rate(store: Store, embedder: Embedder, texts: Sequence[str]) -> tuple[float | None, list[str]]:
    """This machine's embedding rate for ``embedder`` (kept), measured on up to ``CALIBRATION_TEXTS`` of
    ``texts`` spread over their lengths, and the texts embedded for it (their vectors are cached: the build
    will not embed them again); ``(None, [])`` when the model cannot embed now (an Ollama server away, say:
    the build then says why)."""
    by_length = sorted(texts, key=len)
    chosen = by_length[:: max(1, len(by_length) // CALIBRATION_TEXTS)][:CALIBRATION_TEXTS]
    meter = EmbedMeter()
    try:
        embedder.encode(chosen[:1])  # loads the model and warms it, outside the timing
        embed_cached(store, embedder, chosen, meter=meter)
    except Exception:  # an estimate never fails where the build itself would say why
        return None, []
    return keep_rate(store, embedder.model_id, meter, least_seconds=0.0), chosen
