"""Handles on the ends of the reference spans drawn in a document view: grab a span's start or end (the pointer
turns into a left-right arrow over it), drag, release, and ``spanMoved(old, new)`` says the reference's new
offsets; while dragging, the span it would become is highlighted. With the keyboard, Alt+Left / Alt+Right move
the end of the span under the text cursor by one character and Alt+Shift+Left / Alt+Shift+Right its start.
Ctrl+Z in the view asks for the last edit to be undone (``undoRequested``). Who owns the references (the lab's
Questions tab) decides whether a move is kept; this module only finds ends and turns points into offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

from workbench.core.spans import Span
from workbench.ui.explore.text_view import LayeredTextView
from workbench.ui.explore.view_undo import UndoSource, edit_time, view_undo

End = Literal["start", "end"]
HANDLED = (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.MouseButtonRelease)
GRAB_PX = 5  # how far from a span's end (in pixels, along its line) a press grabs it


@dataclass(frozen=True)
class Grab:
    """A span's end held by the pointer."""

    span: Span
    end: End


def moved(span: Span, end: End, offset: int) -> Span:
    """``span`` with its ``end`` moved to ``offset``, kept at least one character long."""
    if end == "start":
        return Span(span.doc_id, max(0, min(offset, span.end - 1)), span.end)
    return Span(span.doc_id, span.start, max(offset, span.start + 1))


class SpanHandles(QObject):
    """Drag handles for the reference spans of one ``LayeredTextView`` (see the module docstring)."""

    spanMoved = Signal(object, object)  # old Span, new Span
    undoRequested = Signal()

    def __init__(self, view: LayeredTextView) -> None:
        super().__init__(view)
        self.view = view
        self.spans: list[Span] = []
        self.grab: Grab | None = None
        self.preview: Span | None = None
        self.viewport = view.viewport()
        self.viewport.installEventFilter(self)
        view.installEventFilter(self)
        self.viewport.setMouseTracking(True)
        self.edits: list[float] = []  # when each reference edit still to undo was made (the view's undo orders them)
        view_undo(view).add(UndoSource(lambda: self.edits[-1] if self.edits else None, self._undo))

    def touched(self) -> None:
        """A reference edit was made (here, or by the window through this view): Ctrl+Z may take it back."""
        self.edits.append(edit_time())

    def _undo(self) -> None:
        """Ctrl+Z chose a reference edit: ask for it to be undone."""
        if self.edits:
            self.edits.pop()
        self.undoRequested.emit()

    def set_spans(self, spans: Sequence[Span]) -> None:
        """The spans whose ends can be dragged (the references drawn; empty: no handles)."""
        self.spans = list(spans)
        self.grab = self.preview = None
        self._show_preview()

    # ----- geometry ------------------------------------------------------------------------------
    def handle_at(self, point: QPoint) -> Grab | None:
        """The span end within ``GRAB_PX`` pixels of a viewport point on the same line (None: none)."""
        for span in self.spans:
            for end, offset in (("start", span.start), ("end", span.end)):
                rect = self.view.place_rect(span.doc_id, offset)
                if rect is None:
                    continue
                if abs(rect.center().x() - point.x()) <= GRAB_PX and rect.top() <= point.y() <= rect.bottom():
                    return Grab(span, end)  # type: ignore[arg-type]
        return None

    def offset_at(self, point: QPoint, doc_id: int) -> int | None:
        """The character offset of ``doc_id`` at the cursor place nearest a viewport point."""
        pos = self.view.cursorForPosition(point).position()
        where = self.view.pmap.locate(pos)
        if where is not None and where[0] == doc_id:
            return where[1]
        where = self.view.pmap.locate(pos - 1)  # just after a piece's last character
        if where is not None and where[0] == doc_id:
            return where[1] + 1
        return None

    # ----- events --------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Grab, drag and release span ends on the viewport; Alt+arrows nudge them from the keyboard. Any other
        event passes untouched (nothing of the view is called: it may be being destroyed)."""
        kind = event.type()
        if kind not in HANDLED:
            return False
        if watched is self.view and isinstance(event, QKeyEvent):
            return self._key(event)
        if watched is not self.viewport or not isinstance(event, QMouseEvent):
            return False
        point = event.position().toPoint()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            self.grab = self.handle_at(point)
            self.preview = self.grab.span if self.grab else None
            return self.grab is not None  # a grabbed end does not start a text selection
        if kind == QEvent.Type.MouseMove:
            if self.grab is None:
                over = self.handle_at(point) is not None
                self.viewport.setCursor(Qt.CursorShape.SizeHorCursor if over else Qt.CursorShape.IBeamCursor)
                return False
            offset = self.offset_at(point, self.grab.span.doc_id)
            if offset is not None:
                self.preview = moved(self.grab.span, self.grab.end, offset)
                self._show_preview()
            return True
        if kind == QEvent.Type.MouseButtonRelease and self.grab is not None:
            grab, self.grab = self.grab, None
            offset = self.offset_at(point, grab.span.doc_id)
            new = moved(grab.span, grab.end, offset) if offset is not None else grab.span
            self.preview = None
            self._show_preview()
            if new != grab.span:
                self.touched()
                self.spanMoved.emit(grab.span, new)
            return True
        return False

    def _key(self, event: QKeyEvent) -> bool:
        mods = event.modifiers()
        if not mods & Qt.KeyboardModifier.AltModifier or event.key() not in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            return False
        where = self.view.pmap.locate(self.view.textCursor().position())
        span = next((s for s in self.spans if where is not None and s.doc_id == where[0]
                     and s.start <= where[1] <= s.end), None)
        if span is None:
            return False
        step = 1 if event.key() == Qt.Key.Key_Right else -1
        end: End = "start" if mods & Qt.KeyboardModifier.ShiftModifier else "end"
        new = moved(span, end, (span.start if end == "start" else span.end) + step)
        if new != span:
            self.touched()
            self.spanMoved.emit(span, new)
        return True

    def _show_preview(self) -> None:
        """Highlight the span a drag would make (nothing when no drag)."""
        selections: list[QTextEdit.ExtraSelection] = []
        span = self.preview
        start = self.view.cursor_place(span.doc_id, span.start) if span else None
        end = self.view.cursor_place(span.doc_id, span.end) if span else None
        if start is not None and end is not None:
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(255, 200, 0, 110))
            sel.format = fmt
            cursor = QTextCursor(self.view.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            selections.append(sel)
        self.view.setExtraSelections(selections)
