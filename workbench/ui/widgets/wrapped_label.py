"""A word-wrapped label whose minimum height is the lines its text needs at its width, so a layout squeezed
for height (a short pane, a splitter dragged down) gives up the room elsewhere instead of cutting its lines."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    """``QLabel`` with word wrap whose ``minimumSizeHint`` height follows ``heightForWidth`` of its width."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._lines_height = 0

    def minimumSizeHint(self) -> QSize:
        """As wide as its longest word; as high as its lines at the current width."""
        hint = super().minimumSizeHint()
        if self.width() > 0 and self.text():
            return QSize(hint.width(), max(hint.height(), self.heightForWidth(self.width())))
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width may need another number of lines: the layout hears of it."""
        super().resizeEvent(event)
        height = self.heightForWidth(self.width())
        if height != self._lines_height:
            self._lines_height = height
            self.updateGeometry()

    def setText(self, text: str) -> None:
        """Show ``text`` (the layout hears of its lines)."""
        super().setText(text)
        self._lines_height = 0
        self.updateGeometry()
