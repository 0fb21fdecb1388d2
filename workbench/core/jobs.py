"""Progress and cancellation for long jobs: plain values, no Qt, usable from any thread."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Protocol


class Cancelled(Exception):
    """Raised inside a job when its cancel token was set; the job leaves the store consistent."""


class CancelToken:
    """A thread-safe flag a caller sets to ask a running job to stop at its next check."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once ``cancel`` was called."""
        return self._event.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` if cancellation was requested."""
        if self._event.is_set():
            raise Cancelled()


@dataclass(frozen=True)
class ProgressEvent:
    """One progress report: a stage name, units done of total, and a message for people."""

    stage: str
    done: int
    total: int
    message: str = ""
    elapsed: float = 0.0

    @property
    def fraction(self) -> float:
        """Completed share in 0–1 (0 when the total is unknown)."""
        return self.done / self.total if self.total else 0.0

    @property
    def rate(self) -> float:
        """Units per second so far."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def remaining_s(self) -> float | None:
        """Estimated seconds left, or None when unknown."""
        if not self.total or not self.done or self.elapsed <= 0:
            return None
        return (self.total - self.done) / self.rate


class ProgressSink(Protocol):
    """Receives progress events (a callable)."""

    def __call__(self, event: ProgressEvent, /) -> None: ...


def no_progress(event: ProgressEvent) -> None:
    """A progress sink that ignores everything."""


class Reporter:
    """Wraps a sink: adds elapsed time and throttles reports to visible steps (≥1% or 0.1 s)."""

    def __init__(self, sink: ProgressSink | None, stage: str, total: int) -> None:
        self.sink = sink or no_progress
        self.stage = stage
        self.total = total
        self.started = time.perf_counter()
        self._last_done = -1
        self._last_time = 0.0

    def __call__(self, done: int, message: str = "", force: bool = False) -> None:
        t = time.perf_counter()
        step = max(1, self.total // 100)
        if force or done >= self.total or done - self._last_done >= step or t - self._last_time > 0.1:
            self._last_done, self._last_time = done, t
            self.sink(ProgressEvent(self.stage, done, self.total, message, t - self.started))
