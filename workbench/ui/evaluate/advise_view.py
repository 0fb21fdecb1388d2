"""The lab's *Advise* tab: ``workbench advise`` in the window.

On the question set loaded in the lab it plans (what will be tried, what it costs), searches under a time limit
(progress: one line per trial) and saves the pick under a name. With *folds* 3 or more it cross-fits: each fold's
search reads only the other folds' questions and its pick is scored on the fold's own (the **Folds** tab: one row
per fold, how often the folds chose the same chunker and expansion, and the out-of-fold recall, the headline);
the final pick is chosen on all questions, its recall there labelled in-sample. With 2 folds it searches the fit
half, confirms the best three on the other half against ``plain`` and ``hybrid``. Then it shows:

* the **Pareto plot** of the fit half (cross-fitting: of the search on all questions, in-sample; the folds'
  searches are in the Folds tab): every configuration tried (recall against mean context tokens), the front drawn
  as a line; clicking a point opens that configuration on side B against ``hybrid`` on side A,
  on the first question of the confirm half;
* the **confirm table**: the three candidates, the baselines and the reference, on the confirm half (cross-fitting:
  the final pick, the baselines and the reference on all questions), with every row's difference from ``hybrid``
  (the candidates' Holm-adjusted; the others' unadjusted); *Use on side A* / *Use on side B* put the selected
  row's strategy on that side;
* the **verdict**, which names a winner only when the confirm half can tell it apart.

A recorded advice run (``workbench advise`` or this tab) opens from the *Recorded* list.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.advise.advice import ADVICE_UNASKED_S
from workbench.core.evaluate.advise.objective import (
    DEFAULT_OBJECTIVE,
    RECALL,
    Objective,
    objective_for,
    objective_names,
)
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.report import AdviceReport, RecordedAdvice, ReportRow, record_line
from workbench.core.evaluate.advise.rules import DEFAULT_RULE, RULES
from workbench.core.evaluate.advise.space import Space, baseline
from workbench.core.evaluate.advise.split import DEFAULT_FOLDS
from workbench.core.evaluate.records import find_run, list_runs
from workbench.core.evaluate.statistics import signed_value
from workbench.core.index.estimate import duration
from workbench.core.jobs import ProgressEvent
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.ui.basics.theme import current_palette
from workbench.ui.basics.wording import for_the_window
from workbench.ui.evaluate.eval_tables import make_table
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.model import WorkbenchModel
from workbench.ui.widgets.plot_zoom import CtrlWheelViewBox, reset_button

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.advice import AdviceResult
    from workbench.core.evaluate.datasets import QuestionSet
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace

def confirm_columns(o: Objective = RECALL) -> list[str]:
    """The confirm table's headings for a run that optimised ``o``."""
    return ["configuration", "role", f"fit {o.column} (in-sample)", "fit tokens", o.column, "tokens",
            "vs hybrid (points)" if o.percent else "vs hybrid"]


def fold_columns(o: Objective = RECALL) -> list[str]:
    """The Folds table's headings for a run that optimised ``o``."""
    return ["fold", "questions", "pick (chosen on the other folds)", f"in-sample {o.column}",
            f"held-out {o.column}", "held-out tokens"]


CONFIRM_COLUMNS = confirm_columns()
FOLD_COLUMNS = fold_columns()
MAX_KEY_WIDTH = 280  # pixels; a longer configuration is elided in the middle (the tooltip has all of it)
FRONT = "#d62728"
TRIED = "#9e9e9e"


def advise_job(ws: Workspace, qset: QuestionSet, space: Space, seed: int, limit_s: float, name: str,
               progress: ProgressSink, cancel: CancelToken, folds: int = 2, rule: str = DEFAULT_RULE,
               objective: str = DEFAULT_OBJECTIVE) -> AdviceResult:
    """Plan (its lines as progress notices), search, confirm and save, on a pool thread; ``objective``: the
    registered metric to maximise."""
    from workbench.core.evaluate.advise.advice import plan_advice, run_advice

    try:
        started = time.monotonic()
        plan = plan_advice(ws, qset, space, seed, limit_s, name, progress=progress, cancel=cancel, folds=folds,
                           rule=rule, objective_name=objective)
        for line in plan.lines():
            progress(ProgressEvent("advising", 0, 0, line))
        return run_advice(ws, plan, progress, cancel, started=started)
    finally:
        ws.close()


