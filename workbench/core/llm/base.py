"""What every answering backend shares: messages, options, per-answer stats, errors and the streaming
``Generation`` (tokens as they arrive, then the final stats).

A backend produces tokens on a worker thread and pushes them into a queue; ``Generation`` hands them to
the caller, so a cancel token is honoured within ~50 ms even while the model is still reading the prompt.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from workbench.core.jobs import CancelToken

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}
_POLL_S = 0.05


class LLMError(Exception):
    """A backend failure with a message meant for people (one line, says what to do)."""


class BackendUnavailable(LLMError):
    """The backend cannot be reached or loaded (no Ollama server, no model file)."""


class RemoteHostRefused(LLMError):
    """The Ollama host is not on this machine and the user did not opt in (``--allow-remote``/Settings)."""


class ModelNotFound(LLMError):
    """The named model is not installed (for Ollama: not pulled)."""


class ContextTooLong(LLMError):
    """The prompt does not fit the model's context window."""


class BackendTimeout(LLMError):
    """The backend did not answer within the timeout."""


class StreamInterrupted(LLMError):
    """The stream broke off (server gone, connection dropped, timeout) after it had started."""


@dataclass(frozen=True)
class GenerateOptions:
    """Sampling options common to every backend (``num_ctx`` is passed to Ollama only)."""

    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float | None = None
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    num_ctx: int | None = None
    repeat_penalty: float | None = None  # None: the backend's default (1.1 for both, as in Ollama)


