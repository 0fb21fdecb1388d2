"""A widget in a scroll area that resizes it: a small space scrolls it instead of crushing it."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget


def scrolling(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that resizes it: a small space scrolls it instead of crushing it."""
    holder = QScrollArea()
    holder.setWidget(widget)
    holder.setWidgetResizable(True)
    holder.setFrameShape(QScrollArea.Shape.NoFrame)
    return holder


class _NoHeightForWidth(QVBoxLayout):
    """A layout that answers no height-for-width: a scroll area (which asks the layout) then gives its widget
    the viewport's height, which its splitters and tabs share, not the height its wrapped labels would like."""

    def hasHeightForWidth(self) -> bool:
        """No: the height is the viewport's (or the content's minimum, scrolled)."""
        return False


class _FillsViewport(QWidget):
    """Holds one widget in a ``_NoHeightForWidth`` layout."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        lay = _NoHeightForWidth(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(widget)

    def hasHeightForWidth(self) -> bool:
        """No (as its layout)."""
        return False


def fitted(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that gives it the whole viewport, scrolling only where the viewport
    is smaller than the least it needs (a page of splitters and tabs: the lab)."""
    holder = scrolling(_FillsViewport(widget))
    return holder
