"""Local answers: Ollama through its official client; when no Ollama server answers, extractive answers
(the passages' sentences closest to the question, no language model); or, chosen explicitly, llama.cpp
embedded in the process with a tiny model (a plumbing demo). Nothing leaves the machine.

``open_backend`` picks a backend; every backend has ``name``, ``model``, ``label``,
``generate(messages, options, stream, cancel) -> Generation`` and ``complete(messages, ...) -> str``.
Heavy libraries (xllamacpp, ollama, httpx) are imported on first use.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.llm.base import (
    Backend,
    BackendInfo,
    BackendTimeout,
    BackendUnavailable,
    ContextTooLong,
    GenerateOptions,
    Generation,
    GenerationStats,
    LLMError,
    ModelNotFound,
    RemoteHostRefused,
    StreamInterrupted,
)

KINDS = ("auto", "ollama", "extractive", "embedded")
PROBE_TIMEOUT_S = 1.0

__all__ = [
    "KINDS", "Backend", "BackendInfo", "BackendTimeout", "BackendUnavailable", "ContextTooLong", "GenerateOptions",
    "Generation", "GenerationStats", "LLMError", "ModelNotFound", "RemoteHostRefused", "StreamInterrupted", "list_backends",
    "open_backend", "probe_ollama",
]


def probe_ollama(host: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> list[str] | None:
    """Names of the models of the Ollama server at ``host``, or None when no server answers in ``timeout``."""
    from workbench.core.llm.ollama_backend import list_models, server_version

    try:
        server_version(host, timeout)
        return [m["name"] for m in list_models(host, timeout)]
    except LLMError:
        return None


def open_backend(kind: str = "auto", model: str | None = None, host: str | None = None,
                 allow_remote: bool = False) -> Backend:
    """An answering backend.

    ``kind``: ``"ollama"`` (the server must answer; ``model`` must be pulled, default: its first model),
    ``"extractive"`` (no language model: quotes the passages' sentences closest to the question),
    ``"embedded"`` (llama.cpp in-process; ``model`` may name a GGUF file, default: packaged SmolLM2-135M,
    a tiny plumbing demo), or ``"auto"``: Ollama when its server answers within ~1 s with at least one
    model, else extractive (never the tiny embedded model; a GGUF file named as ``model`` still picks it).
    The extractive backend cannot generate text: callers that need a generative model check
    ``extractive.is_extractive`` and refuse. Raises an ``LLMError`` subclass with an actionable message: ``RemoteHostRefused`` (before anything
    connects) when the Ollama host, ``host`` or ``$OLLAMA_HOST``, is not on this machine and ``allow_remote``
    is false.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown backend '{kind}': choose one of {', '.join(KINDS)}")
    if kind == "embedded":
        return _embedded(model)
    if kind == "extractive":
        return _extractive()
    from workbench.core.llm.ollama_backend import (
        OllamaBackend,
        check_host,
        display_host,
        not_running,
        resolve_host,
    )

    if kind == "auto" and model is not None and model.endswith(".gguf"):
        return _embedded(model)
    host = check_host(host, allow_remote)
    if kind == "ollama":
        if probe_ollama(host) is None:
            raise not_running(resolve_host(host))
        return OllamaBackend(model, host, allow_remote=allow_remote)
    names = probe_ollama(host)
    if names:
        if model is None or model in names or f"{model}:latest" in names:
            return OllamaBackend(model or names[0], host, check=False, allow_remote=allow_remote)
        raise ModelNotFound(f"model '{model}' is not pulled in Ollama at {display_host(resolve_host(host))}: "
                            f"run `ollama pull {model}`")
    if model is not None:
        raise not_running(resolve_host(host))
    return _extractive()


def _extractive() -> Backend:
    from workbench.core.llm.extractive import ExtractiveBackend

    return ExtractiveBackend()


def _embedded(model: str | None) -> Backend:
    from workbench.core.llm.embedded import EmbeddedBackend

    if model is not None and not Path(model).is_file():
        raise BackendUnavailable(f"the embedded backend needs a GGUF file; not found: {model}")
    return EmbeddedBackend(model)


def list_backends(host: str | None = None) -> list[BackendInfo]:
    """What ``workbench models`` shows: the Ollama server (version, models), the extractive backend and the
    embedded model."""
    from workbench.core.llm.ollama_backend import display_host, list_models, resolve_host, server_version

    host = resolve_host(host)
    infos = []
    try:
        version = server_version(host, PROBE_TIMEOUT_S)
        models = list_models(host, 2 * PROBE_TIMEOUT_S)
        detail = f"Ollama {version} at {display_host(host)}, {len(models)} model(s)"
        if not models:
            detail += " — pull one with `ollama pull llama3.2`"
        infos.append(BackendInfo("ollama", bool(models), detail, models))
    except LLMError as exc:
        infos.append(BackendInfo("ollama", False, str(exc)))
    from workbench.core.llm.extractive import LABEL as EXTRACTIVE

    infos.append(BackendInfo("extractive", True, f"{EXTRACTIVE}: quotes the passages' sentences closest to the "
                             "question with the embedding model (the default when Ollama does not answer)"))
    try:
        from workbench.core.llm.embedded import LABEL, default_gguf_path

        path = Path(default_gguf_path())
        infos.append(BackendInfo("embedded", True, f"{LABEL}: {path}", [
            {"name": path.name.removesuffix(".gguf"), "size": path.stat().st_size, "path": str(path)}]))
    except LLMError as exc:
        infos.append(BackendInfo("embedded", False, str(exc)))
    return infos