@dataclass
class GenerationStats:
    """Numbers about one answer: tokens in and out, latency, and whether it was cut short."""

    model: str
    backend: str
    prompt_tokens: int = 0
    output_tokens: int = 0
    time_to_first_token_s: float | None = None
    total_s: float = 0.0
    interrupted: bool = False
    stop_reason: str = ""  # "stop", "length", "cancelled", or why the stream broke off

    @property
    def tokens_per_s(self) -> float:
        """Output tokens per second after the first token (over the whole time when not streamed)."""
        if self.time_to_first_token_s is None or not self.output_tokens:
            return 0.0
        gen = self.total_s - self.time_to_first_token_s
        if self.output_tokens > 1 and gen > 0.001:
            return (self.output_tokens - 1) / gen
        return self.output_tokens / self.total_s if self.total_s > 0 else 0.0  # not streamed: one piece

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (times rounded to milliseconds)."""
        d = asdict(self)
        for k in ("time_to_first_token_s", "total_s"):
            if d[k] is not None:
                d[k] = round(d[k], 3)
        d["tokens_per_s"] = round(self.tokens_per_s, 2)
        return d


class StreamSink:
    """What a producer writes to: ``token(text)`` returns False once the consumer wants it to stop."""

    def __init__(self, stats: GenerationStats) -> None:
        self.stats = stats
        self.stop = threading.Event()
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()

    def token(self, text: str) -> bool:
        """Hand one piece of text to the consumer; False means: stop generating."""
        if text:
            self._queue.put(("token", text))
        return not self.stop.is_set()


Producer = Callable[[StreamSink], None]


class Generation:
    """One answer being generated: iterate for the text pieces; afterwards ``text`` and ``stats`` are final.

    A cancel token (or leaving the loop early) stops the producer; the partial text is kept and the stats
    say ``interrupted`` with ``stop_reason == "cancelled"``. A stream that breaks off after its first token
    (``StreamInterrupted``) is kept the same way with the reason; before any token the error is raised.
    """

    def __init__(self, producer: Producer, stats: GenerationStats, cancel: CancelToken | None = None,
                 abort: Callable[[], None] | None = None) -> None:
        self.stats = stats
        self.pieces: list[str] = []
        self._sink = StreamSink(stats)
        self._cancel = cancel
        self._abort = abort
        self._producer = producer
        self._started = False
        self._finished = False

    @property
    def text(self) -> str:
        """The text so far (all of it once iteration ended)."""
        return "".join(self.pieces)

    def _run(self) -> None:
        try:
            self._producer(self._sink)
        except BaseException as exc:  # handed to the consumer thread
            self._sink._queue.put(("error", exc))
        finally:
            self._sink._queue.put(("done", None))

    def __iter__(self) -> Iterator[str]:
        if self._started:  # a generation streams once
            return
        self._started = True
        t0 = time.perf_counter()
        threading.Thread(target=self._run, name=f"llm-{self.stats.backend}", daemon=True).start()
        try:
            while True:
                if self._cancel is not None and self._cancel.cancelled:
                    self._stop("cancelled")
                    return
                try:
                    kind, value = self._sink._queue.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if kind == "done":
                    return
                if kind == "error":
                    if isinstance(value, StreamInterrupted) and self.pieces:
                        self.stats.interrupted = True
                        self.stats.stop_reason = str(value)
                        return
                    raise value
                if self.stats.time_to_first_token_s is None:
                    self.stats.time_to_first_token_s = time.perf_counter() - t0
                self.pieces.append(value)
                yield value
        except (GeneratorExit, KeyboardInterrupt):  # the caller left the loop, or Ctrl-C
            self._stop("cancelled")
            raise
        finally:
            self._sink.stop.set()  # whatever ended the loop, the producer stops at its next token
            self.stats.total_s = time.perf_counter() - t0
            if not self.stats.output_tokens or self.stats.interrupted:
                self.stats.output_tokens = max(self.stats.output_tokens, len(self.pieces))
            self._finished = True

    def _stop(self, reason: str) -> None:
        self._sink.stop.set()
        if self._abort is not None:
            self._abort()
        self.stats.interrupted = True
        self.stats.stop_reason = reason

    def run(self, on_token: Callable[[str], None] | None = None) -> str:
        """Consume the whole stream (calling ``on_token`` per piece) and return the text."""
        for piece in self:
            if on_token is not None:
                on_token(piece)
        return self.text


@runtime_checkable
class Backend(Protocol):
    """An answering model. ``name`` is the backend kind, ``model`` the model name."""

    name: str
    model: str
    label: str

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel: CancelToken | None = None) -> Generation: ...

    def complete(self, messages: Sequence[Message], max_tokens: int = 256, temperature: float = 0.0,
                 cancel: CancelToken | None = None) -> str: ...

    def count_tokens(self, text: str) -> int: ...

    def context_length(self) -> int: ...


class BackendBase:
    """Shared conveniences: ``complete`` on top of ``generate``."""

    name = "base"
    model = ""
    label = ""
    exact_tokens = False  # True when count_tokens uses the model's own tokenizer

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel: CancelToken | None = None) -> Generation:  # pragma: no cover - abstract
        raise NotImplementedError

    def complete(self, messages: Sequence[Message], max_tokens: int = 256, temperature: float = 0.0,
                 cancel: CancelToken | None = None) -> str:
        """The whole answer as one string (no streaming for the caller; a cancel token still stops it)."""
        options = GenerateOptions(max_tokens=max_tokens, temperature=temperature)
        return self.generate(messages, options, stream=True, cancel=cancel).run()

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` (an estimate unless ``exact_tokens``)."""
        return estimate_tokens(text)

    def context_length(self) -> int:  # pragma: no cover - overridden
        """Tokens the model reads and writes in one request."""
        return 4096

    def new_stats(self) -> GenerationStats:
        """Empty stats for one answer of this backend."""
        return GenerationStats(model=self.model, backend=self.name)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: about 3.6 characters per token (errs towards more tokens)."""
    return math.ceil(len(text) / 3.6) if text else 0


@dataclass
class BackendInfo:
    """One line of ``workbench models``: a backend, whether it works here, and its models."""

    name: str
    available: bool
    detail: str
    models: list[dict[str, Any]] = field(default_factory=list)


def first_json_object(raw: str) -> dict[str, Any] | None:
    """The first JSON object in a model's reply that parses, wherever it starts (code fences or text
    around it, or a second object, are ignored); None when there is none."""
    import json
    import re

    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", raw or ""):
        try:
            data, _ = decoder.raw_decode(raw, m.start())
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def fold_system(messages: Sequence[Message]) -> list[Message]:
    """Messages without a system role: system text goes in front of the first user turn."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system" and m["content"])
    rest = [dict(m) for m in messages if m["role"] != "system"]
    if not system:
        return rest
    for m in rest:
        if m["role"] == "user":
            m["content"] = f"{system}\n\n{m['content']}"
            return rest
    return [{"role": "user", "content": system}, *rest]
