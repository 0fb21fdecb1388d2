"""The passages of one search result, in rank order, with the hit chunks highlighted inside their windows.

Each passage is a card: rank, document title and heading path, score, tokens and chunks, then the
passage text with the hit chunk(s) in a strong shade, the expanded neighbours in a light shade (with
reference spans: evidence and noise colours, the hit chunks darker — ``evidence.py``), a marker
at every chunk boundary and heading lines in bold; the sentences an extractive answer quoted get their own
colour (``set_quotes``). Clicking a card emits ``passageActivated``.
"""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QTimer, Signal
from PySide6.QtGui import QColor, QTextCursor, QTextFrameFormat
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from workbench.core.spans import Span
from workbench.ui.basics.theme import ACCENT, BORDER, CARD, MUTED, plain_format
from workbench.ui.explore.evidence import evidence_layers
from workbench.ui.explore.render import chunk_markers, every_second, insert_layers, overlap_ranges
from workbench.ui.explore.text_view import LayeredTextView

FLASH_MS = 1400  # how long a followed citation's passage card stays lit

if TYPE_CHECKING:
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace


class ResultsView(LayeredTextView):
    """Passage cards of one ``SearchResult``."""

    passageActivated = Signal(object, object)  # SearchResult, Passage

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.result: SearchResult | None = None
        self.flashed: int | None = None  # the passage whose card is flashing (a citation was followed)
        self.reference: list[Span] = []
        self.quotes: list[Span] = []
        self._card_starts: list[int] = []
        self.clicked.connect(self._text_clicked)
        self.setObjectName("results")
        self.setPlaceholderText("Type a question above and press Enter.")

    # ----- content --------------------------------------------------------------------------
    def show_result(self, result: SearchResult, reference: list[Span] | None = None, keep_scroll: bool = False) -> None:
        """Draw ``result`` (a core ``SearchResult``); ``reference`` spans are underlined and score the passages
        as evidence and noise. A new result opens at its first passage; ``keep_scroll`` keeps the place (the
        same question redrawn)."""
        self.result = result
        self.reference = list(reference or [])
        self.runtime = self.ws.sets.runtime(result.set_id)
        scroll = self.verticalScrollBar().value() if keep_scroll else 0
        cursor = self.begin()
        self._card_starts = []
        if result.warnings:
            cursor.insertText("\n".join(f"⚠ {w}" for w in result.warnings) + "\n", plain_format("#8a5300"))
        if not result.passages:
            cursor.insertText("No passages: the search returned nothing for this strategy.",
                              plain_format(MUTED, italic=True))
        for index, passage in enumerate(result.passages):
            self._card(cursor, index, passage)
        dropped = result.context.dropped
        if dropped:
            cursor.insertBlock()
            cursor.insertText(f"The {result.context.budget}-token budget dropped {len(dropped)} more "
                              f"passage(s).", plain_format(MUTED, italic=True))
        self.commit()
        self.verticalScrollBar().setValue(min(scroll, self.verticalScrollBar().maximum()))

    def set_quotes(self, spans: list[Span]) -> None:
        """Highlight ``spans`` (sentences an extractive answer quoted) wherever they lie in a shown passage;
        empty to clear. Redraws the shown result."""
        if list(spans) == self.quotes:
            return
        self.quotes = list(spans)
        if self.result is not None:
            self.show_result(self.result, self.reference, keep_scroll=True)

    def _card(self, cursor: QTextCursor, index: int, passage: Passage) -> None:
        rt, result = self.runtime, self.result
        if rt is None or result is None:
            return
        root = cursor.document().rootFrame()
        cursor.setPosition(root.lastPosition())
        frame_fmt = QTextFrameFormat()
        frame_fmt.setBackground(QColor(CARD))
        frame_fmt.setBorder(1)
        frame_fmt.setBorderBrush(QColor(BORDER))
        frame_fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame_fmt.setPadding(8)
        frame_fmt.setMargin(4)
        frame_fmt.setBottomMargin(8)
        self._card_starts.append(cursor.position())
        cursor.insertFrame(frame_fmt)
        doc = self.ws.corpus.document(passage.span.doc_id)
        doc_id = passage.span.doc_id
        best = next((h for h in result.hits if h.chunk_id == passage.hit_chunk_ids[0]), None)
        path = rt.heading_path(best.row) if best is not None else ()
        if path and path[0] == doc.title:
            path = path[1:]
        cursor.insertText(f"#{passage.rank}  ", plain_format(ACCENT, bold=True, size=11))
        cursor.insertText(doc.title or Path(doc.path).name, plain_format(bold=True, size=11))
        if path:
            cursor.insertText("  ›  " + " › ".join(path), plain_format(MUTED))
        rows = rt.chunks_in(passage.span)
        cursor.insertBlock()
        hits = len(passage.hit_chunk_ids)
        cursor.insertText(
            f"score {passage.score:.3f}  ·  {passage.tokens} tokens  ·  {len(rows)} chunk(s), "
            f"{hits} hit(s)  ·  {Path(doc.path).name}  chars {passage.span.start}–{passage.span.end}",
            plain_format(MUTED, size=9))
        cursor.insertBlock()
        chunk_spans = [rt.span(r) for r in rows]
        layers = {
            "window": [(passage.span.start, passage.span.end)],
            "hit": [(s.start, s.end) for s in passage.hit_spans],
            "alt": every_second(passage.hit_spans),
            "heading": [(h.start, h.end) for h in doc.headings],
            "overlap": overlap_ranges(chunk_spans),
            "reference": [(s.start, s.end) for s in self.reference if s.doc_id == doc_id],
            "quote": [(s.start, s.end) for s in self.quotes if s.doc_id == doc_id],
        }
        if self.reference:  # evidence / noise colouring of the passage against the reference spans
            layers |= evidence_layers([passage.span], self.reference, doc_id, kinds=("evidence", "noise"))
        insert_layers(cursor, doc_id, doc.text, passage.span.start, passage.span.end, layers,
                      chunk_markers(chunk_spans, doc.text), self.pmap, tag=index)
        for reason in passage.reasons:
            cursor.insertBlock()
            cursor.insertText(f"↳ {reason}", plain_format(MUTED, italic=True, size=9))

    # ----- reading back ---------------------------------------------------------------------
    def passage_texts(self) -> list[str]:
        """The document text of every shown passage (markers removed), in the order shown."""
        by_tag: dict[object, list[str]] = {}
        for e in self.pmap.entries:
            by_tag.setdefault(e.tag, []).append(e.text)
        return ["".join(by_tag.get(i, [])) for i in range(len(self._card_starts))]

    def passage_at_position(self, position: int) -> Passage | None:
        """The passage whose card holds Qt ``position``."""
        i = bisect.bisect_right(self._card_starts, position) - 1
        if self.result is None or i < 0 or i >= len(self.result.passages):
            return None
        return self.result.passages[i]

    def show_passage(self, index: int, flash: bool = True, at: Span | None = None) -> bool:
        """Scroll passage ``index`` (0-based) to the top and flash its card's border; False when there is none.
        With ``at`` (a sentence of the passage, e.g. the one an answer quoted) that sentence's line comes to the
        top instead (a line of the passage above it kept in view) and is selected."""
        if self.result is None or not 0 <= index < len(self._card_starts):
            return False
        doc = self.document()
        cursor = QTextCursor(doc)
        cursor.setPosition(self._card_starts[index] + 1)  # inside the card's frame
        bar = self.verticalScrollBar()
        where = self.pmap.position_of(at.doc_id, at.start, tag=index) if at is not None else None
        if where is not None and at is not None:
            line = self.fontMetrics().lineSpacing()
            target = QTextCursor(doc)
            target.setPosition(where)
            bar.setValue(bar.value() + self.cursorRect(target).top() - line - 6)
            end = self.pmap.position_of(at.doc_id, max(at.start, at.end - 1), tag=index)
            if end is not None:
                target.setPosition(end + 1, QTextCursor.MoveMode.KeepAnchor)
                self.setTextCursor(target)
        else:
            bar.setValue(bar.value() + self.cursorRect(cursor).top() - 6)
        if flash:
            frame = cursor.currentFrame()
            normal = frame.frameFormat()
            lit = frame.frameFormat()
            lit.setBorder(3)
            lit.setBorderBrush(QColor(ACCENT))
            frame.setFrameFormat(lit)
            self.flashed = index

            def restore() -> None:
                if isValid(self) and self.document() is doc and isValid(frame):
                    frame.setFrameFormat(normal)
                    self.flashed = None

            QTimer.singleShot(FLASH_MS, restore)
        return True

    def activate(self, index: int) -> None:
        """Emit ``passageActivated`` for the passage at ``index`` (0-based)."""
        if self.result is not None and 0 <= index < len(self.result.passages):
            self.passageActivated.emit(self.result, self.result.passages[index])

    def _text_clicked(self, _doc_id: int, _offset: int, tag: object) -> None:
        if isinstance(tag, int):
            self.activate(tag)

    def on_label_clicked(self, point: QPoint) -> None:
        """A click on a card's header opens that passage too."""
        passage = self.passage_at_position(self.cursorForPosition(point).position())
        if passage is not None and self.result is not None:
            self.activate(self.result.passages.index(passage))
