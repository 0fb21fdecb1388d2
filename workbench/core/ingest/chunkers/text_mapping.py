"""Mapping chunk texts back to spans, for chunkers (ecosystem libraries, user functions) that return strings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from workbench.core.ingest.chunkers.errors import ChunkerError, snippet

Cut = tuple[int, int]
"""A chunker's (start, end) character offsets in one document (``core.spans.Span`` adds the document)."""


def spans_from_texts(text: str, chunks: Iterable[str], chunker_name: str, doc_name: str) -> list[Cut]:
    """Map chunk texts (from a library that returns strings) back to spans of ``text``.

    The rule, per chunk in order: find the chunk text exactly, searching from just after the previous
    chunk's start (so overlapping chunks map too); failing that, find it with leading and trailing white
    space stripped (libraries often strip); failing that, match its words with any run of white space
    between them (libraries often re-join pieces with one space). A chunk found by none of these raises
    ``ChunkerError`` naming the chunker, the document and the chunk.
    """
    out: list[Cut] = []
    cursor = 0
    for number, chunk in enumerate(chunks):
        stripped = chunk.strip()
        if not stripped:
            continue  # an empty chunk carries no text to map
        found = text.find(chunk, cursor)
        span: Cut | None = (found, found + len(chunk)) if found >= 0 else None
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


def _words_match(text: str, start: int, words: Sequence[str]) -> int | None:
    """End of ``words`` matched at ``start`` with one or more white-space characters between them (what the
    regular expression ``\\s+``-joined words would match, without compiling one: a markdown section can be
    hundreds of thousands of characters); None when they do not match there."""
    pos, end = start, len(text)
    for i, word in enumerate(words):
        if i:
            gap = pos
            while pos < end and text[pos].isspace():
                pos += 1
            if pos == gap:
                return None
        if not text.startswith(word, pos):
            return None
        pos += len(word)
    return pos


def _hidden(c: str) -> bool:
    return c.isspace() or not c.isprintable()


def _visible_match(text: str, start: int, chunk: str) -> int | None:
    """End of ``chunk`` matched at ``start`` by its visible characters in order, any run of white space or
    unprintable characters of the text between them (for libraries that also drop characters Python deems
    unprintable inside a line: LangChain's markdown splitter turns ``"Δ\u2009In"`` into ``"ΔIn"``); None
    when it does not match there. One pass over both strings."""
    pos, end = start, len(text)
    for c in chunk:
        if _hidden(c):
            continue
        while pos < end and text[pos] != c and _hidden(text[pos]):
            pos += 1
        if pos >= end or text[pos] != c:
            return None
        pos += 1
    return pos


def spans_in_sequence(text: str, chunks: Iterable[str], chunker_name: str, doc_name: str,
                      hints: Sequence[int] | None = None) -> list[Cut]:
    """Map the chunk texts of a library that cuts the text in sequence back to spans.

    The rule: chunk ``i + 1`` starts after chunk ``i`` starts and no later than the first non-space
    character after chunk ``i`` ends (nothing is skipped; it may overlap chunk ``i``), and ends after chunk
    ``i`` ends (each chunk brings new text). There its words must appear with any white space between them.
    Among the places that
    fit, the library's own offset (``hints[i]``, when given) is taken, else the latest one (the least
    overlap: right after the previous chunk for a library that does not overlap). Repeated text therefore
    never sends a chunk to an earlier copy. When no place fits (a library that dropped text), the chunk is
    mapped by its visible characters in sequence (any white space or unprintable characters between them
    and before it; some libraries drop those inside a line), else by the rule of ``spans_from_texts`` from
    the previous chunk's start.
    """
    out: list[Cut] = []
    for number, chunk in enumerate(chunks):
        if not chunk.strip():
            continue
        prev_start, prev_end = out[-1] if out else (-1, 0)
        limit = len(text) - len(text[prev_end:].lstrip())  # first non-space character after the previous chunk
        hint = hints[number] if hints is not None and number < len(hints) else None
        if (hint is not None and prev_start < hint <= limit and chunk[0] == chunk.lstrip()[0]
                and text.startswith(chunk, hint) and hint + len(chunk.rstrip()) > prev_end):
            out.append((hint, hint + len(chunk.rstrip())))  # what the words pattern matches there, uncompiled
            continue
        words = chunk.split()
        starts = ([hint] if hint is not None and prev_start < hint <= limit else []) + list(
            range(limit, prev_start, -1))
        span = None
        for k in starts:
            found = _words_match(text, k, words)
            if found is not None and found > prev_end:
                span = (k, found)
                break
        if span is None:  # characters dropped inside the chunk: match its visible characters in sequence
            first = chunk.lstrip()[0]
            visible = prev_end  # the first character after the previous chunk that a library could keep
            while visible < len(text) and _hidden(text[visible]):
                visible += 1
            for k in range(max(limit, visible), prev_start, -1):
                found = _visible_match(text, k, chunk) if text.startswith(first, k) else None
                if found is not None and found > prev_end:
                    span = (k, found)
                    break
        if span is None:
            span = spans_from_texts(text[max(prev_start + 1, 0):], [chunk], chunker_name, doc_name)[0]
            span = (span[0] + max(prev_start + 1, 0), span[1] + max(prev_start + 1, 0))
        out.append(span)
    return out