def resume_job(ws: Workspace, run_id: str, limit_s: float, progress: ProgressSink,
               cancel: CancelToken) -> AdviceResult:
    """Continue a recorded advice run for another ``limit_s`` seconds (its split, space and trials kept), on a
    pool thread."""
    from workbench.core.evaluate.advise.advice import resume_advice

    try:
        return resume_advice(ws, run_id, limit_s, progress, cancel)
    finally:
        ws.close()


def _difference(row: ReportRow, o: Objective = RECALL) -> str:
    """A row's objective against ``hybrid``: ``+2.1 [−0.8, +5.0]`` (points for a rate); ``hybrid`` itself says
    so."""
    if row.is_hybrid:
        return "(itself)"
    d = row.versus_hybrid
    return "" if d is None else f"{signed_value(d.diff, o.unit)} {o.interval(d.low, d.high)}"


def _whole(x: float | None) -> str:
    """Tokens, whole ("" when there are none)."""
    return "" if x is None else f"{x:.0f}"


NO_TRIALS = "no trials yet"
VERDICT_LINES = 6  # the verdict box grows to this many lines before it scrolls


def advice_bar_text(event: ProgressEvent, elapsed: int, limit: int) -> str:
    """The advisor's bar: the phase (which trial builds or scores what, or the last notice), the seconds spent
    of the limit and those left at most (the limit is the advice's own clock: it stops there, or sooner)."""
    phase = event.message.split("; ", 1)[-1] if event.total else event.message
    phase = (phase if len(phase) <= 60 else phase[:59] + "…") or "advising"
    left = max(0, limit - elapsed)
    return f"{phase} · {elapsed} of {limit} s · at most {left} s left".replace("%", "%%")


class ParetoPlot(QWidget):
    """The objective (recall unless the run optimised another metric) against mean context tokens of every
    configuration tried on the fit half; the front as a line. ``pointClicked(trial)`` when a point is clicked."""

    pointClicked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: Any = pg.PlotWidget(viewBox=CtrlWheelViewBox())  # a QGraphicsView (pyqtgraph: no types)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.reset = reset_button([self.view.getPlotItem().vb], self._set_ranges, self)
        layout.addWidget(self.reset)
        palette = current_palette()
        self.view.setBackground(palette.card)
        item = self.view.getPlotItem()
        item.setTitle("fit half: recall vs context", color=palette.text)
        item.showGrid(x=True, y=True, alpha=0.3)
        item.setLabel("bottom", "mean context per question (tokens)", color=palette.text)
        item.setLabel("left", "recall (%)", color=palette.text)
        self.trials: list[Trial] = []
        self.where = "fit half"  # the questions the drawn trials were scored on
        self.objective = RECALL  # what the drawn run optimised (the y axis)
        self.empty_note: Any = pg.TextItem(NO_TRIALS, color=palette.muted, anchor=(0.5, 0.5))
        self.show_trials([], [])

    def show_trials(self, trials: Sequence[Trial], front: Sequence[int], crossfit: bool = False,
                    objective: Objective = RECALL) -> None:
        """Draw ``trials`` (those that ran) and the front (their numbers, by tokens), their ``objective`` on the y
        axis. A cross-fitted run's folds searched on other questions (their trials' numbers start again in each
        fold), so only the search on all questions is drawn, titled as what it is: in-sample."""
        self.view.clear()
        self.objective = o = objective
        self.where = "all questions, in-sample" if crossfit else "fit half"
        item = self.view.getPlotItem()
        item.setTitle(f"{self.where}: {o.label} vs context", color=current_palette().text)
        item.setLabel("left", f"{o.label} (%)" if o.percent else o.label, color=current_palette().text)
        self.trials = [t for t in trials if t.state == "done" and t.score is not None
                       and (not crossfit or t.fold is None)]
        on_front = [t for n in front for t in self.trials if t.number == n]
        rest = [t for t in self.trials if t.number not in set(front)]
        for group, colour, size in ((rest, TRIED, 7), (on_front, FRONT, 11)):
            if not group:
                continue
            scatter = pg.ScatterPlotItem([t.tokens for t in group], [self._y(t) for t in group],
                                         size=size, brush=pg.mkBrush(colour), pen=pg.mkPen(None),
                                         data=[t.number for t in group], hoverable=True, tip=self._tip)
            scatter.sigClicked.connect(self._clicked)
            self.view.addItem(scatter)
        if len(on_front) > 1:
            self.view.plot([t.tokens for t in on_front], [self._y(t) for t in on_front],
                           pen=pg.mkPen(FRONT, width=2))
        if not self.trials:  # an empty plot says so, on axes that read 0–100 %
            self.view.addItem(self.empty_note)
        self._set_ranges()

    def _y(self, t: Trial) -> float:
        """A trial's height: its objective, in percent for a rate."""
        return (100 if self.objective.percent else 1) * (t.score or 0)

    def _set_ranges(self) -> None:
        """The objective 0–100 % (a score 0–1), tokens from 0 to a little past the largest (2,000 with no
        trials)."""
        tokens = [t.tokens for t in self.trials if t.tokens is not None]
        right = max(tokens) * 1.08 if tokens else 2000.0
        top = 100 if self.objective.percent else 1
        self.view.setYRange(0, top, padding=0.02)  # a rate in percent, 0–100 unless the user zooms
        self.view.setXRange(0, right, padding=0.02)
        self.empty_note.setPos(right / 2, top / 2)
        self.reset.hide()

    def _trial(self, number: object) -> Trial | None:
        return next((t for t in self.trials if t.number == number), None)

    def _tip(self, x: float, y: float, data: object) -> str:  # pyqtgraph's tip signature
        t = self._trial(data)
        if t is None:
            return ""
        o = self.objective
        return (f"{t.key}\n{o.label} {o.figure(t.score)}{'%' if o.percent else ''} at {t.tokens:.0f} tokens "
                f"({self.where})")

    def _clicked(self, _item: object, points: Sequence[Any], _event: object = None) -> None:
        if len(points):
            trial = self._trial(points[0].data())
            if trial is not None:
                self.pointClicked.emit(trial)


