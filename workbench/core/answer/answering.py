"""One question answered from the corpus: search → numbered prompt under a token budget → streamed answer
→ citations linked to passage spans. The CLI's ``ask`` and the GUI both call ``prepare`` and ``answer``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workbench.core.answer.answer_result import Answer, passage_record
from workbench.core.answer.citations import invalid_numbers, parse_citations
from workbench.core.answer.extractive import extractive_answer
from workbench.core.answer.prompt import Prompt, build_prompt
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.llm.base import Backend, GenerateOptions
from workbench.core.llm.no_model import is_extractive

if TYPE_CHECKING:
    from workbench.core.answer.needs import AnswerWorkspace
    from workbench.core.retrieve.strategy.presets import Strategy

__all__ = ["Answer", "answer", "passage_record", "prepare"]


def prepare(ws: AnswerWorkspace, question: str, strategy: Strategy | str | dict[str, Any] | None,
            backend: Backend | None, max_tokens: int = 256, context_budget: int = 0,
            progress: ProgressSink | None = None, cancel: CancelToken | None = None) -> tuple[Prompt, list[str]]:
    """Search with ``strategy`` and build the prompt; returns ``(prompt, warnings)``."""
    result = ws.search(question, strategy, progress=progress, cancel=cancel)
    prompt = build_prompt(ws, result, backend, context_budget, max_tokens, question)
    warnings = list(result.warnings)
    if prompt.dropped:
        ranks = ", ".join(str(p.rank) for p in prompt.dropped)
        warnings.append(f"context budget ({prompt.budget} tokens) dropped {len(prompt.dropped)} passage(s), "
                        f"rank(s) {ranks}")
    if any(p.truncated for p in prompt.passages):
        warnings.append(f"the best passage was cut to fit the context budget ({prompt.budget} tokens)")
    return prompt, warnings


def answer(prompt: Prompt, backend: Backend, max_tokens: int = 256, temperature: float = 0.0,
           on_token: Callable[[str], None] | None = None, cancel: CancelToken | None = None,
           warnings: list[str] | None = None, ws: AnswerWorkspace | None = None) -> Answer:
    """Stream the answer to ``prompt`` (``on_token`` per piece) and link its citations to the passages.

    The extractive backend quotes sentences of the passages instead (it needs ``ws``: the documents and the
    embedding model); see ``workbench.core.answer.extractive``.
    """
    if is_extractive(backend):
        return extractive_answer(ws, prompt, backend, on_token, cancel, warnings)
    gen = backend.generate(prompt.messages, GenerateOptions(max_tokens=max_tokens, temperature=temperature),
                           stream=True, cancel=cancel)
    text = gen.run(on_token)
    citations = parse_citations(text, prompt.passages)
    notes = list(warnings or [])
    if gen.stats.interrupted:
        notes.append(f"the answer is incomplete ({gen.stats.stop_reason})")
    bad = invalid_numbers(citations)
    if bad:
        notes.append(f"the answer cites passage(s) that do not exist: {', '.join(map(str, bad))}")
    return Answer(text, prompt, citations, gen.stats, getattr(backend, "label", ""), notes)
