"""Menus and keyboard shortcuts of the main window (every action names its shortcut in its tooltip)."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMainWindow

from workbench.ui.app.about import AboutDialog
from workbench.ui.app.qt_app import SAMPLE_DIR
from workbench.ui.app.settings_dialog import open_settings_dialog
from workbench.ui.library.welcome import open_welcome


def _action(window: QMainWindow, text: str, shortcut: str | QKeySequence.StandardKey | None, slot,  # noqa: ANN001
            tip: str = "", checkable: bool = False) -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    action.setToolTip(f"{tip or text} ({keys})" if keys else (tip or text))
    action.setStatusTip(tip or text)
    action.setCheckable(checkable)
    (action.toggled if checkable else action.triggered).connect(slot)
    window.addAction(action)
    return action


def focus_side(window, name: str) -> None:  # noqa: ANN001 - MainWindow
    """Put the keyboard focus on side ``name``'s results (showing B when needed)."""
    if name == "B" and not window.side_by_side.isChecked():
        window.side_by_side.setChecked(True)
    side = window.compare.a if name == "A" else window.compare.b
    side.results.setFocus()


def swap_sides(window) -> None:  # noqa: ANN001 - MainWindow
    """Exchange the strategies of A and B."""
    a, b = window.compare.a.strategy(), window.compare.b.strategy()
    window.compare.a.set_strategy(b)
    window.compare.b.set_strategy(a)
    window.show_message("Swapped strategies A and B.")


def show_about(window) -> AboutDialog:  # noqa: ANN001 - MainWindow
    """Open the About box (non-blocking)."""
    extra = [("Embedding model", window.ws.embedder.model_id), ("Data folder", str(window.ws.data_dir))]
    if window.log_file:
        extra.append(("Log file", str(window.log_file)))
    dialog = AboutDialog(extra, window)
    dialog.open()
    return dialog


def install_actions(window) -> dict[str, QAction]:  # noqa: ANN001 - MainWindow
    """Create the menus and shortcuts; returns the actions by name (also kept on ``window.actions_``)."""
    lib, ans = window.library, window.answer
    acts = {
        "add_files": _action(window, "Add files…", QKeySequence.StandardKey.Open, lib.choose_files),
        "add_folder": _action(window, "Add folder…", "Ctrl+Shift+O", lib.choose_folder),
        "settings": _action(window, "Settings…", "Ctrl+,", lambda: open_settings_dialog(window),
                            "Data folder, embedding model, answering model and Ollama host"),
        "quit": _action(window, "Quit", QKeySequence.StandardKey.Quit, window.close),
        "compare": _action(window, "Side by side A | B", "Ctrl+B", window.side_by_side.setChecked,
                           "Show strategy B next to A", checkable=True),
        "swap": _action(window, "Swap A ⇄ B", "Ctrl+Shift+B", lambda: swap_sides(window),
                        "Exchange the strategies of A and B"),
        "focus_question": _action(window, "Focus question", "Ctrl+L",
                                  lambda: (window.question.setFocus(), window.question.selectAll())),
        "focus_a": _action(window, "Focus results A", "Ctrl+1", lambda: focus_side(window, "A")),
        "focus_b": _action(window, "Focus results B", "Ctrl+2", lambda: focus_side(window, "B")),
        "focus_doc": _action(window, "Focus document view", "Ctrl+D",
                             lambda: (window.compare.set_document_shown(True),
                                      window.compare.bottom_tabs.setCurrentWidget(window.compare.doc_pane),
                                      window.compare.doc_pane.view.setFocus())),
        "explore": _action(window, "Explore", "Ctrl+E", lambda: window.set_mode("explore"),
                           "Explore mode: the question, strategies A and B and their passages"),
        "evaluate": _action(window, "Evaluate", "Ctrl+Shift+E", lambda: window.set_mode("evaluate"),
                            "Evaluation lab: question sets, sweeps, the trade-off plot and per-question scores"),
        "knobs": _action(window, "Strategy knobs", "Ctrl+K",
                         lambda: window.compare.set_knobs_shown(not window.compare.knobs_shown()),
                         "Open the strategy knobs of both sides, or collapse them to one-line summaries"),
        "library": _action(window, "Library panel", "Ctrl+Shift+L",
                           lambda: window.set_library_shown(window.left_tabs.isHidden()),
                           "Show the library and evaluation panel, or collapse it to a thin strip"),
        "document": _action(window, "Document pane", "Ctrl+Shift+D",
                            lambda: window.compare.set_document_shown(not window.compare.document_shown()),
                            "Show or hide the document view below the passages"),
        "ask": _action(window, "Ask the model", "Ctrl+Return",
                       lambda: (window.compare.bottom_tabs.setCurrentWidget(ans), ans.start())),
        "welcome": _action(window, "Welcome…", None, lambda: open_welcome(window, SAMPLE_DIR),
                           "Load the sample corpus, a benchmark with reference answers or a folder; which model answers; "
                           "where the data is"),
        "about": _action(window, "About Chunk Workbench", "F1", lambda: show_about(window)),
        "logs": _action(window, "Open log folder", None, lambda: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(window.log_file.parent))) if window.log_file else None),
    }
    window.side_by_side.toggled.connect(acts["compare"].setChecked)
    menus = window.menuBar()
    for title, names in (("&File", ["add_files", "add_folder", None, "settings", None, "quit"]),
                         ("&View", ["explore", "evaluate", None, "compare", "swap", None, "knobs", "library", "document", None, "focus_question", "focus_a", "focus_b", "focus_doc"]),
                         ("&Answer", ["ask"]),
                         ("&Help", ["welcome", "about", "logs"])):
        menu = menus.addMenu(title)
        menu.setToolTipsVisible(True)
        for name in names:
            if name is None:
                menu.addSeparator()
            else:
                menu.addAction(acts[name])
    window.actions_ = acts
    return acts
