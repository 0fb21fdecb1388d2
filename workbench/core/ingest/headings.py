"""Heading trees with character offsets for Markdown, reStructuredText-style underlines and wikitext.

A ``Heading`` records the span of the heading line(s) in the stored text; a heading's *section* runs
from its start to the next heading of the same or a higher level.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from workbench.core.ingest.values import Heading as Heading  # the value lives below the store

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_UNDERLINE = re.compile(r"^([=\-~^\"'*+#:._`])\1{2,}[ \t]*$")
_WIKI = re.compile(r"^[ \t]*((?:=[ \t]*)+)(.*?)((?:[ \t]*=)+)[ \t]*$")


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end_without_newline, line) for every line of ``text``."""
    out = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        out.append((pos, pos + len(line), line))
        pos += len(raw)
    return out


def parse_headings(text: str, flavour: str = "markdown") -> list[Heading]:
    """Find headings in ``text``.

    ``flavour`` is ``"markdown"`` (ATX ``#`` headings, ``===``/``---`` setext underlines, wikitext
    ``= Title =``) or ``"plain"`` (reStructuredText-style underlines of any punctuation, levels by order
    of first appearance, and wikitext). Lines inside fenced code blocks are ignored.
    """
    lines = _lines(text)
    headings: list[Heading] = []
    rst_levels: dict[str, int] = {}
    in_fence = False
    previous_is_heading = False
    for i, (start, end, line) in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            previous_is_heading = False
            continue
        if in_fence:
            continue
        found: Heading | None = None
        if flavour == "markdown":
            m = _ATX.match(line)
            if m:
                title = (m.group(2) or "").strip()
                if title:
                    found = Heading(len(m.group(1)), title, start, end)
        if found is None:
            found = _wiki_heading(line, start, end)
        if found is None and i > 0 and not previous_is_heading:
            found = _underline_heading(lines[i - 1], line, end, flavour, rst_levels)
        if found is not None:
            headings.append(found)
            previous_is_heading = True
        else:
            previous_is_heading = False
    return headings


def _wiki_heading(line: str, start: int, end: int) -> Heading | None:
    m = _WIKI.match(line)
    if not m:
        return None
    left = m.group(1).count("=")
    right = m.group(3).count("=")
    title = m.group(2).strip()
    if left != right or not title or left > 6 or "=" in title:
        return None
    return Heading(left, title, start, end)


def _underline_heading(
    prev: tuple[int, int, str], line: str, end: int, flavour: str, rst_levels: dict[str, int]
) -> Heading | None:
    p_start, _p_end, p_line = prev
    title = p_line.strip()
    m = _UNDERLINE.match(line)
    if not m or not title or _UNDERLINE.match(p_line) or p_line.startswith((" ", "\t", "-", "*", ">")):
        return None
    char = m.group(1)
    if flavour == "markdown":
        if char not in "=-":
            return None
        return Heading(1 if char == "=" else 2, title, p_start, end)
    if len(line.rstrip()) < len(title):
        return None
    level = rst_levels.setdefault(char, len(rst_levels) + 1)
    return Heading(level, title, p_start, end)


def section_end(headings: Sequence[Heading], index: int, text_length: int) -> int:
    """End offset of the section opened by ``headings[index]``."""
    level = headings[index].level
    for later in headings[index + 1 :]:
        if later.level <= level:
            return later.start
    return text_length


def heading_path_at(headings: Sequence[Heading], offset: int) -> tuple[str, ...]:
    """Titles of the enclosing headings (outermost first) for a character ``offset``."""
    starts = [h.start for h in headings]
    last = bisect.bisect_right(starts, offset) - 1
    path: list[Heading] = []
    for heading in headings[: last + 1]:
        while path and path[-1].level >= heading.level:
            path.pop()
        path.append(heading)
    return tuple(h.title for h in path)


def section_spans(headings: Sequence[Heading], text_length: int) -> list[tuple[int, int]]:
    """Non-overlapping leaf sections: the text from each heading (or the document start) to the next."""
    bounds = [0] + [h.start for h in headings if h.start > 0] + [text_length]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
