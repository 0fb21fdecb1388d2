"""One question answered from the corpus: search → numbered prompt under a token budget → streamed answer
→ citations linked to passage spans. The CLI's ``ask`` and the GUI both call ``prepare`` and ``answer``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.core.answer.citations import Citation, invalid_numbers, parse_citations
from workbench.core.answer.prompt import NumberedPassage, Prompt, build_prompt
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.llm.base import GenerateOptions, GenerationStats


@dataclass
class Answer:
    """The answer text, the prompt it came from, its citations and its stats."""

    text: str
    prompt: Prompt
    citations: list[Citation]
    stats: GenerationStats
    backend_label: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """``{answer, citations, passages, dropped, stats, warnings}`` ready for JSON."""
        return {
            "answer": self.text,
            "citations": [c.to_dict() for c in self.citations],
            "passages": [passage_record(p) for p in self.prompt.passages],
            "dropped": [passage_record(p) for p in self.prompt.dropped],
            "stats": {**self.stats.to_dict(), "backend_label": self.backend_label,
                      "context_tokens": self.prompt.context_tokens, "context_budget": self.prompt.budget,
                      "exact_token_counts": self.prompt.exact_tokens},
            "warnings": list(self.warnings),
        }


def passage_record(p: NumberedPassage) -> dict:
    """A numbered passage as JSON: number, rank, span, label, tokens and the text the model saw."""
    return {"number": p.number, "rank": p.rank, "doc_id": p.span.doc_id, "doc_path": p.doc_path,
            "start": p.span.start, "end": p.span.end, "label": p.label, "tokens": p.tokens,
            "truncated": p.truncated, "text": p.text}


def prepare(ws, question: str, strategy, backend, max_tokens: int = 256, context_budget: int = 0,  # noqa: ANN001
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


def answer(prompt: Prompt, backend, max_tokens: int = 256, temperature: float = 0.0,  # noqa: ANN001
           on_token: Callable[[str], None] | None = None, cancel: CancelToken | None = None,
           warnings: list[str] | None = None, ws=None) -> Answer:  # noqa: ANN001 - Workspace
    """Stream the answer to ``prompt`` (``on_token`` per piece) and link its citations to the passages.

    The extractive backend quotes sentences of the passages instead (it needs ``ws``: the documents and the
    embedding model); see ``workbench.core.answer.extractive``.
    """
    from workbench.core.answer.extractive import extractive_answer
    from workbench.core.llm.extractive import is_extractive

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


def ask(ws, question: str, strategy, backend, max_tokens: int = 256, context_budget: int = 0,  # noqa: ANN001
        temperature: float = 0.0, on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None, progress: ProgressSink | None = None) -> Answer:
    """Search, prompt and answer in one call."""
    prompt, warnings = prepare(ws, question, strategy, backend, max_tokens, context_budget, progress, cancel)
    return answer(prompt, backend, max_tokens, temperature, on_token, cancel, warnings, ws=ws)
