"""Plots that leave the mouse wheel to the page: a wheel turn over a plot scrolls what holds it, and zooms the
plot only with Ctrl held (a plain turn zoomed the recall axis to 6.8–7.8 % with no point in view). A plot
zoomed or dragged by hand shows a *Reset zoom* button, which gives back the ranges it was drawn with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget


class CtrlWheelViewBox(pg.ViewBox):  # type: ignore[misc]  # pyqtgraph has no type information
    """A ViewBox that zooms on the wheel only with Ctrl held; otherwise the wheel event goes on to its parent."""

    def wheelEvent(self, ev: Any, axis: int | None = None) -> None:
        """Zoom with Ctrl held; else ignore the event (the page scrolls)."""
        if ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            super().wheelEvent(ev, axis)
        else:
            ev.ignore()


def reset_button(view_boxes: list[Any], redraw: Callable[[], None], parent: QWidget | None = None) -> QPushButton:
    """A hidden *Reset zoom* button that shows once any of ``view_boxes`` was zoomed or dragged by hand and,
    pressed, calls ``redraw`` (which sets the drawn ranges) and hides again."""
    button = QPushButton("Reset zoom", parent)
    button.setToolTip("Back to the ranges the data was drawn with (Ctrl + wheel zooms a plot; dragging moves it)")
    button.hide()
    for vb in view_boxes:
        vb.sigRangeChangedManually.connect(lambda *_: button.show())

    def reset() -> None:
        redraw()
        button.hide()

    button.clicked.connect(reset)
    return button
