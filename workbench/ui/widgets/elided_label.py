"""A one-line label that never clips its text half-way: when narrower than its text it draws the text elided
with "…" and carries the whole text in its tooltip (with any tip of its own below it)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """``text()`` is the whole text; the widget may be as narrow as its layout wants (minimum width 0)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tip = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # its text's width if it can
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show ``text`` (elided when it does not fit)."""
        super().setText(text)
        self._update_tip()

    def set_tip(self, tip: str) -> None:
        """A tooltip of the label's own, shown below the whole text when that is elided."""
        self._tip = tip
        self._update_tip()

    def minimumSizeHint(self) -> QSize:
        """Any width (the text elides), one line high."""
        return QSize(0, super().minimumSizeHint().height())

    def is_elided(self) -> bool:
        """True when the text is wider than the label."""
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def _update_tip(self) -> None:
        parts = [self.text()] if self.is_elided() and self.text() else []
        if self._tip:
            parts.append(self._tip)
        self.setToolTip("\n".join(parts))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The tooltip follows whether the text fits."""
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The label's frame, then its text elided to the width."""
        if not self.is_elided():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        self.drawFrame(painter)
        rect = self.contentsRect()
        elided = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(), elided,
                                  self.foregroundRole())
        painter.end()
