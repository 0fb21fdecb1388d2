"""A widget in a scroll area that resizes it: a small space scrolls it instead of crushing it."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QWidget


def scrolling(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that resizes it: a small space scrolls it instead of crushing it."""
    holder = QScrollArea()
    holder.setWidget(widget)
    holder.setWidgetResizable(True)
    holder.setFrameShape(QScrollArea.Shape.NoFrame)
    return holder
