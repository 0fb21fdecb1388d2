"""Menus and keyboard shortcuts of the main window, from one table.

``ACTIONS`` lists every action once (id, text, shortcut, menu, handler name, tip); ``install_actions``
builds the menu bar and the shortcuts from it, in ``MENUS`` order, with the handlers the window gives it by
name (a callable; for checkable actions it gets the new state). Every action names its shortcut in its
tooltip. Nothing here knows the window's class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

Shortcut = str | QKeySequence.StandardKey | None
Handler = Callable[..., object]
MENUS = ("&File", "&View", "&Answer", "&Tools", "&Help")


@dataclass(frozen=True)
class ActionSpec:
    """One menu entry and its shortcut; ``separator`` puts a line above it in its menu."""

    id: str
    text: str
    shortcut: Shortcut
    menu: str
    handler: str
    tip: str = ""
    checkable: bool = False
    separator: bool = False


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("add_files", "Add files…", QKeySequence.StandardKey.Open, "&File", "add_files"),
    ActionSpec("add_folder", "Add folder…", "Ctrl+Shift+O", "&File", "add_folder"),
    ActionSpec("import_questions", "Import questions…", None, "&File", "import_questions",
               "Import a benchmark's questions and evidence spans into a question set stored in the data folder"),
    ActionSpec("settings", "Settings…", "Ctrl+,", "&File", "open_settings",
               "Data folder, embedding model, answering model and Ollama host", separator=True),
    ActionSpec("quit", "Quit", QKeySequence.StandardKey.Quit, "&File", "quit_app", separator=True),
    ActionSpec("explore", "Explore", "Ctrl+E", "&View", "explore",
               "Explore mode: the question, strategies A and B and their passages"),
    ActionSpec("mark", "Mark questions", "Ctrl+Shift+M", "&View", "mark",
               "Mark questions: the stored question sets beside a large document view"),
    ActionSpec("cuts", "Shape cuts", "Ctrl+Shift+U", "&View", "cuts",
               "Shape cuts: the chunker's knobs open over the chunk map of the document"),
    ActionSpec("evaluate", "Lab", "Ctrl+Shift+E", "&View", "evaluate",
               "Evaluation lab: question sets, sweeps, the trade-off plot and per-question scores"),
    ActionSpec("compare", "Side by side A | B", "Ctrl+B", "&View", "side_by_side", "Show strategy B next to A",
               checkable=True, separator=True),
    ActionSpec("swap", "Swap A ⇄ B", "Ctrl+Shift+B", "&View", "swap_sides", "Exchange the strategies of A and B"),
    ActionSpec("knobs", "Strategy knobs", "Ctrl+K", "&View", "toggle_knobs",
               "Open the strategy knobs of both sides, or collapse them to one-line summaries", separator=True),
    ActionSpec("library", "Library panel", "Ctrl+Shift+L", "&View", "toggle_library",
               "Show the library and evaluation panel, or collapse it to a thin strip"),
    ActionSpec("document", "Document pane", "Ctrl+Shift+D", "&View", "toggle_document",
               "Show or hide the document view below the passages"),
    ActionSpec("focus_question", "Focus question", "Ctrl+L", "&View", "focus_question", separator=True),
    ActionSpec("focus_a", "Focus results A", "Ctrl+1", "&View", "focus_a"),
    ActionSpec("focus_b", "Focus results B", "Ctrl+2", "&View", "focus_b"),
    ActionSpec("focus_doc", "Focus document view", "Ctrl+D", "&View", "focus_document"),
    ActionSpec("ask", "Ask the model", "Ctrl+Return", "&Answer", "ask"),
    ActionSpec("contextualize", "Contextualize chunks…", None, "&Tools", "contextualize",
               "Build the contextual chunk set with the local LLM"),
    ActionSpec("add_reference", "Add selection as reference", "Ctrl+R", "&Tools", "add_reference",
               "The text selected in the document view becomes a reference of the question explored (a new "
               "question of the lab's chosen set), or of the question selected in the lab's Questions tab"),
    ActionSpec("make_questions", "Make questions…", None, "&Tools", "make_questions",
               "Write a synthetic question set from the library with the local LLM"),
    ActionSpec("welcome", "Welcome…", None, "&Help", "welcome",
               "Load the sample corpus, a benchmark with reference answers or a folder; which model answers; "
               "where the data is"),
    ActionSpec("about", "About Chunk Workbench", "F1", "&Help", "about"),
    ActionSpec("logs", "Open log folder", None, "&Help", "open_logs"),
)

def spec(action_id: str) -> ActionSpec:
    """The table entry of ``action_id``."""
    return next(s for s in ACTIONS if s.id == action_id)


def shortcut_text(action_id: str) -> str:
    """The shortcut of ``action_id`` as the user reads it (e.g. ``Ctrl+Shift+E``; "" when none)."""
    shortcut = spec(action_id).shortcut
    return QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText) if shortcut is not None else ""


# ----- building ------------------------------------------------------------------------------------
def make_action(window: QMainWindow, entry: ActionSpec, handlers: Mapping[str, Handler]) -> QAction:
    """The QAction of one table entry, connected to its handler (``handlers[entry.handler]``; a checkable
    action's gets the new state) and added to ``window`` (shortcuts work while the window has focus, even with
    the menu bar hidden)."""
    action = QAction(entry.text, window)
    if entry.shortcut is not None:
        action.setShortcut(QKeySequence(entry.shortcut))
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    tip = entry.tip or entry.text
    action.setToolTip(f"{tip} ({keys})" if keys else tip)
    action.setStatusTip(tip)
    action.setCheckable(entry.checkable)
    fn = handlers[entry.handler]
    if entry.checkable:
        action.toggled.connect(fn)
    else:
        action.triggered.connect(lambda _checked=False, f=fn: f())
    window.addAction(action)
    return action


def install_actions(window: QMainWindow, handlers: Mapping[str, Handler]) -> dict[str, QAction]:
    """Build the menu bar and the shortcuts from ``ACTIONS`` with ``handlers`` (by handler name; every one the
    table names is required); returns the actions by id."""
    missing = sorted({e.handler for e in ACTIONS} - set(handlers))
    if missing:
        raise ValueError(f"no handler for {', '.join(missing)}")
    acts = {entry.id: make_action(window, entry, handlers) for entry in ACTIONS}
    bar = window.menuBar()
    for title in MENUS:
        menu = bar.addMenu(title)
        menu.setToolTipsVisible(True)
        for entry in (e for e in ACTIONS if e.menu == title):
            if entry.separator:
                menu.addSeparator()
            menu.addAction(acts[entry.id])
    return acts
