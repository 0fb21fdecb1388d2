"""Mapping chunk texts back to spans, for chunkers (ecosystem libraries, user functions) that return strings."""

from __future__ import annotations

import re
from collections.abc import Iterable

from workbench.core.ingest.chunkers.errors import ChunkerError, snippet

Span = tuple[int, int]


def spans_from_texts(text: str, chunks: Iterable[str], chunker_name: str, doc_name: str) -> list[Span]:
    """Map chunk texts (from a library that returns strings) back to spans of ``text``.

    The rule, per chunk in order: find the chunk text exactly, searching from just after the previous
    chunk's start (so overlapping chunks map too); failing that, find it with leading and trailing white
    space stripped (libraries often strip); failing that, match its words with any run of white space
    between them (libraries often re-join pieces with one space). A chunk found by none of these raises
    ``ChunkerError`` naming the chunker, the document and the chunk.
    """
    out: list[Span] = []
    cursor = 0
    for number, chunk in enumerate(chunks):
        stripped = chunk.strip()
        if not stripped:
            continue  # an empty chunk carries no text to map
        found = text.find(chunk, cursor)
        span: Span | None = (found, found + len(chunk)) if found >= 0 else None
        if span is None:
            found = text.find(stripped, cursor)
            span = (found, found + len(stripped)) if found >= 0 else None
        if span is None:
            pattern = r"\s+".join(re.escape(word) for word in stripped.split())
            m = re.compile(pattern).search(text, cursor)
            span = m.span() if m else None
        if span is None:
            raise ChunkerError(f"chunker {chunker_name!r} on document {doc_name!r}: chunk {number} "
                               f"{snippet(stripped)} cannot be found in the text after offset {cursor}")
        lead = len(text[span[0]:span[1]]) - len(text[span[0]:span[1]].lstrip())
        tail = len(text[span[0]:span[1]]) - len(text[span[0]:span[1]].rstrip())
        span = (span[0] + lead, span[1] - tail)
        out.append(span)
        cursor = span[0] + 1
    return out
