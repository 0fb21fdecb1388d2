"""Finding a benchmark's evidence text in the stored document when publishing changed it a little.

A benchmark's question file and its documents are often published apart, and what sits between them changes
characters that mean nothing to a reader: runs of spaces and line breaks, non-breaking spaces, curly and
straight quotes (single or double), the several dashes. A reference is looked for exactly first, then in text
with whitespace runs made one space, then with quotes and dashes made plain too; a match in normalised text is
mapped back to the exact span of the stored text (from its first to its last matched character), so a reference
is always a span of the stored document, never of a rewritten copy.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass

EXACT, SPACES, QUOTES = "exact", "spaces", "quotes"
HOW = (EXACT, SPACES, QUOTES)  # in the order they are tried
HOW_SAID = {EXACT: "exactly", SPACES: "after normalising spaces", QUOTES: "after normalising quotes and dashes"}

_WS = re.compile(r"\s+")  # str.split's whitespace: runs of spaces, tabs, line breaks, NBSP (U+00A0), U+2009 …
_PLAIN = str.maketrans({  # every quote mark is one mark (a question file may quote '…' where the book has “…”)
    **{q: '"' for q in "'\u2018\u2019\u201a\u201b\u2032\u0060\u00b4\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
    **{d: "-" for d in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
})  # one character for one: offsets are unchanged by this step


@dataclass(frozen=True)
class Found:
    """Where a needle was found in a text: ``[start, end)`` of the text, and how (``EXACT``, ``SPACES`` or
    ``QUOTES``); ``count`` is how many places matched at that level (2 means two or more)."""

    start: int
    end: int
    how: str
    count: int = 1


class _Collapsed:
    """A text with every whitespace run made one space, and the way back: the collapsed text is pieces, each a
    run of non-space characters then one space (standing for a whole run), kept as two arrays of starts (in the
    collapsed text and in the original); a position maps back by bisection. 16 bytes per whitespace run, not a
    list entry per character."""

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        self.at = array("q")  # where each piece starts in the collapsed text
        self.orig = array("q")  # … and in the original text
        last = length = 0
        for m in _WS.finditer(text):
            self.at.append(length)
            self.orig.append(last)
            parts.append(text[last:m.start()])
            parts.append(" ")
            length += m.start() - last + 1
            last = m.end()
        self.at.append(length)
        self.orig.append(last)
        parts.append(text[last:])
        self.text = "".join(parts)

    def original(self, pos: int) -> int:
        """The offset in the original text of the collapsed text's character at ``pos`` (a collapsed space: the
        first character of its run)."""
        i = bisect_right(self.at, pos) - 1
        return self.orig[i] + pos - self.at[i]


def _all(hay: str, needle: str, limit: int) -> list[int]:
    found: list[int] = []
    at = hay.find(needle)
    while at >= 0 and len(found) < limit:
        found.append(at)
        at = hay.find(needle, at + 1)
    return found


class Matcher:
    """One document's text, prepared once for many needles (its normalised forms are built on first use)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._spaces: _Collapsed | None = None
        self._plain: str | None = None

    def _collapsed(self) -> _Collapsed:
        if self._spaces is None:
            self._spaces = _Collapsed(self.text)
        return self._spaces

    def find(self, needle: str, near: int | None = None) -> Found | None:
        """Where ``needle`` is in the text: exactly, else after normalising whitespace, else after normalising
        quotes and dashes as well; the first level with a match wins. Where that level matches more than once,
        the occurrence nearest ``near`` is taken when ``near`` is given, else the first (``count`` says 2).
        None when the needle is blank or not found."""
        if not needle.strip():
            return None
        hits = _all(self.text, needle, 2 if near is None else 1000)
        if hits:
            at = _nearest(hits, near)
            return Found(at, at + len(needle), EXACT, min(len(hits), 2))
        collapsed = self._collapsed()
        small = " ".join(needle.split())
        for how, hay, probe in ((SPACES, collapsed.text, small), (QUOTES, None, small.translate(_PLAIN))):
            if hay is None:
                if self._plain is None:
                    self._plain = collapsed.text.translate(_PLAIN)
                hay = self._plain
            hits = _all(hay, probe, 2 if near is None else 1000)
            if hits:
                starts = [collapsed.original(h) for h in hits]
                at = _nearest(starts, near)
                first = hits[starts.index(at)]
                last = first + len(probe) - 1  # the last matched character (never a space: probe is stripped)
                return Found(at, collapsed.original(last) + 1, how, min(len(hits), 2))
        return None


def _nearest(starts: list[int], near: int | None) -> int:
    return starts[0] if near is None else min(starts, key=lambda s: (abs(s - near), s))
