"""Ollama through its official Python client: server checks (``/api/version``, ``/api/tags``), streaming
chat with cancel, and ``/api/embed`` as an embedding backend.

Host: the ``host`` argument (settings), else ``$OLLAMA_HOST``, else ``127.0.0.1:11434``. Every request
has a timeout. Failures become ``LLMError`` subclasses whose message says what to do.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from workbench.core.jobs import CancelToken, ProgressSink, Reporter
from workbench.core.llm.base import (
    BackendBase,
    BackendTimeout,
    BackendUnavailable,
    ContextTooLong,
    GenerateOptions,
    Generation,
    LLMError,
    Message,
    ModelNotFound,
    RemoteHostRefused,
    StreamInterrupted,
    StreamSink,
    fold_system,
)

DEFAULT_HOST = "127.0.0.1:11434"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_CTX = 4096  # Ollama's default num_ctx when the request does not set one


def resolve_host(host: str | None = None) -> str:
    """The Ollama host: ``host``, else ``$OLLAMA_HOST``, else ``127.0.0.1:11434``."""
    return host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST


def is_loopback_host(host: str) -> bool:
    """True when ``host`` names this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress
    from urllib.parse import urlsplit

    name = urlsplit(host if "://" in host else f"http://{host}").hostname or ""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_warning(host: str | None) -> str | None:
    """A warning when the Ollama host is not on this machine: questions and passages would leave it."""
    resolved = resolve_host(host)
    if is_loopback_host(resolved):
        return None
    return (f"the Ollama host {display_host(resolved)} is not on this machine: questions and passages will be sent "
            "there over the network")


def remote_refusal(host: str | None) -> str | None:
    """The one-line refusal for an Ollama host (argument or ``$OLLAMA_HOST``) that is not on this machine;
    None for a loopback host. Every command and the GUI show this same line."""
    resolved = resolve_host(host)
    if is_loopback_host(resolved):
        return None
    return (f"the Ollama host {display_host(resolved)} is not on this machine: questions and passages would be "
            "sent there; refused unless you allow it (--allow-remote, or File → Settings… in the window), "
            "or use a local host or the embedded model")


def check_host(host: str | None, allow_remote: bool = False) -> str:
    """The resolved host, when text may be sent to it: a loopback host, or any host with ``allow_remote``.

    The single gate every opener of an Ollama connection goes through (``open_backend``, ``OllamaBackend``,
    ``OllamaEmbedder``); raises ``RemoteHostRefused`` before anything connects.
    """
    refusal = None if allow_remote else remote_refusal(host)
    if refusal:
        raise RemoteHostRefused(refusal)
    return resolve_host(host)


def display_host(host: str) -> str:
    """``host`` without scheme or trailing slash, for messages."""
    return host.split("://", 1)[-1].rstrip("/")


def not_running(host: str) -> BackendUnavailable:
    """The error for a host where no Ollama server answers."""
    return BackendUnavailable(f"Ollama is not running at {display_host(host)} — start it with `ollama serve`, "
                              "or use the embedded model (--llm embedded)")


def make_client(host: str | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> Any:  # an ollama.Client
    """An official ``ollama.Client`` with a timeout (connecting: at most 5 s) and no proxy from the environment."""
    import httpx
    import ollama

    return ollama.Client(host=resolve_host(host), timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
                         trust_env=False)


def _translate(exc: BaseException, host: str, model: str = "") -> LLMError:
    """Map a client/transport exception to an actionable ``LLMError``."""
    import httpx
    import ollama

    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, ollama.ResponseError):
        text = str(exc.error)
        low = text.lower()
        if exc.status_code == 404 or ("not found" in low and "model" in low):
            return ModelNotFound(f"model '{model}' is not pulled in Ollama at {display_host(host)}: "
                                 f"run `ollama pull {model}`")
        if "context" in low and ("exceed" in low or "too long" in low or "length" in low):
            return ContextTooLong(f"the prompt does not fit {model}'s context ({text}): lower --context-budget, "
                                  "--top-k or --max-tokens")
        return LLMError(f"Ollama error from {model or display_host(host)}: {text}")
    if isinstance(exc, (ConnectionError, httpx.ConnectError)):
        return not_running(host)
    if isinstance(exc, httpx.TimeoutException):
        return BackendTimeout(f"Ollama at {display_host(host)} did not answer in time ({type(exc).__name__})")
    if isinstance(exc, (httpx.TransportError, ValueError)):
        return StreamInterrupted(f"the connection to Ollama at {display_host(host)} was lost ({exc})")
    return LLMError(f"Ollama request failed: {exc}")


def server_version(host: str | None = None, timeout: float = 1.0) -> str:
    """``/api/version`` of the server (raises ``BackendUnavailable`` when none answers)."""
    host = resolve_host(host)
    client = make_client(host, timeout)
    try:
        # the client has no version() call; its request helper adds the same error mapping
        return str(client._request_raw("GET", "/api/version").json().get("version", "?"))
    except Exception as exc:
        raise _translate(exc, host) from None
    finally:
        client.close()


def list_models(host: str | None = None, timeout: float = 2.0) -> list[dict[str, Any]]:
    """Installed models (``/api/tags``): name, size in bytes, family, parameter size, quantization."""
    host = resolve_host(host)
    client = make_client(host, timeout)
    try:
        listing = client.list()
    except Exception as exc:
        raise _translate(exc, host) from None
    finally:
        client.close()
    out = []
    for m in listing.models:
        d = m.details
        out.append({"name": m.model, "size": int(m.size or 0), "family": d.family if d else None,
                    "parameter_size": d.parameter_size if d else None,
                    "quantization": d.quantization_level if d else None})
    return out


