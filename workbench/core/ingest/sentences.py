"""Sentence offsets without downloads: a rule-based splitter that returns character spans.

Boundaries: terminal punctuation (. ! ? …) followed by white space and a capital, digit, quote or
bracket, unless the word before is a known abbreviation or a single initial; blank lines; and line
breaks before Markdown headings or list items.
"""

from __future__ import annotations

import re

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "co",
    "corp", "fig", "figs", "no", "nos", "vol", "pp", "p", "approx", "dept", "est", "gen", "gov", "sen",
    "rep", "u.s", "u.k", "cf", "al", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "mt", "ft", "ave", "blvd", "rd", "eq", "ref", "ch", "sec",
}
_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_LINE_START_BLOCK = re.compile(r"\n(?=[ \t]*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s|=\s))")
_NEXT_START = re.compile(r"\s+[\"'“‘(\[]?[A-Z0-9À-ÖØ-Þ]")


def _is_abbreviation(text: str, dot: int) -> bool:
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in "([\"'":
        word_start -= 1
    word = text[word_start:dot].lower()
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True  # an initial such as "J. Smith"
    return word in _ABBREVIATIONS


def _boundaries(text: str) -> list[int]:
    cuts: set[int] = set()
    for m in _END.finditer(text):
        end = m.end()
        if not _NEXT_START.match(text, end):
            continue
        if m.group().startswith(".") and len(m.group()) == 1 and _is_abbreviation(text, m.start()):
            continue
        cuts.add(end)
    for m in _PARAGRAPH.finditer(text):
        cuts.add(m.start())
    for m in _LINE_START_BLOCK.finditer(text):
        cuts.add(m.start())
    return sorted(cuts)


def sentence_spans(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Sentences of ``text`` as ``(start, end)`` offsets (shifted by ``offset``), trimmed of white space.

    The spans are in order, do not overlap, and together cover every non-space character.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in [*_boundaries(text), len(text)]:
        piece = text[start:cut]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            spans.append((offset + start + lead, offset + start + lead + len(stripped)))
        start = cut
    return spans
