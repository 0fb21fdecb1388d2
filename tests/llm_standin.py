"""A deterministic stand-in for a generative LLM, for tests that need "some model that writes text" (answers,
judges, contextual sentences, the Ollama chat stand-in) but not a real one; only the tests about the embedded
backend itself load the GGUF model (``test_llm_embedded.py`` and a few marked ``llm``).

``StandInLLM`` satisfies ``workbench.core.llm.base.Backend``: it streams its reply word by word through the
same ``Generation`` as every backend (``delay`` seconds per word, 1 ms by default so latencies are never
zero; a test may slow it down to stop it mid-answer), honours ``max_tokens`` (one word is one token; stop
reason ``"length"`` or ``"stop"``), counts prompt tokens with the tokenizer-free estimate, and refuses a
prompt longer than its context with ``ContextTooLong``. The reply is ``reply(messages)`` (default: a
sentence that cites passage [1] and repeats the question), the same for the same messages. ``requests``
records every message list it was sent.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

from workbench.core.llm.base import (
    BackendBase,
    ContextTooLong,
    GenerateOptions,
    Generation,
    Message,
    StreamSink,
    estimate_tokens,
)

NAME = "stand-in"
MODEL = "stand-in-llm"
LABEL = "stand-in test LLM"
PIECE = re.compile(r"\S+\s*")


def default_reply(messages: Sequence[Message]) -> str:
    """An answer citing passage [1] that repeats the last user turn's last line (the question)."""
    last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    question = last.strip().splitlines()[-1] if last.strip() else "nothing"
    return f"The passages answer it [1]: {question} is explained in the first passage."


class StandInLLM(BackendBase):
    """See the module docstring."""

    name = NAME
    model = MODEL
    label = LABEL

    def __init__(self, reply: Callable[[Sequence[Message]], str] | str | None = None, delay: float = 0.001,
                 n_ctx: int = 8192, model: str = MODEL) -> None:
        self.reply = reply if callable(reply) else (lambda _m, text=reply: text) if reply is not None \
            else default_reply
        self.delay = delay
        self.n_ctx = n_ctx
        self.model = model
        self.requests: list[list[Message]] = []
        self._lock = threading.Lock()

    def context_length(self) -> int:
        """The stand-in's context window."""
        return self.n_ctx

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Estimated tokens of the whole prompt (each message's text plus 4 for its role)."""
        return sum(estimate_tokens(m["content"]) + 4 for m in messages)

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel=None) -> Generation:  # a CancelToken
        """Stream ``reply(messages)`` word by word (see the module docstring)."""
        o = options or GenerateOptions()
        with self._lock:
            self.requests.append([dict(m) for m in messages])
        stats = self.new_stats()
        stats.prompt_tokens = self.prompt_tokens(messages)
        if stats.prompt_tokens + o.max_tokens > self.n_ctx:
            raise ContextTooLong(f"the prompt ({stats.prompt_tokens} tokens) does not fit the stand-in's context "
                                 f"({self.n_ctx} tokens)")
        pieces = PIECE.findall(self.reply(messages))

        def produce(sink: StreamSink) -> None:
            stats.stop_reason = "stop"
            for i, piece in enumerate(pieces):
                if i == o.max_tokens:
                    stats.stop_reason = "length"
                    return
                if self.delay:
                    time.sleep(self.delay)
                stats.output_tokens = i + 1
                if not sink.token(piece):
                    return

        return Generation(produce, stats, cancel)