class OllamaBackend(BackendBase):
    """A model served by Ollama (``model`` must be pulled; default: the first installed model)."""

    name = "ollama"

    def __init__(self, model: str | None = None, host: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
                 num_ctx: int | None = None, check: bool = True, allow_remote: bool = False) -> None:
        self.host = check_host(host, allow_remote)
        self.timeout = timeout
        self.num_ctx = num_ctx
        self.client = make_client(self.host, timeout)
        if check:
            names = [m["name"] for m in list_models(self.host, min(timeout, 5.0))]
            if model is None:
                if not names:
                    raise ModelNotFound(f"Ollama at {display_host(self.host)} has no models: "
                                        "run `ollama pull llama3.2` (or another model)")
                model = names[0]
            elif model not in names and f"{model}:latest" not in names:
                raise ModelNotFound(f"model '{model}' is not pulled in Ollama at {display_host(self.host)}: "
                                    f"run `ollama pull {model}`")
        self.model = model or ""
        self.label = f"{self.model} (Ollama at {display_host(self.host)})"
        self._system_role: bool | None = None

    def context_length(self) -> int:
        """The context window requested (``num_ctx``), else Ollama's default."""
        return self.num_ctx or DEFAULT_CTX

    @property
    def supports_system_role(self) -> bool:
        """False when the model's template never uses ``.System`` (Ollama would drop system messages)."""
        if self._system_role is None:
            try:
                template = self.client.show(self.model).template or ""
                self._system_role = not template or ".System" in template or '"system"' in template
            except Exception:
                self._system_role = True
        return self._system_role

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel: CancelToken | None = None) -> Generation:
        """Start an answer (``/api/chat``); iterate the result for tokens. Stop/cancel closes the stream."""
        o = options or GenerateOptions()
        msgs = list(messages) if self.supports_system_role else fold_system(messages)
        opts: dict[str, Any] = {"num_predict": o.max_tokens, "temperature": o.temperature}
        for key, value in (("top_p", o.top_p), ("seed", o.seed), ("num_ctx", o.num_ctx or self.num_ctx),
                           ("repeat_penalty", o.repeat_penalty)):
            if value is not None:
                opts[key] = value
        if o.stop:
            opts["stop"] = list(o.stop)
        stats = self.new_stats()
        client = make_client(self.host, self.timeout)  # one per answer: closing it aborts the stream

        def produce(sink: StreamSink) -> None:
            done = False
            try:
                parts = self.client_chat(client, msgs, opts, stream)
                for part in parts if stream else [parts]:
                    if part.message.content and not sink.token(part.message.content):
                        return
                    if part.done:
                        done = True
                        stats.prompt_tokens = int(part.prompt_eval_count or 0)
                        stats.output_tokens = int(part.eval_count or 0)
                        stats.stop_reason = part.done_reason or "stop"
            except Exception as exc:
                if sink.stop.is_set():
                    return
                raise _translate(exc, self.host, self.model) from None
            finally:
                client.close()
            if not done and not sink.stop.is_set():
                raise StreamInterrupted(f"Ollama at {display_host(self.host)} ended the answer early")

        return Generation(produce, stats, cancel, abort=client.close)

    def client_chat(self, client: Any, msgs: list[Message], opts: dict[str, Any], stream: bool) -> Any:
        """The official client's chat call (a hook for tests of the request shape)."""
        return client.chat(model=self.model, messages=msgs, options=opts, stream=stream)


class OllamaEmbedder:
    """Embeddings from Ollama's ``/api/embed`` with the interface of ``SentenceTransformerEmbedder``
    (``model_id`` ``ollama:NAME``; batched requests; nothing is contacted before the first ``encode``)."""

    def __init__(self, model: str, host: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
                 batch_size: int = 32, allow_remote: bool = False) -> None:
        self.host = check_host(host, allow_remote)
        self.model = model
        self.model_id = f"ollama:{model}"
        self.model_path = None
        self.batch_size = batch_size
        self.client = make_client(self.host, timeout)
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """Vector dimension (asks the server once)."""
        if self._dim is None:
            self._dim = int(self.encode(["dimension probe"]).shape[1])
        return self._dim

    def encode(self, texts: Sequence[str], progress: ProgressSink | None = None,
               cancel: CancelToken | None = None) -> np.ndarray:
        """Embed ``texts`` in batches: L2-normalised float32 rows, in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        report = Reporter(progress, "embedding", len(texts))
        rows = []
        for i in range(0, len(texts), self.batch_size):
            if cancel is not None:
                cancel.check()
            try:
                resp = self.client.embed(model=self.model, input=list(texts[i : i + self.batch_size]))
            except Exception as exc:
                error = _translate(exc, self.host, self.model)
                if isinstance(error, BackendUnavailable):  # the LLM's advice (--llm embedded) does not apply
                    error = BackendUnavailable(f"Ollama is not running at {display_host(self.host)}: the embedding "
                                               f"model {self.model_id} needs it (start it with `ollama serve`)")
                raise error from None
            rows.append(np.asarray(resp.embeddings, dtype=np.float32))
            report(min(len(texts), i + self.batch_size))
        vecs = np.concatenate(rows)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs /= np.where(norms > 0, norms, 1.0)
        self._dim = int(vecs.shape[1])
        return vecs
