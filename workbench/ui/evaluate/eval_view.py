"""The evaluation lab view: load a question set, pick strategies, a sweep and budgets, run it in the background,
see the summary table, the recall / IoU vs context-tokens trade-off and (with budgets) one recall curve per
strategy, drill into questions, export.

``EvalView(workspace)`` is self-contained; the main window shows it as its Evaluate mode, passes its store
queue (``store_jobs``: a sweep builds chunk sets and records its run, so it writes to the store like every
other GUI job, one at a time) and connects ``questionActivated(question, reference_spans)`` to its
side-by-side view. On its own the view keeps a serial queue of its own. The *Bundled* menu lists the
question sets shipped with the package (``bundled_sets()``, read when the menu opens), so they load without
a file dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QTableWidgetItem,
    QWidget,
)

from workbench.core.evaluate.curves import budget_curves, has_budgets, sweep_configs
from workbench.core.evaluate.datasets import QuestionSet, load_question_set
from workbench.core.evaluate.export import export_results, summary_rows
from workbench.core.evaluate.records import list_runs, load_run
from workbench.core.evaluate.sweep import ConfigResult, compare_rows
from workbench.core.retrieve.strategies import Strategy
from workbench.ui.evaluate.drill_down import first_differing_question, other_configuration
from workbench.ui.evaluate.eval_layout import fill_bundled_menu, fill_strategy_list, setup_layout
from workbench.ui.evaluate.eval_tables import fill_compare_to, fill_questions, fill_summary, table_width
from workbench.ui.evaluate.sweep_job import export_line, sweep_and_record
from workbench.ui.window.workers import JobRunner, Worker

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent

    from workbench.core.jobs import ProgressEvent
    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace


class EvalView(QWidget):
    """Evaluation lab: strategies × sweep over a question set, with table, plot, drill-down and export."""

    questionActivated = Signal(str, list)  # noqa: N815 - Qt naming
    runFinished = Signal(str)  # noqa: N815 - run id
    strategiesActivated = Signal(object, object)  # noqa: N815 - (A, B): a configuration opened in Explore

    def __init__(self, workspace: Workspace, store_jobs: JobRunner | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.qset: QuestionSet | None = None
        self.results: list[ConfigResult] = []
        self.doc_ids: dict[str, int] = {}
        self.run_id = ""
        self.jobs = store_jobs if store_jobs is not None else JobRunner(1, self)  # the one store writer
        self.pool = self.jobs.pool
        self._task: Worker | None = None
        setup_layout(self)
        self.advise.strategiesActivated.connect(self.strategiesActivated)
        self.advise.questionActivated.connect(self.questionActivated)

    # ----- inputs ----------------------------------------------------------------------------
    def _choose_set(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Question set folder (questions.csv + corpora/)")
        if folder:
            self.load_question_set(folder)

    def fill_bundled_menu(self) -> None:
        """List the bundled question sets (whatever ``bundled_sets()`` finds now) in the *Bundled* menu."""
        fill_bundled_menu(self.bundled_menu, self.load_question_set)

    def load_question_set(self, folder: str | Path, corpus: str | None = None) -> bool:
        """Load (and check) a question set — a folder or a bundled set's name — optionally only the questions
        of one ``corpus``; problems are shown in the status line."""
        try:
            qset = load_question_set(folder)
            self.qset = qset.subset(corpus=corpus) if corpus else qset
        except ValueError as exc:
            self.status.setText(f"cannot use {folder}: {exc}")
            return False
        self.doc_ids = {}
        self.set_label.setText(f"{self.qset.name}: {len(self.qset.questions)} questions; {self.qset.scope_line()}")
        return True

    def checked_strategies(self) -> list[str]:
        """Names of the checked presets."""
        items = (self.strategies.item(i) for i in range(self.strategies.count()))
        return [it.text() for it in items if it.checkState() == Qt.Checked]

    def set_saved(self, saved: dict[str, Strategy]) -> None:
        """List the strategies saved in the data folder after the presets (checked ones stay checked)."""
        checked = self.checked_strategies()
        fill_strategy_list(self.strategies, saved)
        self.set_checked(checked)

    def set_checked(self, names: list[str]) -> None:
        """Check exactly these presets."""
        for i in range(self.strategies.count()):
            it = self.strategies.item(i)
            it.setCheckState(Qt.Checked if it.text() in names else Qt.Unchecked)

    # ----- running ---------------------------------------------------------------------------
    def _run_clicked(self) -> None:
        self.start()

    def start(self, strategies: Sequence[Strategy] | None = None) -> bool:
        """Start the sweep in the background; False (with a status message) when inputs are missing.

        ``strategies`` (e.g. the window's A and B) replaces the checked presets for this run; with *Budgets*
        every configuration runs at each budget (as ``eval --budgets``, recorded with the run).
        """
        if self._task is not None:
            return False
        if self.qset is None:
            self.status.setText("load a question set first")
            return False
        warnings: list[str] = []
        budgets = self.budgets.text().strip()
        try:
            chosen = list(strategies) if strategies is not None else [
                self.ws.resolve_strategy(name) for name in self.checked_strategies()]
            configs = sweep_configs(chosen, self.grid.text(), budgets or None, warnings)
        except ValueError as exc:
            self.status.setText(str(exc))
            return False
        if not configs:
            self.status.setText("check at least one strategy")
            return False
        qset = self.qset.subset(self.limit.value() or None)
        ws = self.ws
        selection = {"budgets": budgets} if budgets else None
        self._task = Worker(lambda progress, cancel: sweep_and_record(ws, qset, configs, progress, cancel, selection),
                            "evaluation sweep")
        s = self._task.signals  # bound methods, not lambdas: a finished worker must not keep this view alive
        s.progress.connect(self._on_progress_event)
        s.result.connect(self._on_finished)
        s.error.connect(self._on_error)
        s.cancelled.connect(self._on_cancelled)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(f"running {len(configs)} configuration(s) on {len(qset.questions)} questions"
                            + (f" ({'; '.join(warnings)})" if warnings else ""))
        self.jobs.start(self._task)
        return True

    @property
    def running(self) -> bool:
        """True while a sweep runs."""
        return self._task is not None

    def cancel(self) -> None:
        """Ask the running sweep to stop."""
        if self._task is not None:
            self._task.cancel()

    def _on_progress_event(self, event: ProgressEvent) -> None:
        self.progress.setMaximum(max(event.total, 1))
        self.progress.setValue(event.done)
        self.progress.setFormat(f"{event.stage} %v/%m")

    def _on_error(self, message: str, _traceback: str) -> None:
        self._done(f"failed: {message}")

    def _on_cancelled(self) -> None:
        self._done("cancelled")

    def _done(self, message: str) -> None:
        self._task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.status.setText(message)

    def _on_finished(self, payload: tuple) -> None:
        run_id, results = payload
        self._done(f"run {run_id} recorded")
        self.show_results(run_id, results)
        self.refresh_runs()
        self.runFinished.emit(run_id)

    # ----- results ---------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        """Fill the recorded-runs menu."""
        self.runs.clear()
        for r in list_runs(self.ws):
            self.runs.addItem(f"{r.id}  {r.label}  ({len(r.config_keys)} configurations)", r.id)

    def open_run(self, run_id: str | None) -> None:
        """Show a recorded run."""
        if run_id:
            info, results = load_run(self.ws, run_id)
            path = info.config.get("dataset", {}).get("path")
            if (self.qset is None or str(self.qset.root) != path) and path and Path(path).is_dir():
                self.load_question_set(path)  # for the reference spans of the drill-down
            self.show_results(info.id, results)

    def show_results(self, run_id: str, results: list[ConfigResult]) -> None:
        """Fill the summary table, the plots (the curves too for a run with budgets) and the comparison menu."""
        self.run_id, self.results = run_id, results
        self.export_button.setEnabled(bool(results))
        rows = summary_rows(results)
        self.plot.draw(rows)
        self.curves.show_curves(budget_curves(results) if has_budgets(results) else [], self.plot.colours)
        self.plot_tabs.setCurrentWidget(self.curves if self.curves.curves else self.plot)
        fill_summary(self.summary, rows, self.plot.colours)
        self._fit_summary()
        QTimer.singleShot(0, self._fit_summary)  # again once the table has laid out its headers
        self.flip_browser.set_results(results)
        self.baseline_panel.set_results(results)
        fill_compare_to(self.compare_to, results)
        if rows:
            self.summary.selectRow(0)

    def summary_width(self) -> int:
        """The width the summary table needs to show every column without scrolling."""
        return table_width(self.summary)

    def _fit_summary(self) -> None:
        """Give the summary table the width of all its columns (the plot takes the rest, when it can)."""
        total = sum(self.top_split.sizes())
        need = self.summary_width()
        if total > 0 and self.top_split.sizes()[0] < need:
            self.top_split.setSizes([need, max(1, total - need)])

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        """Keep the summary's columns in view when the lab is resized."""
        super().resizeEvent(event)
        if self.results:
            self._fit_summary()

    def selected_result(self) -> ConfigResult | None:
        """The configuration selected in the summary table."""
        rows = self.summary.selectionModel().selectedRows()
        return self.results[rows[0].row()] if rows and self.results else None

    def select_configuration(self, key: str) -> bool:
        """Select configuration ``key`` (as clicking its row does) and show its questions."""
        index = next((i for i, r in enumerate(self.results) if r.config.key == key), None)
        if index is not None:
            self.summary.selectRow(index)
            self.lower_tabs.setCurrentIndex(0)
        return index is not None

    def _show_questions(self) -> None:
        cr = self.selected_result()
        self.curve_plot.set_selected(cr.config.key if cr is not None else None)
        self.questions.setSortingEnabled(False)
        self.questions.setRowCount(0)
        if cr is None:
            return
        other_key = self.compare_to.currentData()
        changes: dict[int, str] = {}
        if other_key:
            other = next(r for r in self.results if r.config.key == other_key)
            comp = compare_rows(cr.rows, other.rows)
            changes = {c.q_index: f"fixed (+{100 * c.delta:.0f})" for c in comp.fixed}
            changes |= {c.q_index: f"broke ({100 * c.delta:.0f})" for c in comp.broke}
        fill_questions(self.questions, cr.rows, changes)
        self.questions.setSortingEnabled(True)

    def _activate(self, item: QTableWidgetItem) -> None:
        cr = self.selected_result()
        if cr is None:
            return
        row = cr.rows[item.data(Qt.UserRole)]
        self.questionActivated.emit(row.question, self.reference_spans(row.q_index, row.question))

    def open_question(self, q_index: int) -> bool:
        """Select question ``q_index`` in the question table and drill into it (as a double-click does)."""
        for i in range(self.questions.rowCount()):
            item = self.questions.item(i, 0)
            if item is not None and item.data(Qt.DisplayRole) == q_index:
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
        index = next((i for i, r in enumerate(self.results) if r.config.key == key), None)
        if index is None:
            return False
        self.summary.selectRow(index)
        result = self.results[index]
        other = other_configuration(self.results, key, self.compare_to.currentData())
        q_index = first_differing_question(result, other)
        if q_index is None:
            return False
        self.strategiesActivated.emit((other or result).config.strategy, result.config.strategy)
        return self.open_question(q_index)

    def reference_spans(self, q_index: int, question: str | None = None) -> list[Span]:
        """Reference spans (in stored documents) of a question of the loaded set ([] when unknown)."""
        if self.qset is None:
            return []
        from workbench.core.evaluate.datasets import corpus_documents

        q = next((q for q in self.qset.questions
                  if q.index == q_index and (question is None or q.question == question)), None)
        if q is None:
            return []
        try:
            self.doc_ids = self.doc_ids or corpus_documents(self.ws, self.qset)
            return q.spans(self.doc_ids)
        except ValueError:
            return []

    # ----- export ----------------------------------------------------------------------------
    def _choose_export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export folder")
        if folder:
            self.status.setText(export_line(lambda: self.export_to(folder)))

    def export_to(self, folder: str | Path) -> dict[str, Path]:
        """Write summary/questions CSV + JSON and the trade-off plot (PNG, SVG) into ``folder``."""
        return export_results(folder, self.results, title=f"run {self.run_id}", extra={"run_id": self.run_id})
