"""An answer as the answering steps return it: the text, the prompt it came from, its citations and stats
(its own module so that ``answering`` and ``extractive`` both build it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.core.answer.citations import Citation
from workbench.core.answer.prompt import NumberedPassage, Prompt
from workbench.core.llm.base import GenerationStats


@dataclass
class Answer:
    """The answer text, the prompt it came from, its citations and its stats."""

    text: str
    prompt: Prompt
    citations: list[Citation]
    stats: GenerationStats
    backend_label: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
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


def passage_record(p: NumberedPassage) -> dict[str, Any]:
    """A numbered passage as JSON: number, rank, span, label, tokens and the text the model saw."""
    return {"number": p.number, "rank": p.rank, "doc_id": p.span.doc_id, "doc_path": p.doc_path,
            "start": p.span.start, "end": p.span.end, "label": p.label, "tokens": p.tokens,
            "truncated": p.truncated, "text": p.text}