class AdviseView(QWidget):
    """The *Advise* tab (see the module docstring). It advises on the model's question set (the lab's);
    ``reference_spans(q_index)`` gives a question's reference spans in stored documents."""

    strategiesActivated = Signal(object, object)  # (A, B) to open side by side
    questionActivated = Signal(str, list)  # a question to drill into, with its reference spans
    useStrategy = Signal(str, object)  # ("A" or "B", Strategy)
    strategySaved = Signal(str)  # the name the pick was saved under

    def __init__(self, workspace: Workspace, jobs: JobRunner, model: WorkbenchModel,
                 reference_spans: Callable[[int], list[Span]] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws, self.jobs, self.model = workspace, jobs, model
        self.reference_spans = reference_spans
        self.confirm: Callable[[str], bool] = self._ask  # a very long run asks first (tests answer for the person)
        self._task: Worker | None = None
        self._started = 0.0
        self._limit = 0.0
        self._live_run = ""  # the running advice's record id, once found
        self._runs_before: set[str] = set()  # advice records that were there before the run started
        self._live_timer = QTimer(self)  # scored trials are drawn at most every half second, from the record
        self._live_timer.setSingleShot(True)
        self._live_timer.setInterval(500)
        self._live_timer.timeout.connect(self.draw_live)
        self.budget_used = 1000
        self.rows: list[ReportRow] = []
        self.confirm_indexes: list[int] = []
        self.space_for: Callable[[int], Space] = lambda budget: Space(budget=budget)  # the space for a budget
        self._build()

    # ----- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.budget = QSpinBox(minimum=100, maximum=20000, singleStep=100, value=1000, suffix=" tokens")
        self.budget.setToolTip("The context budget every configuration runs at (tokens sent to the model)")
        self.limit = QSpinBox(minimum=1, maximum=600, value=30, suffix=" min")
        self.limit.setToolTip("How long to search; the confirm half's time is kept aside within it")
        self.seed = QSpinBox(minimum=0, maximum=10**6, value=0, prefix="seed ")
        self.seed.setToolTip("Seed of the folds (or the fit/confirm split) and of the optimiser")
        self.folds = QSpinBox(minimum=2, maximum=20, value=DEFAULT_FOLDS, prefix="folds ")
        self.folds.setToolTip("Cross-fit over this many folds: each fold's pick is chosen on the other folds and "
                              "scored on its own questions (the out-of-fold recall); 2: choose on one half, confirm "
                              "on the other")
        self.rule = QComboBox()
        self.rule.addItems(list(RULES))
        self.rule.setCurrentText(DEFAULT_RULE)
        self.rule.setToolTip("How the pick is chosen: best (the best recall), one-se (the simplest within one "
                             "paired standard error of the best) or preset (the best preset unless the best is "
                             "distinguishably better)")
        self.objective = QComboBox()
        for goal in objective_names():
            self.objective.addItem(objective_for(goal).label, goal)
        self.objective.setCurrentIndex(max(0, self.objective.findData(DEFAULT_OBJECTIVE)))
        self.objective.setToolTip("The metric the advisor maximises per question and judges the pick on against the "
                                  "baselines (recall unless you choose another); the plot and tables show it")
        self.name = QLineEdit(placeholderText="advised-SET")
        self.name.setToolTip("The name the pick is saved under: it joins both sides' strategy lists and the lab's")
        self.run_button, self.cancel_button = QPushButton("Advise"), QPushButton("Cancel")
        self.run_button.setObjectName("primary")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m s")
        self.recorded = QComboBox()
        self.recorded.setToolTip("Advice runs recorded in this data folder")
        self.open_button = QPushButton("Open")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setToolTip("Continue the selected recorded run for another Time limit: its split, space "
                                      "and trials are kept, and none is run again")
        self.status = QLabel()
        self.verdict = QPlainTextEdit(readOnly=True)  # wraps without asking the scrolling lab for more height
        self.verdict.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.verdict.setFixedHeight(3 * self.verdict.fontMetrics().lineSpacing() + 10)
        self.verdict.setPlaceholderText("The verdict appears here when the confirm half has run.")
        self.plot = ParetoPlot()
        self.fold_table = make_table(FOLD_COLUMNS)
        self.fold_table.verticalHeader().hide()
        self.fold_table.setWordWrap(False)
        self.fold_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.fold_summary = QLabel("Cross-fitted runs (folds 3 or more) show one row per fold here.")
        self.fold_summary.setWordWrap(True)
        self.table = make_table(CONFIRM_COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().hide()
        self.plot.setMinimumHeight(200)
        self.use_a, self.use_b = QPushButton("Use on side A"), QPushButton("Use on side B")
        for b in (self.use_a, self.use_b):
            b.setEnabled(False)
            b.setToolTip("Put the selected row's strategy on that side of Explore")
        self.log = QPlainTextEdit(readOnly=True)
        self.log.setMaximumBlockCount(5000)

        top = QHBoxLayout()
        for w in (QLabel("Budget"), self.budget, QLabel("Time limit"), self.limit, self.seed, self.folds, self.rule,
                  self.objective, QLabel("Save as"), self.name, self.run_button, self.cancel_button):
            top.addWidget(w)
        top.addStretch(1)
        runs = QHBoxLayout()
        runs.addWidget(self.progress, 2)  # its own room: the phase and the seconds read whole
        runs.addWidget(QLabel("Recorded"))
        runs.addWidget(self.recorded, 1)
        runs.addWidget(self.open_button)
        runs.addWidget(self.resume_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        header = QHBoxLayout()
        self.table_title = QLabel("Confirm half: questions the pick was not chosen on")
        header.addWidget(self.table_title, 1)
        header.addWidget(self.use_a)
        header.addWidget(self.use_b)
        right_layout.addLayout(header)
        right_layout.addWidget(self.table, 1)
        self.lower_tabs = QTabWidget()
        self.lower_tabs.addTab(right, "Confirm")
        folds_page = QWidget()
        folds_layout = QVBoxLayout(folds_page)
        folds_layout.setContentsMargins(0, 0, 0, 0)
        folds_layout.addWidget(self.fold_summary)
        folds_layout.addWidget(self.fold_table, 1)
        self.lower_tabs.addTab(folds_page, "Folds")
        self.lower_tabs.addTab(self.log, "Plan and progress")
        split = self.split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(self.lower_tabs)
        split.setSizes([500, 700])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(runs)
        layout.addWidget(self.status)
        layout.addWidget(self.verdict)
        layout.addWidget(split, 1)

        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button.clicked.connect(lambda: self.open_record(self.recorded.currentData()))
        self.resume_button.clicked.connect(lambda: self.resume(self.recorded.currentData()))
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.use_a.clicked.connect(lambda: self._use("A"))
        self.use_b.clicked.connect(lambda: self._use("B"))
        self.plot.pointClicked.connect(self.open_trial)
        self.model.questionSetChanged.connect(self._hint)
        self._hint()
        self.refresh_records()

    # ----- running -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while an advice run is in progress."""
        return self._task is not None

    def _hint(self) -> None:
        """The status line's hint for the tab's state (a run's own status stays until the next hint)."""
        if self._task is not None:
            return
        qset = self.model.question_set
        self.status.setText("Load a question set in the Sweep tab, then press Advise." if qset is None else
                            f"Press Advise to search a strategy for {qset.name} ({len(qset.questions)} questions).")

    def _ask(self, question: str) -> bool:
        """Ask whether a very long advice run (``question`` says how long) should start."""
        answer = QMessageBox.question(self.window(), "Start a long advice run?", question)
        return answer == QMessageBox.StandardButton.Yes

    def start(self) -> bool:
        """Start an advice run on the lab's question set; False (with a status line) when it cannot."""
        qset = self.model.question_set
        if self._task is not None:
            return False
        if qset is None:
            self.status.setText("Load a question set in the Sweep tab first.")
            return False
        space = self.space_for(self.budget.value())
        ws, seed, name, limit = self.ws, self.seed.value(), self.name.text().strip(), 60.0 * self.limit.value()
        folds, rule, goal = self.folds.value(), self.rule.currentText(), str(self.objective.currentData())
        if limit > ADVICE_UNASKED_S and not self.confirm(
                f"This advice run may take up to {duration(limit)} (its time limit), more than "
                f"{duration(ADVICE_UNASKED_S)}. Start it?"):
            self.status.setText("Not started: choose a shorter time limit, or confirm the long run.")
            return False
        task = Worker(lambda progress, cancel: advise_job(ws, qset, space, seed, limit, name, progress, cancel, folds,
                                                          rule, goal), "advice")
        self._begin(task, limit, f"advising on {qset.name} ({len(qset.questions)} questions), at most "
                                 f"{self.limit.value()} min…")
        return True

    def resume(self, run_id: str | None) -> bool:
        """Continue the recorded advice run ``run_id`` for another *Time limit*; False when one is running or
        none is chosen."""
        if self._task is not None or not run_id:
            return False
        ws, limit = self.ws, 60.0 * self.limit.value()
        self._begin(Worker(lambda progress, cancel: resume_job(ws, run_id, limit, progress, cancel), "advice"),
                    limit, f"resuming advice {run_id}, at most {self.limit.value()} min more…", run_id)
        return True

    def _begin(self, task: Worker, limit: float, status: str, run_id: str = "") -> None:
        self._live_run = run_id  # the record the run writes after every trial ("": a new one, found when written)
        self._runs_before = {r.id for r in list_runs(self.ws) if r.kind == "advice"} if not run_id else set()
        self._task = task
        self._limit = limit
        self._started = time.monotonic()
        s = task.signals
        s.progress.connect(self._on_progress)
        s.result.connect(self._on_finished)
        s.error.connect(self._on_error)
        s.cancelled.connect(self._on_cancelled)
        self.log.clear()
        self.progress.setFormat("%v of %m s")
        self.progress.setRange(0, int(self._limit))
        self.progress.setValue(0)
        self.run_button.setEnabled(False)
        self.resume_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(status)
        self.jobs.start(task)

    def cancel(self) -> None:
        """Stop the run; it is recorded, and *Resume* continues it."""
        if self._task is not None:
            self._task.cancel()

    def _on_progress(self, event: ProgressEvent) -> None:
        elapsed = int(time.monotonic() - self._started)
        self.progress.setValue(min(elapsed, self.progress.maximum()))
        self.progress.setFormat(advice_bar_text(event, elapsed, self.progress.maximum()))
        if not event.total and event.message:
            self.log.appendPlainText(event.message)
            self.status.setText(event.message)
            if " → " in event.message and not self._live_timer.isActive():  # a trial was scored (and
                self._live_timer.start()  # recorded): the plot shows it within half a second

    def draw_live(self) -> bool:
        """Draw the trials the running advice has scored so far (read from its record, written after every
        trial); False when the run has recorded nothing yet."""
        if self._task is None:
            return False
        if not self._live_run:
            new = [r for r in list_runs(self.ws) if r.kind == "advice" and r.id not in self._runs_before]
            if not new:
                return False
            self._live_run = max(new, key=lambda r: r.started).id
        try:
            summary = find_run(self.ws, self._live_run).summary
        except (KeyError, ValueError):  # gone, or not readable (yet): the next trial tries again
            return False
        goal = str(summary.get("objective") or DEFAULT_OBJECTIVE)  # what this run maximises (the y axis)
        trials = [Trial.from_dict(t, goal) for t in summary.get("trials", [])]
        self.plot.show_trials(trials, [int(n) for n in summary.get("pareto", [])],
                              any(t.fold is not None for t in trials), objective_for(goal))
        return bool(self.plot.trials)

    def _done(self, message: str) -> None:
        self._task = None
        self.run_button.setEnabled(True)
        self.resume_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.status.setText(for_the_window(message))

    def _on_error(self, message: str, _traceback: str) -> None:
        self._done(f"advice failed: {message}")

    def _on_cancelled(self) -> None:
        self._done("advice cancelled; it is recorded: choose it under Recorded and press Resume to continue it")
        self.refresh_records()

    def _on_finished(self, result: AdviceResult) -> None:
        self.progress.setValue(self.progress.maximum())
        self.progress.setFormat(f"done in {result.seconds:.0f} s")
        from workbench.core.evaluate.advise.advice import NOTHING_SAVED

        saved = f"saved as {result.pick!r}" if result.pick else NOTHING_SAVED
        self._done(f"advice {result.run_id} done: {saved}")
        self.show_result(result)
        self.refresh_records()
        if result.pick:
            self.strategySaved.emit(result.pick)

    # ----- showing -----------------------------------------------------------------------------------
    def refresh_records(self) -> None:
        """List the advice runs recorded in this data folder."""
        self.recorded.clear()
        for r in list_runs(self.ws):
            if r.kind == "advice":
                self.recorded.addItem(record_line(r), r.id)
        self.open_button.setEnabled(self.recorded.count() > 0)

    def open_record(self, run_id: str | None) -> bool:
        """Show a recorded advice run (a finished one has its confirm table; a stopped one only its trials)."""
        if not run_id:
            return False
        run = RecordedAdvice.of(find_run(self.ws, run_id))
        self.show_report(run.report, run.budget, run.judged)
        self.status.setText(f"advice run {run.id}: {run.report.state}")
        return True

    def show_result(self, result: AdviceResult) -> None:
        """Draw a run just finished (``show_report`` of its objects)."""
        self.show_report(AdviceReport.from_result(result), result.plan.space.budget, result.plan.confirm_indexes)

    def show_report(self, report: AdviceReport, budget: int, confirm_indexes: Sequence[int]) -> None:
        """Draw a report (a run's or a record's: ``AdviceReport``): plot, table, verdict."""
        self.budget_used = budget
        self.confirm_indexes = list(confirm_indexes)
        o = report.objective
        self.plot.show_trials(report.trials, report.pareto, report.crossfit, o)
        self.table.setHorizontalHeaderLabels(confirm_columns(o))
        self.fold_table.setHorizontalHeaderLabels(fold_columns(o))
        self.rows = list(report.rows)
        self._show_folds(report)
        self.table_title.setText("All questions: the final pick was chosen on them (in-sample)" if report.crossfit
                                 else "Confirm half: questions the pick was not chosen on")
        self.lower_tabs.setTabText(0, "All questions" if report.crossfit else "Confirm")
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            cells = [r.key, r.role, o.metric.cell(r.fit_score), _whole(r.fit_tokens), o.metric.cell(r.score),
                     _whole(r.tokens), _difference(r, o)]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{r.key}\n{r.description}")
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), MAX_KEY_WIDTH))
        head = report.headline
        headline = (f"Headline: {o.label} {o.figure(head.score)}{'%' if o.percent else ''} at "
                    f"{head.tokens or 0:.0f} tokens, {head.measured_on}.\n"
                    if head is not None and head.score is not None else "")
        pick = report.pick
        self.verdict.setPlainText(f"{headline}Verdict: {report.verdict}" + (f" — saved as “{pick}”." if pick else "")
                                  if report.verdict else "")
        self.fit_verdict()
        if self.rows:
            self.table.selectRow(0)

    def fit_verdict(self) -> None:
        """The verdict box as tall as its wrapped lines (three to ``VERDICT_LINES``; beyond, it scrolls): a
        verdict is read whole, not cut mid-sentence."""
        box = self.verdict
        width = max(1, box.viewport().width() - 2 * int(box.document().documentMargin()) - 8)
        metrics = box.fontMetrics()
        lines = sum(max(1, math.ceil(metrics.horizontalAdvance(part) / width))
                    for part in box.toPlainText().split("\n"))  # wrapped at words: a line more, at most
        shown = min(VERDICT_LINES, max(3, lines + 1 if lines > 2 else lines))
        box.setFixedHeight(shown * box.fontMetrics().lineSpacing() + 10)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width wraps the verdict again: its box follows."""
        super().resizeEvent(event)
        self.fit_verdict()

    def _show_folds(self, report: AdviceReport) -> None:
        """The Folds tab: one row per fold, the stability and the out-of-fold objective (empty for a fit/confirm
        run)."""
        o = report.objective
        rows = report.folds
        self.fold_table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = [str(r.fold), str(r.questions), r.pick, o.metric.cell(r.in_sample), o.metric.cell(r.held_out),
                     _whole(r.held_out_tokens)]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{r.pick}\n{r.how}")
                if j != 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.fold_table.setItem(i, j, item)
        self.fold_table.resizeColumnsToContents()
        self.fold_table.setColumnWidth(2, min(self.fold_table.columnWidth(2), MAX_KEY_WIDTH))
        if not rows:
            self.fold_summary.setText("Cross-fitted runs (folds 3 or more) show one row per fold here.")
            return
        k = len(rows)
        stable = ", ".join(f"the same {s.what} in {s.folds} of {k} ({s.value})" for s in report.stability)
        d = report.out_of_fold_versus_hybrid
        versus = "" if d is None else \
            f"; against hybrid {o.difference(d.diff)} {o.interval(d.low, d.high)} (Holm-adjusted)"
        rules = report.rules_line  # every rule replayed on these folds
        self.fold_summary.setText(
            f"Out-of-fold {o.label} of the procedure: {o.metric.cell(report.out_of_fold)}{'%' if o.percent else ''} "
            f"at {report.out_of_fold_tokens or 0:.0f} tokens ({report.measured_on}, rule {report.rule}){versus}. "
            f"Folds chose {stable or 'nothing'}." + (f" {rules[0].upper()}{rules[1:]}." if rules else ""))

    def row_strategy(self, row: int) -> Strategy | None:
        """The strategy of the confirm table's ``row``."""
        if not 0 <= row < len(self.rows):
            return None
        return self.rows[row].strategy

    def _selection_changed(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        for b in (self.use_a, self.use_b):
            b.setEnabled(bool(rows))

    def _use(self, side: str) -> None:
        rows = self.table.selectionModel().selectedRows()
        strategy = self.row_strategy(rows[0].row()) if rows else None
        if strategy is not None:
            self.useStrategy.emit(side, strategy)

    def open_trial(self, trial: Trial) -> None:
        """Open a configuration of the plot on side B against ``hybrid`` at the same budget on side A, on the
        first question of the confirm half (with its reference spans)."""
        space = Space(budget=self.budget_used)
        try:
            strategy = space.strategy(trial.params)
        except ValueError as exc:
            self.status.setText(str(exc))
            return
        self.strategiesActivated.emit(baseline("hybrid", self.budget_used), strategy)
        qset = self.model.question_set
        if qset is None:
            return
        question = next((q for q in qset.questions if q.index in set(self.confirm_indexes)),
                        qset.questions[0] if qset.questions else None)
        if question is not None:
            spans = self.reference_spans(question.index) if self.reference_spans else []
            self.questionActivated.emit(question.question, spans)

