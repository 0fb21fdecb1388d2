"""The extractive backend: answers by quoting the passages' sentences closest to the question, with no
language model. This module holds the backend value the opener returns (it refuses to generate text); the
sentence selection itself lives in ``workbench.core.answer.extractive``, above the embedding model it uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from workbench.core.jobs import CancelToken
from workbench.core.llm.base import (
    BackendBase,
    GenerateOptions,
    Generation,
    LLMError,
    Message,
)

NAME = "extractive"
LABEL = "extractive — no language model"
NOT_GENERATIVE = ("the extractive backend has no language model to generate text: start Ollama (`ollama serve`) "
                  "or choose the embedded model (--llm embedded)")
JUDGE_REFUSAL = "a judge needs a generative model; start Ollama or choose --llm embedded"
MAX_SENTENCES = 4
RELATIVE_CUTOFF = 0.8


class NotGenerative(LLMError):
    """The extractive backend was asked to generate text (a judge, a rerank, a contextual sentence)."""


def is_extractive(backend: object) -> TypeGuard[ExtractiveBackend]:
    """True for the extractive backend (it quotes sentences and cannot generate text)."""
    return getattr(backend, "name", "") == NAME


class ExtractiveBackend(BackendBase):
    """Answers by quoting sentences (see the module docstring); ``generate``/``complete`` refuse."""

    name = NAME
    label = LABEL

    def __init__(self, max_sentences: int = MAX_SENTENCES, cutoff: float = RELATIVE_CUTOFF) -> None:
        self.model = "sentence selection"
        self.max_sentences = max_sentences
        self.cutoff = cutoff

    def generate(self, messages: Sequence[Message], options: GenerateOptions | None = None, stream: bool = True,
                 cancel: CancelToken | None = None) -> Generation:
        """Always raises ``NotGenerative``: there is no language model here."""
        raise NotGenerative(NOT_GENERATIVE)

    def context_length(self) -> int:
        """No context window: every passage of the search result is read."""
        return 1 << 30
