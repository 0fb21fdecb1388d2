"""Base of the results and document views: read-only plain text with layers, hover cards and clicks."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, Qt, QUrl, Signal
from PySide6.QtGui import QContextMenuEvent, QHelpEvent, QMouseEvent, QResizeEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QGraphicsOpacityEffect, QMenu, QTextEdit, QToolTip, QWidget

from workbench.core.spans import Span
from workbench.ui.basics.theme import text_font
from workbench.ui.explore.chunk_tooltip import chunk_tooltip
from workbench.ui.explore.render import PositionMap, rendered_spans

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.workspace import Workspace

log = logging.getLogger(__name__)


class LayeredTextView(QTextEdit):
    """A read-only view of document text drawn by ``render.insert_layers``.

    Subclasses fill a new document between ``begin()`` and ``commit()`` (built detached from the view,
    so it is laid out once) and record its pieces in ``self.pmap``; ``self.runtime`` is the chunk set
    whose chunks the hover card describes.
    """

    clicked = Signal(int, int, object)  # doc_id, character offset, tag of the inserted piece
    referenceRequested = Signal(list)  # the selected text as document spans: "Add as reference"

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.pmap = PositionMap()
        self.runtime: LoadedSet | None = None
        self.resource_requests: list[str] = []
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setUndoRedoEnabled(False)
        self._next: QTextDocument | None = None
        self.reset()
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self._press: QPoint | None = None
        self.menu_extras: list[Callable[[QMenu, QPoint], None]] = []  # add to the context menu (the cut editor)
        self._stale_effect: QGraphicsOpacityEffect | None = None

    # ----- safety ---------------------------------------------------------------------------
    def loadResource(self, kind: int, name: QUrl | str) -> None:
        """Never load anything: document text is untrusted and the app is offline."""
        text = name.toString() if isinstance(name, QUrl) else str(name)
        self.resource_requests.append(text)
        log.warning("refused to load resource %s", text)

    # ----- content --------------------------------------------------------------------------
    def begin(self) -> QTextCursor:
        """Start new content: a cursor on a fresh document that is shown by ``commit()``."""
        doc = QTextDocument(self)
        doc.setDefaultFont(text_font())
        doc.setDocumentMargin(10)
        doc.setUndoRedoEnabled(False)
        self._next = doc
        self.pmap = PositionMap()
        return QTextCursor(doc)

    def commit(self) -> None:
        """Show the document built since ``begin()``."""
        old, doc, self._next = self.document(), self._next, None
        if doc is None:
            return
        ours = old is not doc and old.parent() is self  # Qt deletes the document it created itself
        self.setDocument(doc)
        if ours:
            old.deleteLater()

    def reset(self) -> None:
        """Empty the view."""
        self.begin()
        self.commit()

    def rendered(self, kind: str) -> list[Span]:
        """Document spans drawn with layer ``kind`` (read back from the text formats)."""
        return rendered_spans(self.document(), self.pmap, kind)

    def set_stale(self, stale: bool) -> None:
        """Grey the view while its content is older than what was asked for."""
        if stale and self._stale_effect is None:
            self._stale_effect = QGraphicsOpacityEffect(self)
            self._stale_effect.setOpacity(0.38)
            self.setGraphicsEffect(self._stale_effect)
        if self._stale_effect is not None:
            self._stale_effect.setEnabled(stale)

    @property
    def is_stale(self) -> bool:
        """True while the view is greyed."""
        return self._stale_effect is not None and self._stale_effect.isEnabled()

    def scroll_to(self, doc_id: int, offset: int, tag: object = None) -> bool:
        """Scroll so that character ``offset`` of ``doc_id`` is visible near the top."""
        pos = self.pmap.position_of(doc_id, offset, tag)
        if pos is None:
            return False
        bar = self.verticalScrollBar()
        cursor = QTextCursor(self.document())
        cursor.setPosition(pos)
        rect = self.cursorRect(cursor)
        bar.setValue(bar.value() + rect.top() - 6)
        return True

    def top_place(self) -> tuple[int, int] | None:
        """``(doc_id, offset)`` of the text at the top of the viewport (None when nothing is drawn there): a redraw
        or a new width scrolls back to it (``scroll_to``), so the reader keeps their place."""
        found = self.locate(QPoint(8, 8))
        return (found[0], found[1]) if found is not None else None

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width re-wraps the text: the text that was at the top stays there."""
        anchor = self.top_place() if event.oldSize().width() != event.size().width() and \
            self.verticalScrollBar().value() > 0 else None
        super().resizeEvent(event)
        if anchor is not None:
            self.scroll_to(*anchor)

    def cursor_place(self, doc_id: int, offset: int) -> int | None:
        """Qt position of the cursor place before character ``offset`` of ``doc_id`` (after the last character
        drawn, for an end), or None when that text is not drawn."""
        pos = self.pmap.position_of(doc_id, offset)
        if pos is not None:
            return pos
        before = self.pmap.position_of(doc_id, offset - 1)
        return before + 1 if before is not None else None

    def place_rect(self, doc_id: int, offset: int) -> QRect | None:
        """The viewport rectangle of that cursor place (``cursor_place``), or None."""
        pos = self.cursor_place(doc_id, offset)
        if pos is None:
            return None
        cursor = QTextCursor(self.document())
        cursor.setPosition(pos)
        return self.cursorRect(cursor)

    # ----- selection as references ----------------------------------------------------------
    def selected_spans(self) -> list[Span]:
        """The selected text as spans of the stored documents (Qt's UTF-16 positions converted; labels and
        gaps between pieces left out). Pieces of one document that meet (split only by a chunk marker or a layer
        edge) are one span: a selection across a chunk boundary is one reference, not two."""
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return []
        a, b = cursor.selectionStart(), cursor.selectionEnd()
        out: list[Span] = []
        for s in self.pmap.to_document(a, b - a):
            if s.end <= s.start:
                continue
            if out and out[-1].doc_id == s.doc_id and out[-1].end == s.start:
                out[-1] = Span(s.doc_id, out[-1].start, s.end)
            else:
                out.append(s)
        return out

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The usual menu plus *Add as reference* for selected text (to the lab's current question, or a new
        one typed in the Questions tab)."""
        menu = self.createStandardContextMenu()
        spans = self.selected_spans()
        action = menu.addAction("Add as reference")
        action.setEnabled(bool(spans))
        action.setToolTip("The selected text becomes a reference span of a question in the lab's Questions tab")
        action.triggered.connect(lambda: self.referenceRequested.emit(spans))
        for extend in self.menu_extras:
            extend(menu, event.pos())
        menu.exec(event.globalPos())

    # ----- hover and click ------------------------------------------------------------------
    def locate(self, point: QPoint) -> tuple[int, int, object] | None:
        """``(doc_id, offset, tag)`` of the text under a viewport point."""
        return self.pmap.locate(self.cursorForPosition(point).position())

    def chunk_row_at(self, doc_id: int, offset: int) -> int | None:
        """Row of the chunk of ``self.runtime`` at a character: the last chunk covering it, else (for
        whitespace between chunks) the chunk before it."""
        if self.runtime is None:
            return None
        rows = self.runtime.chunks_in(Span(doc_id, offset, offset + 1))
        if rows:
            return rows[-1]
        first, end = self.runtime.doc_rows(doc_id)
        if end <= first:
            return None
        starts = self.runtime.table.starts[first:end]
        return first + max(0, int(np.searchsorted(starts, offset, side="right")) - 1)

    def hover_text(self, point: QPoint) -> str | None:
        """The hover card for a viewport point (None over labels and empty space)."""
        where = self.locate(point)
        if where is None:
            return None
        doc_id, offset, _ = where
        row = self.chunk_row_at(doc_id, offset)
        if row is None or self.runtime is None:
            return None
        return chunk_tooltip(self.runtime, row, self.ws.corpus.document(doc_id))

    def viewportEvent(self, event: QEvent) -> bool:
        """Show the chunk hover card on tooltip events."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            try:
                text = self.hover_text(event.pos())
            except Exception:  # a hover must never break the view
                log.exception("hover card failed")
                text = None
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Remember where a click starts (a drag selects text instead)."""
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click (not a drag) emits ``clicked`` for the text under the mouse."""
        super().mouseReleaseEvent(event)
        start, self._press = self._press, None
        point = event.position().toPoint()
        if event.button() != Qt.MouseButton.LeftButton or start is None:
            return
        if (point - start).manhattanLength() > 4:
            return
        where = self.locate(point)
        if where is not None:
            self.clicked.emit(*where)
        else:
            self.on_label_clicked(point)

    def on_label_clicked(self, point: QPoint) -> None:
        """Hook for clicks outside document text (headers)."""

