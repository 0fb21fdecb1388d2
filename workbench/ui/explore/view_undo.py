"""One Ctrl+Z for a text view that several editors work through (the chunk map's cut edits, a reference's moved
ends): two shortcuts on one key are ambiguous in Qt and neither fires, so the view has one, and it takes back the
most recent edit of whichever editor made it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def edit_time() -> float:
    """When an edit was made (a monotonic clock: only its order matters)."""
    return time.monotonic()


@dataclass(frozen=True)
class UndoSource:
    """An editor's part of the view's undo: when its last edit still to undo was made (None: nothing), and how
    to take it back."""

    last_edit: Callable[[], float | None]
    undo: Callable[[], object]


class ViewUndo(QObject):
    """The view's one Ctrl+Z (see the module docstring); ``view_undo(view)`` finds or makes it."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.sources: list[UndoSource] = []
        shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), view)
        shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        shortcut.activated.connect(self.undo)

    def add(self, source: UndoSource) -> None:
        """An editor that edits through this view."""
        self.sources.append(source)

    def undo(self) -> None:
        """Take back the most recent edit (with none to take back, the first editor says so)."""
        stamped = [(t, s) for s in self.sources if (t := s.last_edit()) is not None]
        if stamped:
            max(stamped, key=lambda pair: pair[0])[1].undo()
        elif self.sources:
            self.sources[0].undo()


def view_undo(view: QWidget) -> ViewUndo:
    """The view's one undo, made the first time it is asked for."""
    found = view.findChild(ViewUndo)
    return found if found is not None else ViewUndo(view)
