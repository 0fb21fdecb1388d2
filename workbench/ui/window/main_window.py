"""The main window, in four tasks that each own the window below the menu bar (``tasks``): Explore (the library
on the left, collapsible to a strip, the question bar on top, strategies A and B with their results in the
middle, the document view and the answer panel below), Mark questions (the lab's Questions tab beside a large
document view), Shape cuts (the knobs open over the chunk map) — three arrangements of one page — and the Lab (the
evaluation lab gets the whole window; a question opened there comes back to Explore). Each task keeps its own
splitter sizes and panes while another has the window (``tasks.TaskState``).

The window's state lives in its ``WorkbenchModel`` (``ui/model.py``); the panels are views of it. The dialogs
and the benchmark tour are opened by ``self.dialogs`` (``dialogs.WindowDialogs``) with the model, the workspace
and callbacks, and kept there while open; the window never grows past its screen (``layout.keep_on_screen``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLayout,
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

from workbench.core.spans import Span
from workbench.ui.answer.answer_panel import AnswerPanel
from workbench.ui.basics import settings as prefs
from workbench.ui.basics.bundled import SAMPLE_DIR
from workbench.ui.basics.theme import app_stylesheet
from workbench.ui.dialogs.settings_dialog import Prober
from workbench.ui.explore.compare_view import CompareView
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.library.folder_watch import FolderWatch
from workbench.ui.library.library_panel import LibraryPanel
from workbench.ui.library.welcome import WelcomeDialog
from workbench.ui.model import WorkbenchModel
from workbench.ui.widgets.scrolling import fitted
from workbench.ui.window import layout
from workbench.ui.window.actions import Handler, install_actions, shortcut_text
from workbench.ui.window.benchmark_tour import BenchmarkTour
from workbench.ui.window.dialogs import WindowDialogs
from workbench.ui.window.reference_marking import ReferenceMarking
from workbench.ui.window.shortcuts import WindowShortcuts
from workbench.ui.window.tasks import TASK_TEXT, TASK_TIPS, TASKS, TaskState

if TYPE_CHECKING:
    from workbench.core.retrieve.strategy.presets import Strategy
    from workbench.core.workspace import Workspace
    from workbench.ui.evaluate.eval_view import EvalView

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
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
        self.model = WorkbenchModel(prefs.load_strategy(self.settings, "A"), prefs.load_strategy(self.settings, "B"),
                                    prefs.load_llm(self.settings), self)
        self.dialogs = WindowDialogs(self, self)
        self.compare = CompareView(workspace, self.model, self.store_jobs, self.search_jobs)
        self.library = LibraryPanel(workspace, self.store_jobs, self.model.chunk_configs)
        self.folder_watch = FolderWatch(workspace, self.model, self)  # the library tells what the folder holds
        self.question = QLineEdit()  # the model's question, as typed
        self.answer = AnswerPanel(workspace, self.model, self.answer_jobs)
        # the answers fill the pane (their text scrolls in its box, stats and sources stay in view); a pane
        # shorter than their least height scrolls rather than crushing them
        self.answer_page = fitted(self.answer)
        self.answer_page.setObjectName("answerPage")
        self.compare.bottom_tabs.addTab(self.answer_page, "Answer")
        # the pane fits the answer, and never holds less than the answer's least (its text ANSWER_LINES lines)
        self.compare.size_to_content(self.answer_page, self.answer.content_height,
                                     lambda: self.answer.least_height() + 2)
        space = self.compare.space  # the embedding view: its plot is of no use below PLOT_MIN pixels
        self.compare.set_least(space, space.least_height)
        self.left_tabs = QTabWidget()
        self.left_tabs.addTab(self.library, "Library")
        self.modes = QStackedWidget()  # Explore, Mark and Cuts (page 0, arranged by task) | the lab (page 1)
        self.mode_buttons: dict[str, QPushButton] = {}  # by action: explore, mark, cuts, evaluate (the lab)
        self.task = "explore"  # the task that has the window (``tasks.TASKS``)
        self.task_states = {task: TaskState() for task in TASKS}  # what each task keeps while another has it
        self.lab_page: QScrollArea | None = None
        self.eval_view = self._evaluation_tab()
        self.saved_strategies_changed()
        self.marking = ReferenceMarking(self, self)
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
        self.menu_actions = install_actions(self, self._handlers())
        self.model.sideBySideChanged.connect(self.menu_actions["compare"].setChecked)
        self.shortcuts = WindowShortcuts(self, self.menu_actions.values())
        self._restore()

    # ----- construction ---------------------------------------------------------------------
    def _evaluation_tab(self) -> EvalView | None:
        try:
            from workbench.ui.evaluate.eval_view import EvalView
        except ImportError:
            return None
        try:
            view = EvalView(self.ws, self.store_jobs, self.model)
        except Exception as exc:  # someone else's view must not keep the workbench from starting
            log.exception("evaluation view failed to start")
            self.statusBar().showMessage(f"Evaluation view unavailable: {exc}")
            return None
        self.lab_page = fitted(view)  # the lab fills the window; one smaller than its least scrolls
        self.lab_page.setObjectName("labPage")
        view.flip_browser.pairActivated.connect(self._open_pair)
        view.questionActivated.connect(self._drill_down)
        view.strategiesActivated.connect(self._open_pair)
        view.advise.useStrategy.connect(self.model.set_strategy)
        view.advise.strategySaved.connect(self.saved_strategies_changed)
        return view

    def _open_pair(self, strategy_a: Strategy, strategy_b: Strategy) -> None:
        """A flip or a configuration opened in the lab: its two configurations become strategies A and B."""
        self.model.set_strategy("A", strategy_a)
        self.model.set_strategy("B", strategy_b)

    def _drill_down(self, question: str, reference_spans: Sequence[Span]) -> None:
        """A question clicked in the lab: Explore it side by side with its reference spans drawn and scored,
        the document view on its first reference span. While marking, the question chosen beside the document
        view is shown there, the task kept."""
        if self.task == "mark":
            self.show_document_tab()
            self.compare.show_question(question, reference_spans)
            return
        self.model.set_side_by_side(True)
        self.set_mode("explore")
        self.back_to_lab.show()
        self.show_document_tab()
        self.fit_to_screen()
        self.compare.show_question(question, reference_spans)
        self.show_message("Reference spans are underlined; Ctrl+Shift+E goes back to the lab where you left it.")

    def saved_strategies_changed(self, _name: str = "") -> None:
        """The strategies saved in the data folder (an advice run just saved one) go to the model: both sides
        and the lab list them."""
        self.model.set_saved(self.ws.records.saved_strategies())

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
        if self.lab_page is not None:
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
        for task in TASKS:
            action = "evaluate" if task == "lab" else task
            key = shortcut_text(action)  # the action table's
            button = QPushButton(TASK_TEXT[task])
            button.setObjectName("mode")
            button.setCheckable(True)
            button.setAutoExclusive(True)
            button.setToolTip(f"{TASK_TIPS[task]} ({key})")
            button.clicked.connect(partial(self.set_task, task))
            button.setEnabled(task != "lab" or self.eval_view is not None)
            keys.addWidget(button)
            self.mode_buttons[action] = button
        self.mode_buttons["explore"].setChecked(True)
        self.menuBar().setCornerWidget(switch, Qt.Corner.TopRightCorner)
        self.statusBar().showMessage("Ready")
        lay = self.layout()
        if lay is not None:  # what the panels show never widens the window past its screen (keep_on_screen)
            lay.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)

    def _wire(self) -> None:
        self.question.returnPressed.connect(self.run_search)
        self.search_button.clicked.connect(self.run_search)
        self.side_by_side.toggled.connect(self.model.set_side_by_side)
        self.model.sideBySideChanged.connect(self.side_by_side.setChecked)
        self.model.modeChanged.connect(self._show_mode)
        self.library_strip.toggled.connect(self.set_library_shown)
        self.question.textChanged.connect(self.model.set_question)
        self.model.questionChanged.connect(self._show_question_text)
        self.compare.message.connect(self.show_message)
        self.library.message.connect(self.show_message)
        self.store_jobs.jobFinished.connect(self.folder_watch.poll)  # any job that wrote: read the folder now
        self.model.folderChanged.connect(self._folder_changed)
        self.model.documentsChanged.connect(self._library_changed)
        self.library.indexingFailed.connect(self.show_error)
        self.library.indexingStarted.connect(lambda: self.set_library_shown(True))
        self.answer.message.connect(self.show_message)
        self.answer.asked.connect(self._answers_in_view)
        self.answer.sizeChanged.connect(self.compare.refit)
        self.answer.sourceActivated.connect(lambda span: self.compare.show_document_at(span.doc_id, span.start))
        self.answer.citationActivated.connect(self._citation)

    def _handlers(self) -> dict[str, Handler]:
        """The action table's handlers by name (``actions.ACTIONS``)."""
        return {
            "add_files": self.library.choose_files, "add_folder": self.library.choose_folder,
            "open_settings": self.dialogs.open_settings, "quit_app": self.close,
            "explore": partial(self.set_task, "explore"), "evaluate": partial(self.set_task, "lab"),
            "mark": partial(self.set_task, "mark"), "cuts": partial(self.set_task, "cuts"),
            "side_by_side": self.model.set_side_by_side, "swap_sides": self.swap_sides,
            "toggle_knobs": lambda: self.compare.set_knobs_shown(not self.compare.knobs_shown()),
            "toggle_library": lambda: self.set_library_shown(self.left_tabs.isHidden()),
            "toggle_document": lambda: self.compare.set_document_shown(not self.compare.document_shown()),
            "focus_question": self.focus_question, "focus_a": partial(self.focus_side, "A"),
            "focus_b": partial(self.focus_side, "B"), "focus_document": self.compare.focus_document,
            "ask": self.ask, "contextualize": self.dialogs.open_contextualize,
            "make_questions": self.dialogs.open_make_questions, "welcome": self.open_welcome,
            "import_questions": self.marking.open_import, "add_reference": self.marking.add_selection,
            "about": self.dialogs.open_about, "open_logs": self.dialogs.open_logs,
        }

    def _restore(self) -> None:
        s = self.settings
        prefs.restore_layout(s, self, {})  # dock/toolbar state; the geometry is checked against the screen next
        frame = layout.place_window(self, s)
        self.screen_key = layout.screen_key(layout.available_rect(self))
        restored = layout.restore_splitters(s, self.splitters(), self.screen_key)
        for task in ("mark", "cuts"):
            self.task_states[task] = TaskState.from_json(str(s.value(f"tasks/{self.screen_key}/{task}", "") or ""))
        if "main" not in restored:
            self.main_split.setSizes([layout.LIBRARY_WIDTH, max(1, frame.width() - layout.LIBRARY_WIDTH)])
        if "results" not in restored:
            self.compare.split.setSizes(layout.default_results_sizes(max(200, frame.height() - 170)))
        # a divider the person moved stays where they put it; otherwise the heights are shared out by content
        self.compare.split_moved = "results" in restored and prefs.flag(s, "view/results_moved", False)
        empty = not self.ws.records.documents()  # a new user sees where documents go
        self.set_library_shown(prefs.flag(s, "view/library", empty or layout.library_starts_shown(frame.width())))
        self.compare.set_knobs_shown(prefs.flag(s, "view/knobs", False))
        self.compare.set_document_shown(prefs.flag(s, "view/document", True))
        self.model.set_side_by_side(prefs.flag(s, "view/compare", False))
        self.question.setText(str(s.value("question", "") or ""))

    def outer_scroll_areas(self) -> list[QScrollArea]:
        """The scroll areas that would scroll a whole page (the lab's, the answers', the embedding view's): a
        task arranged for the window shows none of their scroll bars (the answers' page scrolls to the prompt
        below them only once *Show prompt* asked for it)."""
        areas = [self.compare.space.page] + ([] if self.answer.show_prompt.isChecked() else [self.answer_page])
        return areas + ([self.lab_page] if self.lab_page is not None else [])

    def splitters(self) -> dict[str, QSplitter]:
        """The splitters whose sizes persist."""
        return {"main": self.main_split, "results": self.compare.split, "sides": self.compare.sides}

    # ----- behaviour ------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """``explore`` (question, strategies and passages) or ``evaluate`` (the lab, whole window)."""
        if mode == "evaluate" and self.eval_view is None:
            self.show_message("The evaluation lab is unavailable.")
            return
        self.model.set_mode(mode)

    def _show_mode(self, mode: str) -> None:
        """The model's mode: its page, its task's button; the lab's page hides the way back to it."""
        if mode == "evaluate" and self.task != "lab":
            self._enter("lab")
        elif mode == "explore" and self.task == "lab":
            self._enter("explore")
        self.modes.setCurrentIndex(1 if mode == "evaluate" else 0)
        if mode == "evaluate":
            self.back_to_lab.hide()

    def set_task(self, task: str) -> None:
        """Give the window to ``task`` (``tasks.TASKS``: explore, mark, cuts, lab), each as it was left."""
        if task not in TASKS:
            raise ValueError(f"no task {task!r}: one of {', '.join(TASKS)}")
        if task == "lab" and self.eval_view is None:
            self.show_message("The evaluation lab is unavailable.")
            return
        self._enter(task)
        self.model.set_mode("evaluate" if task == "lab" else "explore")

    def _enter(self, task: str) -> None:
        """Keep the state of the task that had the window, then arrange the window for ``task``."""
        if task != self.task:
            if self.task != "lab":
                self._keep_task_state(self.task)
            if self.task == "mark":
                self._questions_to_lab()
            self.task = task
            if task != "lab":
                self._arrange(task)
        self.mode_buttons["evaluate" if task == "lab" else task].setChecked(True)

    def _keep_task_state(self, task: str) -> None:
        state = self.task_states[task]
        # the library's width and the results' heights (A | B share the width as side by side says, not as kept)
        state.sizes = {name: splitter.sizes() for name, splitter in self.splitters().items() if name != "sides"}
        state.knobs = self.compare.knobs_shown()
        state.library = not self.left_tabs.isHidden()
        state.bottom = self.compare.bottom_tabs.currentIndex()
        state.split_moved = self.compare.split_moved

    def _arrange(self, task: str) -> None:
        """The Explore page as ``task`` wants it: as it was left, else the task's defaults (``Mark``: the
        question sets beside a large document view; ``Cuts``: the knobs open over the chunk map)."""
        state = self.task_states[task]
        self.compare.arrangement = task
        if task == "mark":
            self._questions_to_library_panel()
        fresh = not state.sizes
        if fresh:
            state.knobs = {"mark": False, "cuts": True}.get(task, self.compare.knobs_shown())
            state.library = True if task == "mark" else (False if task == "cuts" else not self.left_tabs.isHidden())
            state.bottom = self.compare.bottom_tabs.indexOf(self.compare.doc_pane) if task != "explore" else None
        self.set_library_shown(bool(state.library))
        self.compare.set_knobs_shown(bool(state.knobs))
        if state.bottom is not None and state.bottom >= 0:
            self.compare.set_document_shown(True)
            self.compare.bottom_tabs.setCurrentIndex(state.bottom)
        if task == "cuts" and fresh:
            self.compare.doc_pane.set_chunk_map_side("A")
        if fresh:
            width = sum(self.main_split.sizes()) or self.width()
            if task == "mark":
                left = max(layout.LIBRARY_WIDTH, int(width * 0.42))
                self.main_split.setSizes([left, max(1, width - left)])
            self.compare.split_moved = False
        else:
            for name, splitter in self.splitters().items():
                if state.sizes.get(name):
                    splitter.setSizes(state.sizes[name])
            self.compare.split_moved = state.split_moved
        self.compare.refit()

    def _questions_to_library_panel(self) -> None:
        """Marking: the lab's Questions tab sits in the left panel, beside the document view."""
        if self.eval_view is None:
            return
        tab = self.eval_view.questions_tab
        index = self.eval_view.lab_tabs.indexOf(tab)
        if index >= 0:
            self.eval_view.lab_tabs.removeTab(index)
        if self.left_tabs.indexOf(tab) < 0:
            self.left_tabs.addTab(tab, "Questions")
            tab.set_compact(True)
        self.left_tabs.setCurrentWidget(tab)

    def _questions_to_lab(self) -> None:
        """The Questions tab goes back to the lab (its third tab) when marking ends."""
        if self.eval_view is None:
            return
        tab = self.eval_view.questions_tab
        index = self.left_tabs.indexOf(tab)
        if index >= 0:
            self.left_tabs.removeTab(index)
            self.eval_view.lab_tabs.insertTab(2, tab, "Questions")
            tab.set_compact(False)
        self.left_tabs.setCurrentWidget(self.library)

    def mode(self) -> str:
        """The current mode (the model's): ``explore`` or ``evaluate``."""
        return self.model.mode

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

    def show_library_tab(self) -> None:
        """Bring the library to the front of the left panel."""
        self.left_tabs.setCurrentWidget(self.library)

    def show_side_by_side(self) -> None:
        """Show side B next to A."""
        self.model.set_side_by_side(True)

    def show_document_tab(self) -> None:
        """Bring the document view to the front of the bottom pane."""
        self.compare.set_document_shown(True)
        self.compare.show_bottom_tab(self.compare.doc_pane)

    def run_search(self) -> None:
        """Search the question with the visible strategies."""
        if not self.model.question:
            self.show_message("Type a question first.")
            return
        if not self.ws.records.documents() and not self.library.worker:
            self.show_message("The library is empty: add files or a folder first.")
            return
        self.compare.search()

    def swap_sides(self) -> None:
        """Exchange the strategies of A and B."""
        self.model.swap_strategies()
        self.show_message("Swapped strategies A and B.")

    def focus_question(self) -> None:
        """Put the keyboard focus in the question bar, its text selected."""
        self.question.setFocus()
        self.question.selectAll()

    def focus_side(self, name: str) -> None:
        """Put the keyboard focus on side ``name``'s results (showing B when needed)."""
        if name == "B":
            self.model.set_side_by_side(True)
        (self.compare.a if name == "A" else self.compare.b).results.setFocus()

    def ask(self) -> None:
        """Answer the question (the Answer tab comes to the front)."""
        self.compare.set_document_shown(True)
        self.compare.show_bottom_tab(self.answer_page)
        self.answer.start()

    def _answers_in_view(self) -> None:
        """A new Ask: the Answer tab in front, scrolled to the answers (after Show prompt it stayed on the
        prompt)."""
        self.compare.set_document_shown(True)
        self.compare.show_bottom_tab(self.answer_page)
        self.answer_page.verticalScrollBar().setValue(0)

    def _citation(self, side: str, span: Span) -> None:
        """A citation ``[n]`` of ``side``'s answer: its passage scrolls into view and flashes."""
        if side == "B":
            self.model.set_side_by_side(True)
        (self.compare.a if side == "A" else self.compare.b).show_cited(span)

    def index_sample(self, folder: Path = SAMPLE_DIR) -> Worker | None:
        """Index the bundled sample corpus in the background (the welcome's first choice)."""
        return self.library.index_paths([str(folder)], "Indexing the sample corpus")

    def _folder_changed(self, _version: int) -> None:
        """Documents or chunk sets changed (a job here, or another process): the library lists them."""
        if self.library.worker is None:  # a running library job refreshes it when it ends
            self.library.refresh()
        self.compare.doc_pane.fill_picker()  # the document picker lists the library's documents

    def _library_changed(self) -> None:
        if self.model.searched("A"):
            self.compare.refresh()

    def _show_question_text(self, question: str) -> None:
        """Show the model's ``question`` in the question bar, unless it already says that."""
        if self.question.text().strip() != question:
            self.question.setText(question)

    def show_message(self, text: str) -> None:
        """A message in the status bar (and the log)."""
        log.info("%s", text)
        self.statusBar().showMessage(text, 12000)

    def show_error(self, text: str) -> None:
        """An error: status bar (persistent until the next message) and the log."""
        log.error("%s", text)
        self.statusBar().showMessage(f"Error: {text}")
        self.errorShown.emit(text)

    # ----- dialogs and the benchmark tour (``WindowDialogs``) --------------------------------------
    def open_welcome(self, prober: Prober | None = None) -> WelcomeDialog:
        """Help → Welcome… (and the first start): pick a first library; nothing is indexed on Skip."""
        return self.dialogs.open_welcome(prober)

    def start_benchmark(self) -> BenchmarkTour:
        """The welcome's benchmark path (``benchmark_tour``) on this window."""
        return self.dialogs.start_benchmark()

    def load_in_lab(self, folder: str) -> bool:
        """Open a question set in the evaluation lab and show the lab."""
        if self.eval_view is None or not self.eval_view.load_question_set(folder):
            return False
        self.set_mode("evaluate")
        return True

    # ----- the screen -----------------------------------------------------------------------
    def fit_to_screen(self) -> None:
        """Side by side on a screen narrower than ``WIDE_ENOUGH_FOR_LIBRARY`` collapses the library to its
        strip; the window stays inside its screen's available area (``layout.keep_on_screen``)."""
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # size hints of what was just shown
        narrow = not layout.library_starts_shown(layout.available_rect(self).width())
        if self.left_tabs.isVisible() and self.model.side_by_side and narrow:
            self.set_library_shown(False)
        layout.keep_on_screen(self)

    def event(self, event: QEvent) -> bool:
        """After every layout change the window is kept inside its screen's available area."""
        handled = super().event(event)
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize, QEvent.Type.Show):
            layout.keep_on_screen(self)
        return handled

    # ----- shutdown -------------------------------------------------------------------------
    def save_settings(self) -> None:
        """Persist layout, strategies, mode and question."""
        s = self.settings
        prefs.save_layout(s, self, {})
        layout.save_splitters(s, self.splitters(), self.screen_key)
        if self.task in ("mark", "cuts"):
            self._keep_task_state(self.task)
        for task in ("mark", "cuts"):  # their arrangements, per screen size (Explore's are the splitters above)
            s.setValue(f"tasks/{self.screen_key}/{task}", self.task_states[task].to_json())
        s.setValue("view/library", self.left_tabs.isVisibleTo(self))
        s.setValue("view/knobs", self.compare.knobs_shown())
        s.setValue("view/document", self.compare.document_shown())
        s.setValue("view/results_moved", self.compare.split_moved)
        prefs.save_strategy(s, "A", self.model.strategy("A"))
        prefs.save_strategy(s, "B", self.model.strategy("B"))
        s.setValue("view/compare", self.model.side_by_side)
        s.setValue("question", self.question.text())
        s.sync()

    def shutdown(self) -> None:
        """Stop every background job of the window quietly and wait for them (the store stays consistent);
        nothing new starts afterwards (a debounced build, a probe of a dialog)."""
        for timer in self.findChildren(QTimer):
            timer.stop()
        for runner in (self.answer_jobs, self.search_jobs, *self.findChildren(JobRunner), self.store_jobs):
            runner.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Save settings, stop jobs, then close (Explore's arrangement is the one the next start opens in; the
        other tasks' arrangements are kept beside it)."""
        if self.task in ("mark", "cuts"):
            self._enter("explore")
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)


__all__ = ["MainWindow"]
