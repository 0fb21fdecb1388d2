"""The window's shortcuts stay application-wide while a text field has the focus.

A focused text field asks first for every key (Qt's *shortcut override*) and takes the ones its platform's
key bindings give it: under X11 a line edit takes Ctrl+E (end of line) and Ctrl+K (cut the rest of the
line), so Ctrl+E (Explore) and Ctrl+K (strategy knobs) did nothing while the question bar had the focus.
``WindowShortcuts`` answers that question for the window's own key sequences before the field does: the
window's action runs, whichever widget of the window has the focus. Dialogs keep their own keys.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QWidget


class WindowShortcuts(QObject):
    """An application event filter (a child of ``window``, removed with it) that keeps ``actions``' shortcuts
    for the window while any of its widgets has the focus."""

    def __init__(self, window: QWidget, actions: Iterable[QAction]) -> None:
        super().__init__(window)
        self.window = window
        self.sequences = {a.shortcut().toString() for a in actions if not a.shortcut().isEmpty()}
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def takes(self, event: QKeyEvent) -> bool:
        """True when ``event``'s key sequence is one of the window's shortcuts."""
        return QKeySequence(event.keyCombination()).toString() in self.sequences

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Withhold the shortcut override of the window's key sequences from the focused widget, so the
        window's action runs (the event stays unaccepted)."""
        return (event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent)
                and isinstance(watched, QWidget) and watched.window() is self.window and self.takes(event))
