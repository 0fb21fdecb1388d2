"""Menus and keyboard shortcuts of the main window, from one table.

``ACTIONS`` lists every action once (id, text, shortcut, menu, handler name, tip); ``install_actions``
builds the menu bar and the shortcuts from it, in ``MENUS`` order. A handler is a function of this module
registered under its name with ``@handler``; it gets the window and, for checkable actions, the new state.
Every action names its shortcut in its tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMainWindow

from workbench.ui.answer.llm_tools import open_contextualize, open_make_questions
from workbench.ui.app.about import AboutDialog
from workbench.ui.app.qt_app import SAMPLE_DIR
from workbench.ui.app.settings_dialog import open_settings_dialog
from workbench.ui.library.welcome import open_welcome

if TYPE_CHECKING:
    from workbench.ui.window.main_window import MainWindow

Shortcut = str | QKeySequence.StandardKey | None
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
    ActionSpec("settings", "Settings…", "Ctrl+,", "&File", "open_settings",
               "Data folder, embedding model, answering model and Ollama host", separator=True),
    ActionSpec("quit", "Quit", QKeySequence.StandardKey.Quit, "&File", "quit_app", separator=True),
    ActionSpec("explore", "Explore", "Ctrl+E", "&View", "explore",
               "Explore mode: the question, strategies A and B and their passages"),
    ActionSpec("evaluate", "Evaluate", "Ctrl+Shift+E", "&View", "evaluate",
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
    ActionSpec("make_questions", "Make questions…", None, "&Tools", "make_questions",
               "Write a synthetic question set from the library with the local LLM"),
    ActionSpec("welcome", "Welcome…", None, "&Help", "welcome",
               "Load the sample corpus, a benchmark with reference answers or a folder; which model answers; "
               "where the data is"),
    ActionSpec("about", "About Chunk Workbench", "F1", "&Help", "about"),
    ActionSpec("logs", "Open log folder", None, "&Help", "open_logs"),
)

HANDLERS: dict[str, Callable[..., object]] = {}


def handler(fn: Callable[..., object]) -> Callable[..., object]:
    """Register ``fn`` as the handler named like it."""
    HANDLERS[fn.__name__] = fn
    return fn


def spec(action_id: str) -> ActionSpec:
    """The table entry of ``action_id``."""
    return next(s for s in ACTIONS if s.id == action_id)


def shortcut_text(action_id: str) -> str:
    """The shortcut of ``action_id`` as the user reads it (e.g. ``Ctrl+Shift+E``; "" when none)."""
    shortcut = spec(action_id).shortcut
    return QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText) if shortcut is not None else ""


# ----- handlers (window: MainWindow) ---------------------------------------------------------------
@handler
def add_files(window: MainWindow) -> None:
    window.library.choose_files()


@handler
def add_folder(window: MainWindow) -> None:
    window.library.choose_folder()


@handler
def open_settings(window: MainWindow) -> None:
    open_settings_dialog(window)


@handler
def quit_app(window: MainWindow) -> None:
    window.close()


@handler
def explore(window: MainWindow) -> None:
    window.set_mode("explore")


@handler
def evaluate(window: MainWindow) -> None:
    window.set_mode("evaluate")


@handler
def side_by_side(window: MainWindow, checked: bool) -> None:
    window.side_by_side.setChecked(checked)


@handler
def swap_sides(window: MainWindow) -> None:
    """Exchange the strategies of A and B."""
    window.model.swap_strategies()
    window.show_message("Swapped strategies A and B.")


@handler
def toggle_knobs(window: MainWindow) -> None:
    window.compare.set_knobs_shown(not window.compare.knobs_shown())


@handler
def toggle_library(window: MainWindow) -> None:
    window.set_library_shown(window.left_tabs.isHidden())


@handler
def toggle_document(window: MainWindow) -> None:
    window.compare.set_document_shown(not window.compare.document_shown())


@handler
def focus_question(window: MainWindow) -> None:
    window.question.setFocus()
    window.question.selectAll()


def focus_side(window: MainWindow, name: str) -> None:
    """Put the keyboard focus on side ``name``'s results (showing B when needed)."""
    if name == "B" and not window.side_by_side.isChecked():
        window.side_by_side.setChecked(True)
    side = window.compare.a if name == "A" else window.compare.b
    side.results.setFocus()


@handler
def focus_a(window: MainWindow) -> None:
    focus_side(window, "A")


@handler
def focus_b(window: MainWindow) -> None:
    focus_side(window, "B")


@handler
def focus_document(window: MainWindow) -> None:
    window.compare.focus_document()


@handler
def ask(window: MainWindow) -> None:
    window.compare.show_bottom_tab(window.answer)
    window.answer.start()


@handler
def contextualize(window: MainWindow) -> None:
    window.llm_dialog_ = open_contextualize(window)


@handler
def make_questions(window: MainWindow) -> None:
    window.llm_dialog_ = open_make_questions(window)


@handler
def welcome(window: MainWindow) -> None:
    open_welcome(window, SAMPLE_DIR)


@handler
def about(window: MainWindow) -> AboutDialog:
    """Open the About box (non-blocking)."""
    extra = [("Embedding model", window.ws.embedder.model_id), ("Data folder", str(window.ws.data_dir))]
    if window.log_file:
        extra.append(("Log file", str(window.log_file)))
    dialog = AboutDialog(extra, window)
    dialog.open()
    return dialog



@handler
def open_logs(window: MainWindow) -> None:
    if window.log_file:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(window.log_file.parent)))


# ----- building ------------------------------------------------------------------------------------
def make_action(window: QMainWindow, entry: ActionSpec) -> QAction:
    """The QAction of one table entry, connected to its handler and added to ``window`` (shortcuts work
    while the window has focus, even with the menu bar hidden)."""
    action = QAction(entry.text, window)
    if entry.shortcut is not None:
        action.setShortcut(QKeySequence(entry.shortcut))
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    tip = entry.tip or entry.text
    action.setToolTip(f"{tip} ({keys})" if keys else tip)
    action.setStatusTip(tip)
    action.setCheckable(entry.checkable)
    fn = HANDLERS[entry.handler]
    if entry.checkable:
        action.toggled.connect(lambda checked, f=fn: f(window, checked))
    else:
        action.triggered.connect(lambda _checked=False, f=fn: f(window))
    window.addAction(action)
    return action


def install_actions(window: MainWindow) -> dict[str, QAction]:
    """Build the menu bar and the shortcuts from ``ACTIONS``; returns the actions by id (also kept on
    ``window.actions_``)."""
    acts = {entry.id: make_action(window, entry) for entry in ACTIONS}
    window.side_by_side.toggled.connect(acts["compare"].setChecked)
    bar = window.menuBar()
    for title in MENUS:
        menu = bar.addMenu(title)
        menu.setToolTipsVisible(True)
        for entry in (e for e in ACTIONS if e.menu == title):
            if entry.separator:
                menu.addSeparator()
            menu.addAction(acts[entry.id])
    window.actions_ = acts
    return acts
