"""Local answers: Ollama through its official client; when no Ollama server answers, extractive answers
(the passages' sentences closest to the question, no language model); or, chosen explicitly, llama.cpp
embedded in the process with a tiny model (a plumbing demo). Nothing leaves the machine.

``open_backend(LLMChoice(...))`` (``open.py``, the one way to open an LLM) picks a backend; every backend has
``name``, ``model``, ``label``,
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
from workbench.core.llm.open import (
    KINDS,
    PROBE_TIMEOUT_S,
    LLMCall,
    LLMChoice,
    LLMUsage,
    call_llm,
    open_backend,
    opener_for,
    probe_ollama,
)

__all__ = [
    "KINDS", "Backend", "BackendInfo", "BackendTimeout", "BackendUnavailable", "ContextTooLong", "GenerateOptions",
    "Generation", "GenerationStats", "LLMCall", "LLMChoice", "LLMError", "LLMUsage", "ModelNotFound",
    "RemoteHostRefused", "StreamInterrupted", "call_llm", "list_backends", "open_backend",
    "opener_for", "probe_ollama",
]


def list_backends(host: str | None = None, allow_remote: bool = False) -> list[BackendInfo]:
    """What ``workbench models`` shows: the Ollama server (version, models), the extractive backend and the
    embedded model. An Ollama host (``host`` or ``$OLLAMA_HOST``) that is not this machine is not even asked
    unless ``allow_remote``: its entry says why."""
    from workbench.core.llm.ollama_backend import (
        display_host,
        is_loopback_host,
        list_models,
        resolve_host,
        server_version,
    )

    host = resolve_host(host)
    infos = []
    try:
        if not allow_remote and not is_loopback_host(host):
            raise RemoteHostRefused(f"not asked: the Ollama host {display_host(host)} is not on this machine "
                                    "(allow it with --allow-remote, or File → Settings… in the window)")
        version = server_version(host, PROBE_TIMEOUT_S)
        models = list_models(host, 2 * PROBE_TIMEOUT_S)
        detail = f"Ollama {version} at {display_host(host)}, {len(models)} model(s)"
        if not models:
            detail += " — pull one with `ollama pull llama3.2`"
        infos.append(BackendInfo("ollama", bool(models), detail, models))
    except LLMError as exc:
        infos.append(BackendInfo("ollama", False, str(exc)))
    from workbench.core.llm.no_model import LABEL as EXTRACTIVE

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
