"""The evaluation lab view: load a question set, pick strategies, a sweep and budgets, run it in the background,
see the summary table, the recall / IoU vs context-tokens trade-off and (with budgets) one recall curve per
strategy, drill into questions, export.

The lab is a view of the window's model (``ui/model.py``): a finished run becomes the model's current run,
which gives every configuration its colour (the same in the table's swatch, both plots and the flips) and
holds the selected configuration; the tables and plots follow the model's ``runChanged`` and
``selectionChanged``. ``EvalView(workspace)`` also works on its own (with a model of its own). The main window
shows it as its Evaluate mode, passes its store queue (``store_jobs``: a sweep builds chunk sets and records
its run, so it writes to the store like every other GUI job, one at a time) and connects
``questionActivated(question, reference_spans)`` to its side-by-side view.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.curves import budget_curves, has_budgets
from workbench.core.evaluate.datasets import corpus_documents, load_question_set
from workbench.core.evaluate.export import ExportError, export_results, summary_rows
from workbench.core.evaluate.question_set_power import power_line
from workbench.core.evaluate.records import list_runs, load_run
from workbench.core.evaluate.sweep import ConfigResult, compare_rows
from workbench.core.outputs import write_files
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.ui.basics.wording import for_the_window
from workbench.ui.evaluate.advise_view import AdviseView
from workbench.ui.evaluate.baseline_panel import BaselinePanel
from workbench.ui.evaluate.curve_panel import CurvePanel
from workbench.ui.evaluate.drill_down import first_differing_question, other_configuration
from workbench.ui.evaluate.eval_tables import (
    change_words,
    fill_compare_to,
    fill_questions,
    fill_summary,
    make_table,
    question_columns,
    summary_columns,
    table_width,
)
from workbench.ui.evaluate.flip_browser import FlipBrowser
from workbench.ui.evaluate.lab_inputs import LabInputs, fill_bundled_menu
from workbench.ui.evaluate.questions_view import QuestionsView
from workbench.ui.evaluate.sweep_job import export_line
from workbench.ui.evaluate.sweep_run import SweepRun
from workbench.ui.evaluate.tradeoff_plot import TradeoffPlot
from workbench.ui.jobs.workers import JobRunner
from workbench.ui.model import WorkbenchModel
from workbench.ui.widgets.elided_combo import ElidedComboBox

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent

    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace


PLOT_MIN = 200  # a plot's least useful height (``window.rooms`` checks it at the window's opening sizes)


class EvalView(QWidget):
    """Evaluation lab: strategies × sweep over a question set, with table, plot, drill-down and export."""

    questionActivated = Signal(str, list)
    runFinished = Signal(str)  # run id
    strategiesActivated = Signal(object, object)  # (A, B): a configuration opened in Explore

    def __init__(self, workspace: Workspace, store_jobs: JobRunner | None = None,
                 model: WorkbenchModel | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model if model is not None else WorkbenchModel(parent=self)
        self.jobs = store_jobs if store_jobs is not None else JobRunner(1, self)  # the one store writer
        self.pool = self.jobs.pool
        self.inputs = LabInputs()
        self.stored_set = ""  # the name of the set stored in the data folder the lab runs on ("" for a folder)
        self.stored_notes: list[str] = []  # what loading the stored set left out, and why
        self.sweep = SweepRun(workspace, self.inputs, self.jobs, self.model, self._on_recorded)
        i = self.inputs
        self.open_button, self.bundled_button, self.bundled_menu = i.open_button, i.bundled_button, i.bundled_menu
        self.set_label, self.limit, self.strategies, self.grid, self.budgets = (i.set_label, i.limit, i.strategies,
                                                                                i.grid, i.budgets)
        self.run_button, self.cancel_button, self.progress, self.status = (i.run_button, i.cancel_button,
                                                                           i.progress, i.status)
        self.runs, self.open_run_button, self.export_button = i.runs, i.open_run_button, i.export_button
        self.summary: QTableWidget = make_table(summary_columns())
        self.plot = TradeoffPlot()
        self.recall_plot, self.iou_plot = self.plot.recall_plot, self.plot.iou_plot
        self.curves = CurvePanel()
        self.curve_plot = self.curves.plot
        self.plot_tabs = QTabWidget()
        self.compare_to = ElidedComboBox()
        self.compare_to.setToolTip("Mark each question on which this configuration or the one chosen here recalls "
                                   "more (the last column: which is better, by how many points)")
        self.questions: QTableWidget = make_table(question_columns())
        self.flip_browser = FlipBrowser(self.reference_spans)
        self.baseline_panel = BaselinePanel()
        self.lower_tabs = QTabWidget()
        self.top_split = QSplitter(Qt.Orientation.Horizontal)
        self.advise = AdviseView(self.ws, self.jobs, self.model, self.reference_spans)
        self.questions_tab = QuestionsView(self.ws)
        self.lab_tabs = QTabWidget()
        self.model.set_saved(self.ws.records.saved_strategies())
        self._show_saved()
        self._layout()
        self._wire()
        fill_bundled_menu(self.bundled_menu, self.load_question_set)
        self.refresh_runs()

    def _layout(self) -> None:
        self.questions.setSortingEnabled(True)
        header = self.questions.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the question text gets the room …
        for col in range(2, self.questions.columnCount()):  # … the figures' headers are read whole
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        row = QHBoxLayout()
        row.addWidget(QLabel("Questions of the selected configuration; compare with"))
        row.addWidget(self.compare_to, 1)
        lower_layout.addLayout(row)
        lower_layout.addWidget(self.questions)
        self.top_split.addWidget(self.summary)
        self.plot_tabs.addTab(self.plot, "Trade-off")
        self.plot_tabs.addTab(self.curves, "Curves by budget")
        self.top_split.addWidget(self.plot_tabs)
        self.lower_tabs.addTab(lower, "Questions")
        self.lower_tabs.addTab(self.flip_browser, "Flips A ↔ B")
        self.lower_tabs.addTab(self.baseline_panel, "Against a baseline")
        split = self.sweep_split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.top_split)
        split.addWidget(self.lower_tabs)
        split.setChildrenCollapsible(False)  # a dragged divider stops at a pane's least, never hides it
        split.setStretchFactor(0, 3)  # the plots take the height first …
        split.setStretchFactor(1, 2)
        for plot in (self.plot.view, self.curve_plot):  # … a plot is of no use below PLOT_MIN pixels
            plot.setMinimumHeight(PLOT_MIN)
        sweep_page = QWidget()  # the lab's first tab; the advisor is the second
        sweep_layout = QVBoxLayout(sweep_page)
        sweep_layout.setContentsMargins(6, 4, 6, 4)  # the plots keep the pixels (1280×720 without scrolling)
        sweep_layout.setSpacing(4)
        sweep_layout.addWidget(self.inputs)
        sweep_layout.addWidget(split, 1)
        self.lab_tabs.addTab(sweep_page, "Sweep")
        self.lab_tabs.addTab(self.advise, "Advise")
        self.lab_tabs.addTab(self.questions_tab, "Questions")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.lab_tabs)

    def _wire(self) -> None:
        self.bundled_menu.aboutToShow.connect(self.fill_bundled_menu)
        self.open_button.clicked.connect(self._choose_set)
        self.inputs.reviewed_only.toggled.connect(lambda _on: self.stored_set and self.load_stored_set(self.stored_set))
        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.open_run_button.clicked.connect(lambda: self.open_run(self.runs.currentData()))
        self.export_button.clicked.connect(self._choose_export)
        self.summary.itemSelectionChanged.connect(self._summary_selected)
        self.compare_to.currentIndexChanged.connect(lambda _i: self._show_questions())
        self.questions.itemActivated.connect(self._activate)
        self.flip_browser.questionActivated.connect(self.questionActivated)
        self.summary.itemActivated.connect(self._configuration_activated)
        self.plot.pointClicked.connect(self.open_configuration)
        self.curve_plot.pointClicked.connect(self.select_configuration)
        self.model.runChanged.connect(self._show_run)
        self.model.questionSetChanged.connect(self._show_question_set)
        self.limit.valueChanged.connect(lambda _n: self._show_question_set())
        self.model.savedChanged.connect(self._show_saved)
        self.model.selectionChanged.connect(self._selection_changed)
        self.advise.strategiesActivated.connect(self.strategiesActivated)
        self.advise.questionActivated.connect(self.questionActivated)
        self.questions_tab.questionActivated.connect(self.questionActivated)
        self.questions_tab.evaluateSet.connect(self.evaluate_stored_set)
        self.questions_tab.setsShown.connect(self._follow_stored_set)
        self.model.documentsChanged.connect(lambda: self.questions_tab.refresh())  # counts and states follow

    # ----- inputs ----------------------------------------------------------------------------
    def _choose_set(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Question set folder (questions.csv + corpora/)")
        if folder:
            self.load_question_set(folder)

    def fill_bundled_menu(self) -> None:
        """List the bundled question sets (whatever ``bundled_sets()`` finds now) in the *Bundled* menu, then the
        sets stored in the data folder."""
        fill_bundled_menu(self.bundled_menu, self.load_question_set)
        sets = self.ws.questions.sets()
        if sets:
            self.bundled_menu.addSection("Stored in this data folder")
        for info in sets:
            action = self.bundled_menu.addAction(f"{info.name}  ({info.questions} questions)")
            action.setData(f"stored:{info.name}")
            action.triggered.connect(lambda _checked=False, name=info.name: self.load_stored_set(name))

    def evaluate_stored_set(self, name: str) -> bool:
        """*Evaluate this set*: the stored set becomes the lab's, and the sweep starts with the checked
        strategies."""
        if not self.load_stored_set(name):
            return False
        qset = self.model.question_set
        total = len(self.ws.questions.read(name).questions)
        kept = len(qset.questions) if qset is not None else 0
        notes = "; ".join(self.stored_notes)
        words = for_the_window(f"Evaluating {kept} of {total} question(s) of {name}" + (f": {notes}" if notes else ""))
        self.questions_tab.status.setText(words)
        self.lab_tabs.setCurrentIndex(0)
        started = self.start()
        if started and kept < total:  # the sweep's line says what it leaves out, too
            self.status.setText(f"{self.status.text()} — {words}")
        return started

    def load_stored_set(self, name: str) -> bool:
        """Make the set ``name`` stored in the data folder the lab's set (its unreviewed drafts left out when
        *Reviewed only* is checked); what was left out, and how many drafts are unreviewed, in the status line."""
        try:
            view = self.ws.questions.question_set(name, self.inputs.reviewed_only.isChecked())
        except (KeyError, ValueError) as exc:
            self.status.setText(for_the_window(f"cannot use {name}: {exc.args[0] if exc.args else exc}"))
            return False
        self.stored_set = name
        self.model.set_question_set(view.qset)
        notes = list(view.left_out)
        if view.unreviewed and not self.inputs.reviewed_only.isChecked():
            notes.append(f"{view.unreviewed} unreviewed draft(s) are scored with the rest (Reviewed only leaves "
                         "them out)")
        self.stored_notes = notes
        self.status.setText(for_the_window("; ".join(notes)))
        return True

    def _follow_stored_set(self) -> None:
        """The Questions tab changed (or showed) its sets: a stored set loaded here follows its stored questions,
        and goes when it was deleted, so the lab never offers a set as it no longer is."""
        name, loaded = self.stored_set, self.model.question_set
        if not name or loaded is None:
            return
        if name not in self.ws.questions.names():
            self.stored_set = ""
            self.model.set_question_set(None)
            self.set_label.setText(for_the_window(f"the question set {name!r} was deleted: load another (Bundled ▾)"))
            self.set_label.setToolTip("")
            return
        view = self.ws.questions.question_set(name, self.inputs.reviewed_only.isChecked())
        if view.qset.dataset_hash != loaded.dataset_hash:
            self.model.set_question_set(view.qset)

    def load_question_set(self, folder: str | Path, corpus: str | None = None) -> bool:
        """Load (and check) a question set — a folder or a bundled set's name — optionally only the questions
        of one ``corpus``; problems are shown in the status line."""
        self.stored_set = ""
        try:
            qset = load_question_set(folder)
            self.model.set_question_set(qset.subset(corpus=corpus) if corpus else qset)
        except ValueError as exc:
            self.status.setText(f"cannot use {folder}: {exc}")
            return False
        return True

    def _show_question_set(self) -> None:
        """The model's question set: its name, size and scope above the inputs."""
        qset = self.model.question_set
        if qset is not None:
            total, limit = len(qset.questions), self.limit.value()
            run = min(limit, total) if limit else total  # the noise line speaks of the questions a run scores
            size = f"{total} questions" if run == total else f"{total} questions, {run} run (the question limit)"
            self.set_label.setText(for_the_window(f"{qset.name}: {size}; {qset.scope_line()}. {power_line(run)}"))
            self.set_label.setToolTip("Searched: " + ", ".join(qset.searched_corpora()))

    def checked_strategies(self) -> list[str]:
        """Names of the checked presets."""
        return self.inputs.checked_strategies()

    def _show_saved(self) -> None:
        """List the model's saved strategies (in the data folder) after the presets (checked ones stay
        checked)."""
        self.inputs.set_saved(self.model.saved)

    def set_checked(self, names: list[str]) -> None:
        """Check exactly these presets."""
        self.inputs.set_checked(names)

    # ----- running (``SweepRun``) ---------------------------------------------------------------
    def start(self, strategies: Sequence[Strategy] | None = None, grid: str | None = None,
              budgets: str | None = None, limit: int | None = None) -> bool:
        """Start the sweep in the background (``SweepRun.start``); False (with a status message) when inputs
        are missing."""
        return self.sweep.start(strategies, grid, budgets, limit)

    @property
    def running(self) -> bool:
        """True while a sweep runs."""
        return self.sweep.running

    def cancel(self) -> None:
        """Ask the running sweep to stop."""
        self.sweep.cancel()

    def _on_recorded(self, run_id: str, results: list[ConfigResult]) -> None:
        self.show_results(run_id, results)
        self.refresh_runs()
        self.runFinished.emit(run_id)

    # ----- results ---------------------------------------------------------------------------
    @property
    def results(self) -> list[ConfigResult]:
        """The configurations of the lab's current run (the model's; [] before the first)."""
        run = self.model.run
        return list(run.results) if run is not None else []

    @property
    def run_id(self) -> str:
        """The id of the lab's current run ("" before the first)."""
        run = self.model.run
        return run.run_id if run is not None else ""

    def refresh_runs(self) -> None:
        """Fill the recorded-runs menu: each run by its set, size and time (the whole line in its tooltip)."""
        self.runs.clear()
        for r in list_runs(self.ws):
            text = f"{r.label} · {len(r.config_keys)} configs · {r.started[:16].replace('T', ' ')}"
            self.runs.addItem(text, r.id)
            self.runs.setItemData(self.runs.count() - 1, f"{text}\nrun {r.id}", Qt.ItemDataRole.ToolTipRole)
        # the run shown is the one named; with none shown (a new start) none is named over empty tables
        self.runs.setPlaceholderText(f"{self.runs.count()} recorded run(s): choose one, then Open run")
        self.runs.setCurrentIndex(self.runs.findData(self.run_id) if self.run_id else -1)

    def open_run(self, run_id: str | None) -> None:
        """Show a recorded run."""
        if run_id:
            info, results = load_run(self.ws, run_id)
            dataset = info.config.get("dataset", {})
            path = dataset.get("path")
            qset = self.model.question_set
            if dataset.get("stored") and (qset is None or qset.name != dataset.get("name")):
                self.load_stored_set(str(dataset.get("name")))  # a set stored in the data folder
            elif (qset is None or str(qset.root) != path) and path and Path(path).is_dir():
                self.load_question_set(path)  # for the reference spans of the drill-down
            self.show_results(info.id, results)
            self.runs.setCurrentIndex(self.runs.findData(info.id))  # the run named is the run shown

    def show_results(self, run_id: str, results: list[ConfigResult]) -> None:
        """Make ``results`` the lab's current run (the model's): the tables and plots follow."""
        self.model.set_run(run_id, results)

    def _show_run(self) -> None:
        """The model's current run: summary table with swatches, both plots, flips, baseline and the *compare
        with* choices, in the run's configuration colours."""
        results, colours = self.results, self.model.colours
        self.export_button.setEnabled(bool(results))
        rows = summary_rows(results)
        self.plot.draw(rows, colours)
        self.curves.show_curves(budget_curves(results) if has_budgets(results) else [], colours)
        self.plot_tabs.setCurrentWidget(self.curves if self.curves.curves else self.plot)
        self.summary.blockSignals(True)
        fill_summary(self.summary, rows, colours)
        self.summary.clearSelection()
        self.summary.blockSignals(False)
        self._fit_summary()
        QTimer.singleShot(0, self._fit_summary)  # again once the table has laid out its headers
        self.flip_browser.set_results(results, colours)
        self.baseline_panel.set_results(results)
        fill_compare_to(self.compare_to, results, colours)
        self._selection_changed(self.model.selected)

    def summary_width(self) -> int:
        """The width the summary table needs to show every column without scrolling."""
        return table_width(self.summary)

    def _fit_summary(self) -> None:
        """Give the summary table the width of all its columns (the plot takes the rest, when it can)."""
        total = sum(self.top_split.sizes())
        need = self.summary_width()
        if total > 0 and self.top_split.sizes()[0] < need:
            self.top_split.setSizes([need, max(1, total - need)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the summary's columns in view when the lab is resized."""
        super().resizeEvent(event)
        if self.results:
            self._fit_summary()

    def selected_result(self) -> ConfigResult | None:
        """The configuration selected (the model's)."""
        return self.model.selected_result()

    def _summary_selected(self) -> None:
        rows = self.summary.selectionModel().selectedRows()
        results = self.results
        if rows and rows[0].row() < len(results):
            self.model.select_configuration(results[rows[0].row()].config.key)

    def _selection_changed(self, key: str) -> None:
        """The model's selected configuration: its row, its point ringed, its questions."""
        index = next((i for i, r in enumerate(self.results) if r.config.key == key), None)
        selected = self.summary.selectionModel().selectedRows()
        if index is not None and [r.row() for r in selected] != [index]:
            self.summary.blockSignals(True)
            self.summary.selectRow(index)
            self.summary.blockSignals(False)
        self._show_questions()

    def select_configuration(self, key: str) -> bool:
        """Select configuration ``key`` (as clicking its row does) and show its questions."""
        if not any(r.config.key == key for r in self.results):
            return False
        self.model.select_configuration(key)
        self.lower_tabs.setCurrentIndex(0)
        return True

    def _show_questions(self) -> None:
        cr = self.selected_result()
        self.curve_plot.set_selected(cr.config.key if cr is not None else None)
        self.questions.setSortingEnabled(False)
        self.questions.setRowCount(0)
        if cr is None:
            return
        other_key = self.compare_to.currentData()
        changes: dict[int, str] = {}
        other = next((r for r in self.results if r.config.key == other_key), None) if other_key else None
        if other is not None:
            changes = change_words(compare_rows(other.rows, cr.rows))
        fill_questions(self.questions, cr.rows, changes)
        self.questions.setSortingEnabled(True)

    def _activate(self, item: QTableWidgetItem) -> None:
        cr = self.selected_result()
        if cr is None:
            return
        row = cr.rows[item.data(Qt.ItemDataRole.UserRole)]
        # the row's configuration on B, the one it is compared with on A, unless a side runs it already (it opened
        # with Explore's strategies, whatever the row said)
        if cr.config.strategy not in (self.model.strategy("A"), self.model.strategy("B")):
            other = other_configuration(self.results, cr.config.key, self.compare_to.currentData())
            self.strategiesActivated.emit((other or cr).config.strategy, cr.config.strategy)
        self.questionActivated.emit(row.question, self.reference_spans(row.q_index, row.question))

    def open_question(self, q_index: int) -> bool:
        """Select question ``q_index`` in the question table and drill into it (as a double-click does)."""
        for i in range(self.questions.rowCount()):
            item = self.questions.item(i, 0)
            if item is not None and item.data(Qt.ItemDataRole.DisplayRole) == q_index + 1:  # numbered from 1
                self.questions.selectRow(i)
                self.questions.scrollToItem(item)
                self._activate(item)
                return True
        return False

    def _configuration_activated(self, item: QTableWidgetItem) -> None:
        self.open_configuration(self.results[item.row()].config.key)

    def open_configuration(self, key: str) -> bool:
        """Open configuration ``key`` in Explore: side A runs the configuration it is compared with, side B
        this one, on its first question that scores differently (else its first question)."""
        results = self.results
        result = next((r for r in results if r.config.key == key), None)
        if result is None:
            return False
        self.model.select_configuration(key)
        other = other_configuration(results, key, self.compare_to.currentData())
        q_index = first_differing_question(result, other)
        if q_index is None:
            return False
        self.strategiesActivated.emit((other or result).config.strategy, result.config.strategy)
        return self.open_question(q_index)

    def reference_spans(self, q_index: int, question: str | None = None) -> list[Span]:
        """Reference spans (in stored documents) of a question of the loaded set ([] when unknown, or its
        corpus is not indexed). Only the question's own corpus is looked up: a run over part of a set
        indexes only the corpora its questions need."""
        qset = self.model.question_set
        if qset is None:
            return []
        q = next((q for q in qset.questions
                  if q.index == q_index and (question is None or q.question == question)), None)
        if q is None:
            return []
        if q.corpus_id not in self.model.documents:
            try:
                self.model.add_documents(corpus_documents(self.ws, qset.subset(corpus=q.corpus_id)))
            except ValueError:
                return []
        try:
            return q.spans(self.model.documents)
        except ValueError:
            return []

    # ----- export ----------------------------------------------------------------------------
    def _choose_export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export folder")
        if folder:
            self.status.setText(export_line(lambda: self.export_to(folder)))

    def export_to(self, folder: str | Path) -> dict[str, Path]:
        """Write summary/questions CSV + JSON and the trade-off plot (SVG) into ``folder``, and every plot as
        the lab shows it: ``tradeoff.png`` (its colours, ranges, zoom and legend) and, with budgets,
        ``curves.png``."""
        written = export_results(folder, self.results, title=f"run {self.run_id}", extra={"run_id": self.run_id})
        shown = {"plot_png": ("tradeoff.png", self.plot.view)}
        if self.curve_plot.curves:
            shown["curves_png"] = ("curves.png", self.curve_plot)
        for key, (name, widget) in shown.items():
            path = Path(folder) / name
            image = widget.grab()

            def save(tmp: Path, image: QPixmap = image, path: Path = path) -> None:
                if not image.save(str(tmp), "PNG"):
                    raise OSError(f"cannot write {path}")

            try:  # the output rules: never through a link, replaced whole
                write_files([(path, save)], replace=True)
            except (OSError, ValueError) as exc:
                raise ExportError(str(exc)) from None
            written[key] = path
        return written
