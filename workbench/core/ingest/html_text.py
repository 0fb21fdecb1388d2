"""HTML → plain text with heading offsets. Scripts, styles and remote resources are never used."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from workbench.core.ingest.headings import Heading

_BLOCK = {
    "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "ul", "ol", "li",
    "table", "tr", "pre", "blockquote", "figure", "figcaption", "dl", "dt", "dd", "br", "hr",
    "h1", "h2", "h3", "h4", "h5", "h6", "td", "th",
}
_SKIP = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACE = re.compile(r"\s+")


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.length = 0
        self.skip_depth = 0
        self.in_title = False
        self.in_pre = 0
        self.title = ""
        self.headings: list[Heading] = []
        self.open_heading: tuple[int, int, int] | None = None  # (level, start offset, parts index)

    def _emit(self, s: str) -> None:
        if s:
            self.parts.append(s)
            self.length += len(s)

    def _tail(self) -> str:
        return self.parts[-1] if self.parts else ""

    def _break(self, blank: bool) -> None:
        if not self.parts:
            return
        text_tail = "".join(self.parts[-2:])
        want = "\n\n" if blank else "\n"
        if text_tail.endswith(want):
            return
        if text_tail.endswith("\n"):
            self._emit("\n" if blank and not text_tail.endswith("\n\n") else "")
        else:
            self._emit(want)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if tag == "pre":
            self.in_pre += 1
        if tag in _BLOCK:
            self._break(blank=tag not in {"li", "br", "tr", "td", "th", "dt", "dd"})
        if tag in _HEADINGS:
            self.open_heading = (_HEADINGS[tag], self.length, len(self.parts))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if tag == "pre":
            self.in_pre = max(0, self.in_pre - 1)
        if tag in _HEADINGS and self.open_heading is not None:
            level, start, index = self.open_heading
            segment = "".join(self.parts[index:])
            title = _SPACE.sub(" ", segment).strip()
            if title:
                first = start + len(segment) - len(segment.lstrip())
                self.headings.append(Heading(level, title, first, start + len(segment.rstrip())))
            self.open_heading = None
        if tag in _BLOCK:
            self._break(blank=tag not in {"li", "tr", "td", "th", "dt", "dd"})

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
            return
        if self.skip_depth:
            return
        if self.in_pre:
            self._emit(data)
            return
        text = _SPACE.sub(" ", data)
        if not self.parts or self._tail().endswith(("\n", " ")):
            text = text.lstrip()
        self._emit(text)


def html_to_text(raw: str) -> tuple[str, list[Heading], str]:
    """Extract readable text, headings (offsets into that text) and the ``<title>`` from HTML."""
    parser = _Extractor()
    parser.feed(raw)
    parser.close()
    text = "".join(parser.parts)
    stripped = text.rstrip()
    return stripped, [h for h in parser.headings if h.end <= len(stripped)], _SPACE.sub(" ", parser.title).strip()
