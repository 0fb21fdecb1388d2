"""Which embedding model: model specs and a workspace's pool of open embedders, one per model.

A *model spec* names an embedding model: ``""`` (or ``"default"``) is the workspace's default (the packaged
all-MiniLM-L6-v2 unless ``--model`` / Settings chose another), ``"ollama:NAME"`` embeds through the local
Ollama server's ``/api/embed``, ``"minilm-bf16"`` is the packaged model run with bf16 matrix products (about
twice as fast on a CPU with bf16 instructions, vectors agreeing with the exact model's to a mean cosine of
0.99998; measured in docs/performance.md), anything else is a local sentence-transformers folder. A chunk set is a
chunking configuration *and* a model (``chunkers.identity.chunk_set_id``), so each model has its own chunk
sets and its own cached vectors; the pool opens each model once, lazily, and finds the open embedder of a
stored chunk set by its ``model_id``.
"""

from __future__ import annotations

import threading

from workbench.core.consent import NotTrusted, is_trusted
from workbench.core.index.embedding import (
    Embedder,
    SentenceTransformerEmbedder,
    default_model_path,
    model_identity,
)

OLLAMA_PREFIX = "ollama:"
DEFAULT_NAMES = ("", "default")
FAST_MODEL = "minilm-bf16"
# Models the workbench names itself (packaged, so no consent is asked): spec → (precision, what people read).
NAMED_MODELS = {
    FAST_MODEL: ("bf16", "the packaged all-MiniLM-L6-v2 with bf16 matrix products: about twice as fast to "
                         "build with on a CPU with bf16 instructions; its vectors agree with the exact model's "
                         "(mean cosine 0.99998) and it keeps chunk sets and cached vectors of its own"),
}


def is_named_model(spec: str | None) -> bool:
    """True when ``spec`` is a model the workbench names itself (``minilm-bf16``)."""
    return (spec or "").strip().lower() in NAMED_MODELS


def named_model_id(spec: str) -> str:
    """The ``model_id`` a named model embeds under (read from the packaged folder, nothing loaded)."""
    precision, _ = NAMED_MODELS[spec.strip().lower()]
    return f"{model_identity(default_model_path())}+{precision}"


def normalise_model_spec(spec: str | None) -> str:
    """``spec`` stripped, ``"default"`` (and None) as ``""``; a ``ValueError`` for ``"ollama:"`` without a name."""
    text = (spec or "").strip()
    if text.lower() in DEFAULT_NAMES:
        return ""
    if text.lower() in NAMED_MODELS:
        return text.lower()
    if text.startswith(OLLAMA_PREFIX) and not text[len(OLLAMA_PREFIX):].strip():
        raise ValueError("an Ollama embedding model needs a name: ollama:NAME (e.g. ollama:nomic-embed-text)")
    if text.startswith(OLLAMA_PREFIX):
        return OLLAMA_PREFIX + text[len(OLLAMA_PREFIX):].strip()
    return text


def is_ollama_spec(spec: str | None) -> bool:
    """True when ``spec`` names an Ollama embedding model (``ollama:NAME``)."""
    return (spec or "").strip().startswith(OLLAMA_PREFIX)


def missing_model_folder(spec: str | None) -> str | None:
    """The folder named by ``spec`` when it is a local model folder that does not exist (None for the default,
    an ``ollama:`` model, or a folder that is there): checked before work that would need it."""
    text = normalise_model_spec(spec)
    if not text or is_ollama_spec(text) or is_named_model(text):
        return None
    from pathlib import Path

    return None if Path(text).expanduser().is_dir() else text


def model_label(spec: str | None) -> str:
    """A short name for people: ``default``, ``ollama:NAME`` or the folder's name."""
    text = normalise_model_spec(spec)
    if not text:
        return "default"
    if is_ollama_spec(text) or is_named_model(text):
        return text
    return text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or text


def open_embedder(spec: str | None, host: str | None = None, allow_remote: bool = False) -> Embedder:
    """The embedder ``spec`` names (nothing is loaded or contacted yet): an ``OllamaEmbedder`` for
    ``ollama:NAME`` (``host``: the answering backend's Ollama host; a host that is not this machine is
    refused unless ``allow_remote``), a named model (``minilm-bf16``), else a local sentence-transformers folder
    (``""``: the packaged default)."""
    text = normalise_model_spec(spec)
    if is_named_model(text):
        return SentenceTransformerEmbedder(None, precision=NAMED_MODELS[text][0])
    if is_ollama_spec(text):
        from workbench.core.llm.ollama_backend import OllamaEmbedder

        return OllamaEmbedder(text[len(OLLAMA_PREFIX):], host, allow_remote=allow_remote)
    return SentenceTransformerEmbedder(text or None)


