"""The one way to open an LLM: an ``LLMChoice`` (kind, model, host, remote consent) and ``open_backend``.

Every caller goes through here: answering, rerank, summaries, contextual sentences, the judge, question
generation, the GUI and every command. ``call_llm`` runs one measured completion; ``LLMUsage`` counts what
LLM work cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from workbench.core.jobs import CancelToken
from workbench.core.llm.base import Backend, BackendUnavailable, LLMError, Message, ModelNotFound

KINDS = ("auto", "ollama", "extractive", "embedded")
PROBE_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class LLMChoice:
    """Which LLM to open: ``kind`` (one of ``KINDS``), ``model`` (None: the backend's default; an Ollama
    model name or a GGUF file), Ollama ``host`` (None: ``$OLLAMA_HOST`` or 127.0.0.1:11434) and
    ``allow_remote`` (consent to send text to a host that is not this machine)."""

    kind: str = "auto"
    model: str | None = None
    host: str | None = None
    allow_remote: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown backend '{self.kind}': choose one of {', '.join(KINDS)}")
        object.__setattr__(self, "model", self.model or None)
        object.__setattr__(self, "host", self.host or None)

    @property
    def contacts_ollama(self) -> bool:
        """True when opening this choice may talk to an Ollama server (so the host rules apply)."""
        if self.kind in ("embedded", "extractive"):
            return False
        return not (self.kind == "auto" and self.model is not None and self.model.endswith(".gguf"))


def probe_ollama(host: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> list[str] | None:
    """Names of the models of the Ollama server at ``host``, or None when no server answers in ``timeout``."""
    from workbench.core.llm.ollama_backend import list_models, server_version

    try:
        server_version(host, timeout)
        return [m["name"] for m in list_models(host, timeout)]
    except LLMError:
        return None


def open_backend(choice: LLMChoice | str = "auto", model: str | None = None, host: str | None = None,
                 allow_remote: bool = False) -> Backend:
    """The backend ``choice`` names (an ``LLMChoice``, or its fields: ``open_backend("ollama", "llama3.2")``).

    ``kind``: ``"ollama"`` (the server must answer; ``model`` must be pulled, default: its first model),
    ``"extractive"`` (no language model: quotes the passages' sentences closest to the question),
    ``"embedded"`` (llama.cpp in-process; ``model`` may name a GGUF file, default: packaged SmolLM2-135M,
    a tiny plumbing demo), or ``"auto"``: Ollama when its server answers within ~1 s with at least one
    model, else extractive (never the tiny embedded model; a GGUF file named as ``model`` still picks it).
    The extractive backend cannot generate text: callers that need a generative model check
    ``extractive.is_extractive`` and refuse. Raises an ``LLMError`` subclass with an actionable message:
    ``RemoteHostRefused`` (before anything connects) when the Ollama host, ``host`` or ``$OLLAMA_HOST``, is
    not on this machine and ``allow_remote`` is false.
    """
    if not isinstance(choice, LLMChoice):
        choice = LLMChoice(choice, model, host, allow_remote)
    kind, model = choice.kind, choice.model
    if kind == "embedded":
        return _embedded(model)
    if kind == "extractive":
        return _extractive()
    if not choice.contacts_ollama:  # auto with a GGUF file
        return _embedded(model)
    from workbench.core.llm.ollama_backend import (
        OllamaBackend,
        check_host,
        display_host,
        not_running,
        resolve_host,
    )

    host = check_host(choice.host, choice.allow_remote)
    if kind == "ollama":
        if probe_ollama(host) is None:
            raise not_running(resolve_host(host))
        return OllamaBackend(model, host, allow_remote=choice.allow_remote)
    names = probe_ollama(host)
    if names:
        if model is None or model in names or f"{model}:latest" in names:
            return OllamaBackend(model or names[0], host, check=False, allow_remote=choice.allow_remote)
        raise ModelNotFound(f"model '{model}' is not pulled in Ollama at {display_host(resolve_host(host))}: "
                            f"run `ollama pull {model}`")
    if model is not None:
        raise not_running(resolve_host(host))
    return _extractive()


def _extractive() -> Backend:
    from workbench.core.llm.no_model import ExtractiveBackend

    return ExtractiveBackend()


def _embedded(model: str | None) -> Backend:
    from workbench.core.llm.embedded import EmbeddedBackend

    if model is not None and not Path(model).is_file():
        raise BackendUnavailable(f"the embedded backend needs a GGUF file; not found: {model}")
    return EmbeddedBackend(model)


def opener_for(choice: LLMChoice) -> Callable[[], Backend]:
    """A ``() -> Backend`` that opens ``choice`` (what ``ws.llm_opener`` holds)."""
    return lambda: open_backend(choice)


def pipeline_backend(opener: Callable[[], Backend] | None) -> tuple[Backend | None, str]:
    """A backend for pipeline steps opened with ``opener`` (None: ``open_backend(LLMChoice())``, i.e.
    'auto'); (None, reason) when there is no generative model."""
    opener = opener or opener_for(LLMChoice())
    try:
        llm = opener()
    except Exception as exc:  # any backend failure becomes a warning, never a crash
        return None, f"no local LLM available ({exc})"
    from workbench.core.llm.no_model import is_extractive

    if is_extractive(llm):  # auto without Ollama: no language model to rank, summarise or situate with
        return None, ("no local LLM available (answers are extractive: start Ollama, or choose the embedded "
                      "model in Settings)")
    return llm, ""


@dataclass
class LLMUsage:
    """What LLM work cost: calls made, outputs served from the cache, tokens in and out, seconds."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    empty: int = 0  # outputs that were empty after clean-up

    @property
    def tokens(self) -> int:
        """Prompt plus output tokens."""
        return self.prompt_tokens + self.output_tokens

    def add(self, other: LLMUsage) -> None:
        """Add another usage into this one."""
        for name in ("calls", "cached", "prompt_tokens", "output_tokens", "seconds", "empty"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers (seconds rounded)."""
        return asdict(self) | {"tokens": self.tokens, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class LLMCall:
    """One completed LLM call: its text, tokens in and out, and seconds."""

    text: str
    prompt_tokens: int
    output_tokens: int
    seconds: float


def call_llm(llm: Backend, messages: Sequence[Message], max_tokens: int,
             cancel: CancelToken | None = None) -> LLMCall:
    """Run one completion at temperature 0 and measure it.

    Uses ``generate`` (exact token counts from the backend) when the backend has it, else ``complete``
    with tokens counted by ``count_tokens`` (or estimated). Raises ``Cancelled`` when ``cancel`` was set
    during the call (a partial answer is never returned).
    """
    from workbench.core.llm.base import GenerateOptions, estimate_tokens

    t0 = time.perf_counter()
    if hasattr(llm, "generate"):
        gen = llm.generate(messages, GenerateOptions(max_tokens=max_tokens, temperature=0.0), cancel=cancel)
        text = gen.run()
        prompt_tokens, output_tokens = gen.stats.prompt_tokens, gen.stats.output_tokens
    else:
        text = llm.complete(messages, max_tokens=max_tokens, temperature=0.0, cancel=cancel)
        count = getattr(llm, "count_tokens", estimate_tokens)
        prompt_tokens = sum(count(m["content"]) for m in messages)
        output_tokens = count(text)
    if cancel is not None:
        cancel.check()
    return LLMCall(text or "", int(prompt_tokens), int(output_tokens), time.perf_counter() - t0)
