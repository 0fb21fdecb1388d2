"""A combo box that never cuts its text through a letter: narrower than its current text, it draws the text
elided with "…" and puts the whole text at the top of its tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget


class ElidedComboBox(QComboBox):
    """``setToolTip`` sets the box's own tip; the whole current text is added above it while it is elided."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tip = ""
        self.currentIndexChanged.connect(lambda _i: self._update_tip())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel does not give it the focus

    def wheelEvent(self, event: QWheelEvent) -> None:
        """The wheel steps through the entries only while the box has the focus: scrolling the page past it
        (a layout that moved it under the pointer) never switches it."""
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()

    def setToolTip(self, tip: str) -> None:
        """The box's own tooltip (the whole current text goes above it while elided)."""
        self._tip = tip
        self._update_tip()

    def text_room(self) -> int:
        """The width (pixels) the current text has, next to its icon."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        icon = self.iconSize().width() + 4 if not option.currentIcon.isNull() else 0
        return max(0, field.width() - icon - 2)

    def is_elided(self) -> bool:
        """True when the current text is wider than its room."""
        return self.fontMetrics().horizontalAdvance(self.currentText()) > self.text_room()

    def _update_tip(self) -> None:
        text = self.currentText() if self.is_elided() and not self.isEditable() else ""
        super().setToolTip("\n\n".join(t for t in (text, self._tip) if t))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The tooltip follows whether the text fits."""
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The box as the style draws it, its text elided to the room it has."""
        if self.isEditable() or not self.is_elided():
            super().paintEvent(event)
            return
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideRight,
                                                           self.text_room())
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