class EmbedderPool:
    """A workspace's open embedders: the default one (given, or opened from ``default_spec``) and one per
    other model spec, each opened on first use. Ollama models use ``host`` / ``allow_remote`` (see
    ``use_ollama_host``)."""

    def __init__(self, default: Embedder | None = None, default_spec: str | None = None) -> None:
        self._default = default
        self._default_spec = normalise_model_spec(default_spec)
        self._opened: dict[str, Embedder] = {}
        self._lock = threading.RLock()
        self.host: str | None = None
        self.allow_remote = False

    def use_ollama_host(self, host: str | None, allow_remote: bool = False) -> None:
        """Embed ``ollama:`` models through ``host`` (None: ``$OLLAMA_HOST`` or 127.0.0.1:11434) from now on;
        Ollama embedders opened before are dropped."""
        with self._lock:
            self.host, self.allow_remote = host or None, allow_remote
            self._opened = {k: v for k, v in self._opened.items() if not is_ollama_spec(k)}
            if self._default is not None and is_ollama_spec(self._default_spec):
                self._default = None

    @property
    def default(self) -> Embedder:
        """The workspace's default embedder (opened on first use; weights load on first encode)."""
        with self._lock:
            if self._default is None:
                self._default = open_embedder(self._default_spec, self.host, self.allow_remote)
            return self._default

    def get(self, spec: str | None = "") -> Embedder:
        """The embedder of model ``spec`` (``""``: the default), opened once; a spec naming the default's
        model (same ``model_id``) shares the default embedder. A local folder other than the default is
        opened only when the user allowed it in this run (``workbench.core.consent``): a strategy read from
        data may name it, and a model folder can ship code."""
        text = normalise_model_spec(spec)
        if not text:
            return self.default
        with self._lock:
            emb = self._opened.get(text)
            if emb is None:
                if (not is_ollama_spec(text) and not is_named_model(text) and text != self._default_spec
                        and not is_trusted(text)):
                    raise NotTrusted(text, f"the embedding model folder {text} (sentence-transformers may "
                                           "import Python code kept in a model folder)")
                emb = open_embedder(text, self.host, self.allow_remote)
                if emb.model_id == self.default.model_id:
                    emb = self.default
                self._opened[text] = emb
            return emb

    def by_model_id(self, model_id: str) -> Embedder | None:
        """The open embedder whose ``model_id`` is ``model_id`` (an ``ollama:`` one or a named model is opened
        when needed); None when that model is not open (a local folder is known by its id only once opened)."""
        with self._lock:
            for emb in (self.default, *self._opened.values()):
                if emb.model_id == model_id:
                    return emb
        if is_ollama_spec(model_id):
            return self.get(model_id)
        for spec in NAMED_MODELS:
            if model_id.endswith("+" + NAMED_MODELS[spec][0]) and named_model_id(spec) == model_id:
                return self.get(spec)
        return None


def looks_like_embedding_model(name: str, family: str | None) -> bool:
    """True for an Ollama model that is probably an embedding model: ``embed`` in its name (nomic-embed-text,
    mxbai-embed-large …) or a BERT family (all-minilm, bge-m3 …); chat models are neither."""
    return "embed" in name.lower() or "bert" in (family or "").lower()


def ollama_embedding_models(host: str | None = None, allow_remote: bool = False, timeout: float = 1.0) -> list[str]:
    """``ollama:NAME`` specs of the embedding models installed in the Ollama server at ``host``; empty when
    no server answers within ``timeout``, or the host is not this machine and ``allow_remote`` is false
    (such a host is not even asked)."""
    from workbench.core.llm.base import LLMError
    from workbench.core.llm.ollama_backend import list_models, remote_refusal

    if not allow_remote and remote_refusal(host):
        return []
    try:
        models = list_models(host, timeout)
    except LLMError:
        return []
    return [OLLAMA_PREFIX + str(m["name"]).removesuffix(":latest") for m in models
            if looks_like_embedding_model(str(m["name"]), m.get("family"))]
