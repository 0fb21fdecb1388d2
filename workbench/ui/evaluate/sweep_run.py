"""Running the lab's sweep: one at a time, in the background on the store's job queue, from the lab's inputs
(strategies, *Sweep*, *Budgets*, the question limit), with its progress, status line and buttons."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from workbench.core.evaluate.curves import sweep_configs
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.records import Selection
from workbench.core.evaluate.sweep import ConfigResult
from workbench.core.evaluate.sweep_checks import sweep_size_problem
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.ui.basics.wording import for_the_window
from workbench.ui.evaluate.lab_inputs import LabInputs
from workbench.ui.evaluate.sweep_job import sweep_and_record
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.model import WorkbenchModel

if TYPE_CHECKING:
    from workbench.core.jobs import ProgressEvent
    from workbench.core.workspace import Workspace


SAMPLE_SEED = 0  # the lab's question limit draws the same stratified sample every time


def sample_words(sample: QuestionSet, whole: QuestionSet) -> str:
    """How many questions a run takes, e.g. ``30 of 472 questions, stratified by corpus, seed 0``
    (``QuestionSet.sample_line``)."""
    return sample.sample_line(whole, SAMPLE_SEED)


class SweepRun:
    """The lab's sweep: ``start`` reads the inputs and queues the job; a recorded run goes to ``recorded(run id,
    results)``. The lab's question set and the run its tables show are the model's."""

    def __init__(self, workspace: Workspace, inputs: LabInputs, jobs: JobRunner, model: WorkbenchModel,
                 recorded: Callable[[str, list[ConfigResult]], None]) -> None:
        self.ws = workspace
        self.inputs = inputs
        self.jobs = jobs
        self.model = model
        self.recorded = recorded
        self.confirm: Callable[[str], bool] = self._ask  # a large sweep asks first (tests answer for the person)
        self._task: Worker | None = None

    def _ask(self, problem: str) -> bool:
        """Ask whether a large sweep (``problem`` says how large) should start."""
        from PySide6.QtWidgets import QMessageBox

        answer = QMessageBox.question(self.inputs.status.window(), "Start a large sweep?",
                                      f"{problem[0].upper()}{problem[1:]}. Start it?")
        return answer == QMessageBox.StandardButton.Yes

    def start(self, strategies: Sequence[Strategy] | None = None, grid: str | None = None,
              budgets: str | None = None, limit: int | None = None) -> bool:
        """Start the sweep in the background; False (with a status message) when inputs are missing.

        Each argument left None is read from the lab's own field (the checked strategies, *Sweep*, *Budgets*,
        the question limit); the welcome's benchmark path gives all four, so it never depends on what the lab
        was last run with. With budgets every configuration runs at each budget (recorded with the run).
        """
        if self._task is not None:
            return False
        question_set = self.model.question_set
        if question_set is None:
            self.inputs.status.setText("load a question set first")
            return False
        warnings: list[str] = []
        grid = self.inputs.grid.text() if grid is None else grid
        budgets = (self.inputs.budgets.text() if budgets is None else budgets).strip()
        limit = self.inputs.limit.value() if limit is None else limit
        try:
            chosen = list(strategies) if strategies is not None else [
                self.ws.records.resolve_strategy(name) for name in self.inputs.checked_strategies()]
            configs = sweep_configs(chosen, grid, budgets or None, warnings, budgets_field="Budgets")
        except ValueError as exc:
            self.inputs.status.setText(for_the_window(str(exc)))
            return False
        if not configs:
            self.inputs.status.setText("check at least one strategy")
            return False
        qset = question_set.stratified(limit, SAMPLE_SEED) if limit else question_set
        sampled = len(qset.questions) < len(question_set.questions)
        problem = sweep_size_problem(configs, len(qset.questions))
        if problem and not self.confirm(problem):
            self.inputs.status.setText(f"not started: {problem}")
            return False
        ws = self.ws
        selection = Selection(budgets=budgets) if budgets else Selection()
        if sampled:  # the run says which questions, so it can be run again
            selection["questions"] = [q.index for q in qset.questions]
            selection["sample"] = f"stratified, seed {SAMPLE_SEED}"
        self._task = Worker(lambda progress, cancel: sweep_and_record(ws, qset, configs, progress, cancel,
                                                                      selection or None),
                            "evaluation sweep")
        s = self._task.signals  # bound methods, not lambdas: a finished worker must not keep the lab alive
        s.progress.connect(self._on_progress_event)
        s.result.connect(self._on_finished)
        s.error.connect(self._on_error)
        s.cancelled.connect(self._on_cancelled)
        self.inputs.run_button.setEnabled(False)
        self.inputs.cancel_button.setEnabled(True)
        self.inputs.status.setText(f"running {len(configs)} configuration(s) on {sample_words(qset, question_set)}"
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
        self.inputs.progress.setMaximum(max(event.total, 1))
        self.inputs.progress.setValue(event.done)
        self.inputs.progress.setFormat(f"{event.stage} %v/%m")

    def _on_error(self, message: str, _traceback: str) -> None:
        shown = self.model.run.run_id if self.model.run is not None else ""
        kept = f"; the tables still show run {shown}" if shown else ""
        self._done(f"failed: {message}{kept}")

    def _on_cancelled(self) -> None:
        self._done("cancelled")

    def _done(self, message: str) -> None:
        self._task = None
        self.inputs.run_button.setEnabled(True)
        self.inputs.cancel_button.setEnabled(False)
        self.inputs.status.setText(message)

    def _on_finished(self, payload: tuple[str, list[ConfigResult]]) -> None:
        run_id, results = payload
        self._done(f"run {run_id} recorded")
        self.recorded(run_id, results)
