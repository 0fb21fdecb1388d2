"""The main window, in two modes. Explore: the library on the left (collapsible to a strip), the question
bar on top, strategies A and B with their results in the middle, the document view and the answer panel
below. Evaluate: the evaluation lab gets the whole window; a question opened there comes back to Explore."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.answer.answer_panel import AnswerPanel
from workbench.ui.app import settings as prefs
from workbench.ui.app.theme import app_stylesheet
from workbench.ui.explore.compare_view import CompareView
from workbench.ui.library.library_panel import LibraryPanel
from workbench.ui.model import WorkbenchModel
from workbench.ui.window import layout
from workbench.ui.window.actions import install_actions, shortcut_text
from workbench.ui.window.lab_links import LabLinks
from workbench.ui.window.panel_links import (
    answer_context,
    judging_reference,
    show_question_text,
    show_side_quotes,
)
from workbench.ui.window.workers import JobRunner

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace
    from workbench.ui.evaluate.eval_view import EvalView

log = logging.getLogger(__name__)


class MainWindow(LabLinks, QMainWindow):
    """The workbench window for one ``Workspace`` (injected, so tests use their own)."""

    errorShown = Signal(str)

    def __init__(self, workspace: Workspace, settings: QSettings | None = None, log_file: Path | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.settings = settings or prefs.open_settings()
        self.log_file = log_file
        self.setWindowTitle(f"Chunk Workbench — {workspace.data_dir}")
        self.setStyleSheet(app_stylesheet())
        self.store_jobs = JobRunner(1, self)  # everything that writes to the store, one at a time
        self.search_jobs = JobRunner(2, self)
        self.answer_jobs = JobRunner(1, self)
        # what the panels share (question, reference spans, strategies A and B, answering model)
        self.model = WorkbenchModel(prefs.load_strategy(self.settings, "A"), prefs.load_strategy(self.settings, "B"),
                                    prefs.load_llm(self.settings), self)
        self.compare = CompareView(workspace, self.model, self.store_jobs, self.search_jobs)
        # the panels get plain functions, not bound methods of the window (no reference cycles through it)
        self.library = LibraryPanel(workspace, self.store_jobs, self.model.chunk_configs)
        self.question = QLineEdit()  # the model's question, as typed
        self.answer = AnswerPanel(workspace, partial(answer_context, self.model), self.answer_jobs,
                                  backend=self.model.llm, judging=partial(judging_reference, self.model))
        self.compare.bottom_tabs.addTab(self.answer, "Answer")
        self.left_tabs = QTabWidget()
        self.left_tabs.addTab(self.library, "Library")
        self.modes = QStackedWidget()  # Explore (page 0) | Evaluate (page 1, the lab gets the whole window)
        self.mode_buttons: dict[str, QPushButton] = {}
        self.eval_view = self._evaluation_tab()
        self.saved_strategies_changed()
        self.question.setObjectName("question")
        self.question.setPlaceholderText("Ask the corpus a question and press Enter…")
        self.question.setToolTip("The question both strategies search for (Enter runs the search, Ctrl+L focuses)")
        self.search_button = QPushButton("Search")
        self.search_button.setObjectName("primary")
        self.search_button.setToolTip("Run the search (Enter)")
        self.side_by_side = QPushButton("Side by side A | B")
        self.side_by_side.setCheckable(True)
        self.side_by_side.setToolTip("Compare strategy B next to A on the same question (Ctrl+B)")
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("mainSplitter")
        self.library_strip = QToolButton()  # the thin strip the library collapses to
        self.library_strip.setObjectName("libraryStrip")
        self.library_strip.setCheckable(True)
        self.library_strip.setChecked(True)
        self.library_strip.setArrowType(Qt.ArrowType.LeftArrow)
        self.library_strip.setToolTip("Show or hide the library and evaluation panel (Ctrl+Shift+L)")
        self.library_strip.setSizePolicy(self.library_strip.sizePolicy().horizontalPolicy(),
                                         self.library_strip.sizePolicy().Policy.Expanding)
        self.library_strip.setFixedWidth(16)
        self._layout()
        self._wire()
        install_actions(self)
        self._restore()

    # ----- construction ---------------------------------------------------------------------
    def _evaluation_tab(self) -> EvalView | None:
        try:
            from workbench.ui.evaluate.eval_view import EvalView
        except ImportError:
            return None
        try:
            view = EvalView(self.ws, self.store_jobs)
        except Exception as exc:  # someone else's view must not keep the workbench from starting
            log.exception("evaluation view failed to start")
            self.statusBar().showMessage(f"Evaluation view unavailable: {exc}")
            return None
        holder = QScrollArea()  # a small window scrolls the lab rather than growing past the screen
        holder.setWidget(view)
        holder.setWidgetResizable(True)
        holder.setFrameShape(QScrollArea.Shape.NoFrame)
        self.lab_page = holder
        view.flip_browser.pairActivated.connect(self._open_pair)
        view.questionActivated.connect(self._drill_down)
        view.strategiesActivated.connect(self._drilled_strategies)
        view.advise.useStrategy.connect(self.model.set_strategy)
        view.advise.strategySaved.connect(self.saved_strategies_changed)
        return view

    def saved_strategies_changed(self, _name: str = "") -> None:
        """List the strategies saved in the data folder (an advice run just saved one) on both sides and in the
        lab."""
        saved = self.ws.saved_strategies()
        for side in (self.compare.a, self.compare.b):
            side.strategy_panel.set_saved(saved)
        if self.eval_view is not None:
            self.eval_view.set_saved(saved)

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(8, 8, 8, 4)
        prompt = QLabel("Question")
        prompt.setBuddy(self.question)
        bar.addWidget(prompt)
        bar.addWidget(self.question, 1)
        bar.addWidget(self.search_button)
        bar.addWidget(self.side_by_side)
        centre = QWidget()
        col = QVBoxLayout(centre)
        col.setContentsMargins(0, 0, 4, 0)
        col.addLayout(bar)
        col.addWidget(self.compare, 1)
        self.main_split.addWidget(self.left_tabs)
        self.main_split.addWidget(centre)
        self.main_split.setStretchFactor(0, 0)
        self.main_split.setStretchFactor(1, 1)
        self.main_split.setCollapsible(1, False)
        self.compare.split.setCollapsible(0, False)
        body = QWidget()
        row = QHBoxLayout(body)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.library_strip)
        row.addWidget(self.main_split, 1)
        self.modes.addWidget(body)
        if self.eval_view is not None:
            self.modes.addWidget(self.lab_page)
        self.setCentralWidget(self.modes)
        switch = self.mode_switch = QWidget()  # in the menu bar's corner: the switch costs no height
        keys = QHBoxLayout(switch)
        keys.setContentsMargins(0, 0, 6, 0)
        keys.setSpacing(0)
        self.back_to_lab = QPushButton("← Back to lab")
        self.back_to_lab.setToolTip(f"Back to the evaluation lab where you left it ({shortcut_text('evaluate')})")
        self.back_to_lab.clicked.connect(partial(self.set_mode, "evaluate"))
        self.back_to_lab.hide()
        keys.addWidget(self.back_to_lab)
        keys.addSpacing(8)
        for mode, text in (("explore", "Explore"), ("evaluate", "Evaluate")):
            key = shortcut_text(mode)  # the action table's
            button = QPushButton(text)
            button.setObjectName("mode")
            button.setCheckable(True)
            button.setAutoExclusive(True)
            button.setToolTip(f"{text} mode ({key})")
            button.clicked.connect(partial(self.set_mode, mode))
            button.setEnabled(mode == "explore" or self.eval_view is not None)
            keys.addWidget(button)
            self.mode_buttons[mode] = button
        self.mode_buttons["explore"].setChecked(True)
        self.menuBar().setCornerWidget(switch, Qt.Corner.TopRightCorner)
        self.statusBar().showMessage("Ready")

    def _wire(self) -> None:
        self.question.returnPressed.connect(self.run_search)
        self.search_button.clicked.connect(self.run_search)
        self.side_by_side.toggled.connect(self.compare.set_compare)
        self.library_strip.toggled.connect(self.set_library_shown)
        self.question.textChanged.connect(self.model.set_question)
        self.model.questionChanged.connect(partial(show_question_text, self.question))
        self.model.llmChanged.connect(self.answer.set_backend)
        self.compare.message.connect(self.show_message)
        self.library.message.connect(self.show_message)
        self.library.libraryChanged.connect(self._library_changed)
        self.library.indexingFailed.connect(self.show_error)
        self.library.indexingStarted.connect(self._library_busy)
        self.answer.message.connect(self.show_message)
        self.answer.sideQuotesChanged.connect(partial(show_side_quotes, self.compare))  # each in its side
        self.answer.sourceActivated.connect(lambda span: self.compare.show_document_at(span.doc_id, span.start))

    def _restore(self) -> None:
        s = self.settings
        prefs.restore_layout(s, self, {})  # dock/toolbar state; the geometry is checked against the screen next
        frame = layout.place_window(self, s)
        self.screen_key = layout.screen_key(layout.available_rect(self))
        restored = layout.restore_splitters(s, self.splitters(), self.screen_key)
        if "main" not in restored:
            self.main_split.setSizes([layout.LIBRARY_WIDTH, max(1, frame.width() - layout.LIBRARY_WIDTH)])
        if "results" not in restored:
            self.compare.split.setSizes(layout.default_results_sizes(max(200, frame.height() - 170)))
        empty = not self.ws.documents()  # a new user sees where documents go
        self.set_library_shown(prefs.flag(s, "view/library", empty or layout.library_starts_shown(frame.width())))
        self.compare.set_knobs_shown(prefs.flag(s, "view/knobs", False))
        self.compare.set_document_shown(prefs.flag(s, "view/document", True))
        self.side_by_side.setChecked(prefs.flag(s, "view/compare", False))
        self.question.setText(str(s.value("question", "") or ""))

    def splitters(self) -> dict[str, QSplitter]:
        """The splitters whose sizes persist."""
        return {"main": self.main_split, "results": self.compare.split, "sides": self.compare.sides}

    # ----- behaviour ------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """``explore`` (question, strategies and passages) or ``evaluate`` (the lab, whole window)."""
        if mode == "evaluate" and self.eval_view is None:
            self.show_message("The evaluation lab is unavailable.")
            return
        self.modes.setCurrentIndex(1 if mode == "evaluate" else 0)
        if mode == "evaluate":
            self.back_to_lab.hide()
        self.mode_buttons[mode].setChecked(True)

    def mode(self) -> str:
        """The current mode: ``explore`` or ``evaluate``."""
        return "evaluate" if self.modes.currentIndex() == 1 else "explore"

    def _library_busy(self) -> None:
        self.set_library_shown(True)

    def set_library_shown(self, shown: bool) -> None:
        """Show the library panel, or collapse it to the thin strip at the window's left edge."""
        self.left_tabs.setVisible(shown)
        if shown and self.main_split.sizes()[0] == 0:
            total = sum(self.main_split.sizes())
            self.main_split.setSizes([layout.LIBRARY_WIDTH, max(1, total - layout.LIBRARY_WIDTH)])
        self.library_strip.blockSignals(True)
        self.library_strip.setChecked(shown)
        self.library_strip.blockSignals(False)
        self.library_strip.setArrowType(Qt.ArrowType.LeftArrow if shown else Qt.ArrowType.RightArrow)

    def run_search(self) -> None:
        """Search the question with the visible strategies."""
        text = self.model.question
        if not text:
            self.show_message("Type a question first.")
            return
        if not self.ws.documents() and not self.library.worker:
            self.show_message("The library is empty: add files or a folder first.")
            return
        if text != self.compare.searched_question:
            for side in (self.compare.a, self.compare.b):  # an answer's quotes belong to the question it answered
                side.set_quotes([])
        self.compare.search()

    def index_sample(self, folder: Path) -> None:
        """Index the bundled sample corpus in the background (first start with an empty store)."""
        self.library.index_paths([str(folder)], "Indexing the sample corpus")

    def _library_changed(self) -> None:
        if self.compare.searched_question:
            self.compare.refresh()

    def show_message(self, text: str) -> None:
        """A message in the status bar (and the log)."""
        log.info("%s", text)
        self.statusBar().showMessage(text, 12000)

    def show_error(self, text: str) -> None:
        """An error: status bar (persistent until the next message) and the log."""
        log.error("%s", text)
        self.statusBar().showMessage(f"Error: {text}")
        self.errorShown.emit(text)

    # ----- shutdown -------------------------------------------------------------------------
    def save_settings(self) -> None:
        """Persist layout, strategies, mode and question."""
        s = self.settings
        prefs.save_layout(s, self, {})
        layout.save_splitters(s, self.splitters(), self.screen_key)
        s.setValue("view/library", self.left_tabs.isVisibleTo(self))
        s.setValue("view/knobs", self.compare.knobs_shown())
        s.setValue("view/document", self.compare.document_shown())
        prefs.save_strategy(s, "A", self.model.strategy("A"))
        prefs.save_strategy(s, "B", self.model.strategy("B"))
        s.setValue("view/compare", self.side_by_side.isChecked())
        s.setValue("question", self.question.text())
        s.sync()

    def shutdown(self) -> None:
        """Stop background jobs and wait for them (the store stays consistent)."""
        for runner in (self.answer_jobs, self.search_jobs, self.store_jobs):
            runner.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt API
        """Save settings, stop jobs, then close."""
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)
