"""Citations in an answer — ``[2]``, ``[1][3]``, ``[1, 3]``, ``[2-4]`` — parsed into links to the numbered
passages of the prompt (passage number + its ``(doc_id, start, end)`` span). Numbers that name no
passage are kept and flagged. An extractive answer's citations also carry the quoted sentence
(``quote``: its span inside the passage, ``quote_text == document[start:end]``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.core.answer.prompt import NumberedPassage
from workbench.core.spans import Span

_BRACKET = re.compile(r"\[\s*(?:passages?\s*)?(\d+(?:\s*(?:[,;]|and|-|–)\s*\d+)*)\s*\]", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*(?:[-–]\s*(\d+))?")
_MAX_RANGE = 50


@dataclass(frozen=True)
class Citation:
    """One cited passage number at ``answer_start:answer_end`` (the whole bracket) in the answer."""

    number: int
    answer_start: int
    answer_end: int
    passage: NumberedPassage | None
    quote: Span | None = None  # the quoted sentence of an extractive answer
    quote_text: str | None = None
    score: float | None = None  # the quoted sentence's similarity to the question

    @property
    def valid(self) -> bool:
        """True when the number names a passage that was in the prompt."""
        return self.passage is not None

    @property
    def span(self) -> tuple[int, int, int] | None:
        """``(doc_id, start, end)`` of the cited passage, or None for a citation of a missing passage."""
        if self.passage is None:
            return None
        s = self.passage.span
        return (s.doc_id, s.start, s.end)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict. ``start``/``end`` are what the citation points at: the quoted sentence of an
        extractive answer (``text`` is then exactly its document text), else the whole passage."""
        p = self.passage
        target = self.quote or (p.span if p else None)
        return {
            "number": self.number, "answer_start": self.answer_start, "answer_end": self.answer_end,
            "valid": self.valid, "doc_id": p.span.doc_id if p else None, "doc_path": p.doc_path if p else None,
            "start": target.start if target else None, "end": target.end if target else None,
            "label": p.label if p else None, "text": self.quote_text,
            "passage_start": p.span.start if p else None, "passage_end": p.span.end if p else None,
            **({"score": self.score} if self.score is not None else {}),
        }


def parse_citations(answer: str, passages: Sequence[NumberedPassage]) -> list[Citation]:
    """Every citation in ``answer`` in reading order (one entry per number, ranges expanded)."""
    by_number = {p.number: p for p in passages}
    out: list[Citation] = []
    for m in _BRACKET.finditer(answer):
        for part in _PART.finditer(m.group(1)):
            lo = int(part.group(1))
            hi = int(part.group(2)) if part.group(2) else lo
            numbers = range(lo, hi + 1) if 0 <= hi - lo <= _MAX_RANGE else (lo, hi)
            out.extend(Citation(n, m.start(), m.end(), by_number.get(n)) for n in numbers)
    return out


def cited_passages(citations: Sequence[Citation]) -> list[NumberedPassage]:
    """The distinct passages cited, in order of first citation."""
    seen: dict[int, NumberedPassage] = {}
    for c in citations:
        if c.passage is not None and c.number not in seen:
            seen[c.number] = c.passage
    return list(seen.values())


def invalid_numbers(citations: Sequence[Citation]) -> list[int]:
    """Cited numbers that name no passage, in order of first citation."""
    return list(dict.fromkeys(c.number for c in citations if not c.valid))


def source_lines(citations: Sequence[Citation]) -> list[str]:
    """Human lines resolving each cited number to its source label (bad numbers flagged)."""
    lines = [f"[{p.number}] {p.label}  (chars {p.span.start}-{p.span.end})" for p in cited_passages(citations)]
    lines += [f"[{n}] (cited, but there is no passage {n})" for n in invalid_numbers(citations)]
    return lines
