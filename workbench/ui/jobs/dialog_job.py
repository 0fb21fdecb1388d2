"""One background job at a time for a dialog: its Start button, its progress line (with Cancel) and the line that
says how the job ended. The import dialog and the LLM tools' dialogs own one each (composition: the dialog keeps
its form and says what a result means).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from workbench.ui.jobs.workers import JobFn, JobRunner, Worker

if TYPE_CHECKING:
    from PySide6.QtWidgets import QPushButton

    from workbench.ui.jobs.job_progress import JobProgress


class DialogJob(QObject):
    """Runs a dialog's job on ``runner``: the ``start_button`` is disabled and ``progress`` shown while it runs,
    ``progress``'s Cancel asks it to stop; ``say`` writes the line that says how it ended."""

    def __init__(self, runner: JobRunner, progress: JobProgress, start_button: QPushButton,
                 say: Callable[[str], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.progress, self.start_button, self.say = runner, progress, start_button, say
        self.worker: Worker | None = None
        progress.cancelRequested.connect(self.cancel)

    @property
    def running(self) -> bool:
        """True while the job runs."""
        return self.worker is not None

    def run(self, fn: JobFn, name: str, title: str, on_result: Callable[[object], None], failed: str,
            cancelled: str) -> bool:
        """Start ``fn`` (``name`` for the log, ``title`` on the progress line); its result goes to ``on_result``,
        an error is said as ``failed`` + the message, a cancellation as ``cancelled``. False when a job runs."""
        if self.worker is not None:
            return False
        worker = Worker(fn, name)
        s = worker.signals
        s.progress.connect(self.progress.update_event)
        s.result.connect(on_result)
        s.error.connect(lambda msg, _tb: self.say(f"{failed}{msg}"))
        s.cancelled.connect(lambda: self.say(cancelled))
        s.finished.connect(self._finished)
        self.worker = worker
        self.start_button.setEnabled(False)
        self.say("")
        self.progress.start(title)
        self.runner.start(worker)
        return True

    def cancel(self) -> None:
        """Ask the running job to stop."""
        if self.worker is not None:
            self.worker.cancel()

    def _finished(self) -> None:
        self.worker = None
        self.progress.finish()
        self.start_button.setEnabled(True)
