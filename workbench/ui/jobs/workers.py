"""A small reusable background worker: QThreadPool + QRunnable with signals.

``Worker(fn)`` runs ``fn(progress, cancel)`` on a pool thread. ``progress`` is a core progress sink
(``ProgressEvent`` values are forwarded to the ``progress`` signal); ``cancel`` is a core
``CancelToken``, set by ``Worker.cancel()``; a job that stops for it raises ``Cancelled``. The signals arrive
in the thread that created the worker
(the GUI thread), in this order: ``started``, any ``progress``, one of ``result`` / ``error`` /
``cancelled``, then ``finished``. A worker whose signals object is gone (its window was closed and deleted
while it ran) finishes quietly. ``JobRunner.shutdown`` cancels its workers, waits for them and refuses new
ones, so closing a window never leaves a job running (nor a thread pool to wait for while Python is busy).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, SignalInstance
from shiboken6 import isValid

from workbench.core.jobs import Cancelled, CancelToken, ProgressEvent
from workbench.ui.basics.wording import for_the_window

log = logging.getLogger(__name__)

JobFn = Callable[[Callable[[ProgressEvent], None], CancelToken], Any]


class WorkerSignals(QObject):
    """Signals of one worker (a QRunnable is not a QObject, so they live here)."""

    started = Signal()
    progress = Signal(object)  # ProgressEvent
    result = Signal(object)
    error = Signal(str, str)  # message for people, traceback for the log
    cancelled = Signal()
    finished = Signal()


class Worker(QRunnable):
    """Runs one job function on a pool thread; see the module docstring."""

    def __init__(self, fn: JobFn, name: str = "job") -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python keeps the reference; Qt must not delete it under us
        self.fn = fn
        self.name = name
        self.token = CancelToken()
        self.signals = WorkerSignals()
        self.done = False

    def cancel(self) -> None:
        """Ask the job to stop at its next check (it then emits ``cancelled``)."""
        self.token.cancel()

    @property
    def cancelled(self) -> bool:
        """True once cancel was requested."""
        return self.token.cancelled

    def _progress(self, event: ProgressEvent) -> None:
        self._emit(self.signals.progress, event)

    def _emit(self, signal: SignalInstance, *args: object) -> None:
        """Emit ``signal``, unless its object was deleted with a closed window (then the job is cancelled)."""
        try:
            signal.emit(*args)
        except RuntimeError:  # "Signal source has been deleted": nobody is listening any more
            self.token.cancel()

    def run(self) -> None:  # QRunnable API
        s = self.signals
        self._emit(s.started)
        try:
            value = self.fn(self._progress, self.token)
        except Cancelled:
            log.info("%s cancelled", self.name)
            self._emit(s.cancelled)
        except Exception as exc:  # every failure is reported to the UI, never only to stderr
            log.exception("%s failed", self.name)
            self._emit(s.error, _message(exc), traceback.format_exc())
        else:
            self._emit(s.result, value)  # a job that finished despite a late cancel still reports its result
        finally:
            self.done = True
            self._emit(s.finished)


def while_alive(owner: QObject, slot: Callable[..., object]) -> Callable[..., None]:
    """``slot``, called only while the Qt object ``owner`` still exists (a worker may finish after the view
    that started it was closed and deleted)."""
    def call(*args: object) -> None:
        if isValid(owner):
            slot(*args)

    return call


def _message(exc: BaseException) -> str:
    """One line for people: the message alone for errors the core words for users, else with the type; the
    command line's option names put in the window's words (``wording``)."""
    text = " ".join(str(exc).split())
    if not text:
        return type(exc).__name__
    user_facing = isinstance(exc, (ValueError, RuntimeError)) or type(exc).__name__.endswith("StoreError")
    return for_the_window(text if user_facing else f"{type(exc).__name__}: {text}")


class JobRunner(QObject):
    """Starts workers on one pool and keeps them alive until they finish.

    ``max_threads=1`` gives a serial queue (used for jobs that write to the store). ``jobFinished`` follows
    each worker's own ``finished`` (whoever started it: the window reads the data folder again then).
    """

    jobFinished = Signal()

    def __init__(self, max_threads: int = 1, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._active: set[Worker] = set()
        self.closed = False  # after shutdown: nothing new starts

    def start(self, worker: Worker) -> Worker:
        """Queue ``worker``; returns it (connect its signals before the event loop runs again). After
        ``shutdown`` the worker is not run."""
        if self.closed:
            log.info("%s not started: its window is closing", worker.name)
            worker.cancel()
            return worker
        self._active.add(worker)
        worker.signals.finished.connect(lambda w=worker: self._active.discard(w))
        worker.signals.finished.connect(self.jobFinished)
        self.pool.start(worker)
        return worker

    @property
    def busy(self) -> bool:
        """True while a worker of this runner is queued or running."""
        return any(not w.done for w in self._active)

    def cancel_all(self) -> None:
        """Ask every queued or running worker to stop."""
        for w in list(self._active):
            w.cancel()

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Refuse new workers, cancel everything and wait for the pool threads; True when all stopped in time."""
        self.closed = True
        self.cancel_all()
        self.pool.clear()
        return self.pool.waitForDone(timeout_ms)
