"""Passages → context: token counts, duplicate removal, a token budget, and display text with headings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import heading_path_at
from workbench.core.retrieve.passages import Passage
from workbench.core.spans import Span


@dataclass(frozen=True)
class Context:
    """The passages sent to the model, their total tokens and what the budget dropped."""

    passages: tuple[Passage, ...]
    tokens: int
    chars: int
    dropped: tuple[Passage, ...] = ()
    duplicates: int = 0
    budget: int = 0


def assemble(
    passages: Sequence[Passage], doc_text: Callable[[int], str], span_tokens: Callable[[Span], int], budget: int = 0,
) -> Context:
    """Count tokens, drop passages whose text repeats an earlier one, and apply ``budget`` in rank order.

    Every passage's tokens are counted on its own text (``span_tokens``: the embedding model's tokenizer), whatever
    made it: a count carried in from a chunk set (per-chunk sums overcount a chunker's overlap) is replaced.

    Passages are added in rank order until the next one would exceed the budget; it and every lower-ranked
    passage are reported as dropped (``budget`` 0 means no limit). A first passage larger than the whole
    budget is skipped so that the context is not empty.
    """
    kept: list[Passage] = []
    dropped: list[Passage] = []
    seen: set[str] = set()
    duplicates = 0
    total = 0
    chars = 0
    stopped = False
    for p in sorted(passages, key=lambda p: p.rank):
        text = doc_text(p.span.doc_id)[p.span.start : p.span.end]
        key = " ".join(text.split())
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        tokens = span_tokens(p.span)
        p = replace(p, tokens=tokens)
        over = bool(budget) and total + tokens > budget
        if stopped or (over and kept):
            stopped = True
            dropped.append(p)
            continue
        if over:  # nothing kept yet: skip a passage larger than the whole budget, try the next
            dropped.append(p)
            continue
        kept.append(p)
        total += tokens
        chars += p.span.length
    kept = [replace(p, rank=i) for i, p in enumerate(kept, start=1)]
    return Context(tuple(kept), total, chars, tuple(dropped), duplicates, budget)


def _body_with_markdown_headings(doc: Document, start: int, end: int, keep_from: int) -> str:
    """``doc.text[start:end]`` with each heading line inside it rewritten as a Markdown heading
    (``## Heading``); heading lines that begin before ``keep_from`` are dropped instead (the caller
    already names them in its header)."""
    parts = []
    cursor = start
    for h in doc.headings:
        if h.start < start or h.end > end:
            continue
        parts.append(doc.text[cursor : h.start])
        if h.start >= keep_from:
            parts.append("#" * min(6, h.level + 1) + " " + h.title)
        cursor = h.end
    parts.append(doc.text[cursor:end])
    return "".join(parts).strip()



def passage_parts(doc: Document, passage: Passage) -> tuple[tuple[str, ...], str]:
    """``(heading path at the passage start, body)`` for prompts: the path is where the passage's text
    begins (a heading line opening the passage belongs to it and is not repeated); later heading lines
    inside the passage become Markdown headings (``## Heading``) in the body."""
    span = passage.span
    raw = doc.text[span.start : span.end]
    lead = span.start + len(raw) - len(raw.lstrip())
    path = heading_path_at(doc.headings, lead)
    return path, _body_with_markdown_headings(doc, span.start, span.end, lead + 1)


def passage_header(doc: Document, passage: Passage) -> tuple[str, str]:
    """``(label, body)`` of a passage as the model sees it: one header, ``[source] Title > heading path``
    (the path at the passage start, the title once), then the text with later section changes as Markdown
    headings."""
    source = Path(doc.path).name if doc.path else doc.title
    heads, body = passage_parts(doc, passage)
    path = list(heads)
    if doc.title and (not path or path[0] != doc.title) and doc.title != source:
        path.insert(0, doc.title)
    return f"[{source}] {' > '.join(path)}".rstrip(), body
