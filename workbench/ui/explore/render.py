"""Untrusted document text → a plain-text QTextDocument with highlight layers, and back.

Text is only ever inserted with ``QTextCursor.insertText`` (never parsed as HTML), so markup inside a
document shows as text and loads nothing. Layers (``hit``, ``window``, ``only_a`` …) are character
ranges of the stored text; they become ``QTextCharFormat`` runs whose kinds are recorded in a format
property, so what is drawn can be read back and checked (``rendered_spans``). Chunk boundaries are
marker glyphs inserted between characters; a ``PositionMap`` translates between Qt positions (UTF-16
code units, markers and labels included) and document character offsets.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

from workbench.core.spans import Span, merge_spans
from workbench.ui.basics.theme import KINDS_PROPERTY, MARKER, kinds_format, marker_format
from workbench.ui.widgets.utf16 import Utf16Map

_CONTROL = {c: " " for c in range(32) if chr(c) not in "\t\n"}
_CONTROL[0x7F] = " "
_CONTROL.update({c: "\ufffd" for c in range(0xFDD0, 0xFDF0)})  # Qt uses these for frame marks


def displayable(text: str) -> str:
    """``text`` safe to insert: same length in code points and UTF-16 units, no characters Qt would
    collapse or treat as structure (``\\r\\n`` pairs, frame marks, control characters)."""
    return text.replace("\r\n", " \n").replace("\r", "\n").translate(_CONTROL)


@dataclass(frozen=True)
class Segment:
    """A run ``[start, end)`` of document characters that belongs to the same set of layers."""

    start: int
    end: int
    kinds: frozenset[str]


def segments(start: int, end: int, layers: Mapping[str, Iterable[tuple[int, int]]],
             cuts: Iterable[int] = ()) -> list[Segment]:
    """Cut ``[start, end)`` at every layer edge and at ``cuts``; each piece knows its layers."""
    merged = {k: [(s.start, s.end) for s in merge_spans(Span(0, a, b) for a, b in spans if b > a)]
              for k, spans in layers.items()}
    points = {start, end} | {p for p in cuts if start < p < end}
    for spans in merged.values():
        for a, b in spans:
            points.update(p for p in (a, b) if start < p < end)
    ordered = sorted(points)
    cursor = dict.fromkeys(merged, 0)
    out = []
    for a, b in zip(ordered, ordered[1:], strict=False):
        kinds = set()
        for kind, spans in merged.items():
            i = cursor[kind]
            while i < len(spans) and spans[i][1] <= a:
                i += 1
            cursor[kind] = i
            if i < len(spans) and spans[i][0] < b:
                kinds.add(kind)
        out.append(Segment(a, b, frozenset(kinds)))
    return out


@dataclass
class _Entry:
    position: int  # UTF-16 position in the QTextDocument
    doc_id: int
    start: int
    end: int
    text: str
    tag: object = None
    _map: Utf16Map | None = None

    @property
    def map(self) -> Utf16Map:
        if self._map is None:
            self._map = Utf16Map(self.text)
        return self._map


@dataclass
class PositionMap:
    """Where each inserted piece of document text sits in a QTextDocument."""

    entries: list[_Entry] = field(default_factory=list)

    def add(self, position: int, doc_id: int, start: int, end: int, text: str, tag: object = None) -> None:
        """Record a piece of text inserted at ``position`` (appended in position order)."""
        self.entries.append(_Entry(position, doc_id, start, end, text, tag))

    def _entry_at(self, position: int) -> _Entry | None:
        i = bisect.bisect_right([e.position for e in self.entries], position) - 1
        if i < 0:
            return None
        e = self.entries[i]
        return e if position < e.position + e.map.utf16_length else None

    def locate(self, position: int) -> tuple[int, int, object] | None:
        """``(doc_id, character offset, tag)`` of the text at Qt ``position``, or None (labels, markers)."""
        e = self._entry_at(position)
        if e is None:
            return None
        return e.doc_id, e.start + e.map.to_code_point(position - e.position), e.tag

    def position_of(self, doc_id: int, offset: int, tag: object = None) -> int | None:
        """Qt position of character ``offset`` of document ``doc_id`` (first match, optionally by tag)."""
        for e in self.entries:
            if e.doc_id == doc_id and e.start <= offset < e.end and (tag is None or e.tag == tag):
                return e.position + e.map.to_utf16(offset - e.start)
        return None

    def to_document(self, position: int, length: int) -> list[Span]:
        """Document spans covered by the Qt range ``[position, position + length)``."""
        out = []
        for e in self.entries:
            a, b = max(position, e.position), min(position + length, e.position + e.map.utf16_length)
            if a < b:
                out.append(Span(e.doc_id, e.start + e.map.to_code_point(a - e.position),
                                e.start + e.map.to_code_point(b - e.position)))
        return out


def insert_layers(cursor: QTextCursor, doc_id: int, text: str, start: int, end: int,
                  layers: Mapping[str, Iterable[tuple[int, int]]], markers: Iterable[int],
                  pmap: PositionMap, tag: object = None,
                  marker_formats: Mapping[int, Sequence[QTextCharFormat]] | None = None) -> None:
    """Insert ``text[start:end]`` of document ``doc_id`` at ``cursor``, formatted by ``layers`` with a
    boundary marker before each offset in ``markers`` (strictly inside the range); ``marker_formats`` gives an
    offset markers of their own instead, one glyph per format (the cuts of A and B)."""
    marks = sorted({m for m in markers if start < m < end})
    formats: dict[frozenset[str], QTextCharFormat] = {}
    cursor.beginEditBlock()  # one layout pass at the end instead of one per piece
    try:
        for seg in segments(start, end, layers, marks):
            if seg.start in marks:
                for marker in (marker_formats or {}).get(seg.start) or [marker_format(seg.kinds)]:
                    cursor.insertText(MARKER, marker)
            piece = displayable(text[seg.start : seg.end])
            fmt = formats.get(seg.kinds)
            if fmt is None:
                fmt = formats[seg.kinds] = kinds_format(seg.kinds)
            pmap.add(cursor.position(), doc_id, seg.start, seg.end, piece, tag)
            cursor.insertText(piece, fmt)
    finally:
        cursor.endEditBlock()


def rendered_spans(document: QTextDocument, pmap: PositionMap, kind: str) -> list[Span]:
    """Document spans drawn with layer ``kind`` (read back from the formats of the QTextDocument).

    Fragments hold the text of each block; a line break is the separator before the next block, and its
    format is that block's ``charFormat()``.
    """
    found: list[Span] = []

    def take(fmt: QTextCharFormat, position: int, length: int) -> None:
        if kind in str(fmt.property(KINDS_PROPERTY) or "").split(","):
            found.extend(pmap.to_document(position, length))

    block = document.begin()
    while block.isValid():
        if block.position() > 0:
            take(block.charFormat(), block.position() - 1, 1)
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            take(frag.charFormat(), frag.position(), frag.length())
            it += 1
        block = block.next()
    return merge_spans(found)


def chunk_markers(spans: Sequence[Span], text: str) -> set[int]:
    """Marker offsets for chunk spans: every chunk start, and every chunk end that is not simply followed
    (after whitespace) by the next chunk's start — ends inside an overlap, or before text no chunk holds."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    marks = {s.start for s in ordered}
    followers: list[Span | None] = [*ordered[1:], None] if ordered else []
    for s, nxt in zip(ordered, followers, strict=True):
        following = text[s.end :] if nxt is None else text[s.end : nxt.start]
        if (nxt is not None and nxt.start < s.end) or following.strip():
            marks.add(s.end)
    return marks


def every_second(spans: Sequence[Span]) -> list[tuple[int, int]]:
    """The ranges of every second span in position order (the ``alt`` layer: adjacent hit chunks take two
    shades, so two hits that touch still read as two chunks)."""
    ordered = sorted(spans, key=lambda s: (s.doc_id, s.start, s.end))
    return [(s.start, s.end) for s in ordered[1::2]]


def overlap_ranges(spans: Sequence[Span]) -> list[tuple[int, int]]:
    """Ranges covered by two or more chunk spans (overlapping chunks)."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    out = []
    reach = -1
    for s in ordered:
        if s.start < reach:
            out.append((s.start, min(reach, s.end)))
        reach = max(reach, s.end)
    return out


__all__ = ["PositionMap", "Segment", "chunk_markers", "displayable", "every_second", "insert_layers",
           "overlap_ranges", "rendered_spans", "segments"]
