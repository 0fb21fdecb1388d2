"""Progress and cancellation for long jobs: plain values, no Qt, usable from any thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
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
    """One progress report: a stage name, units done of total, and a message for people.

    ``overall``: the whole job's completed share (0–1) when the job planned its stages (``JobPlan``), which
    never goes down while a stage's own counts start again at 0; ``job_elapsed``: seconds since the job began."""

    stage: str
    done: int
    total: int
    message: str = ""
    elapsed: float = 0.0
    overall: float | None = None
    job_elapsed: float = 0.0

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

    @property
    def overall_left_s(self) -> float | None:
        """Seconds the whole job has left at its pace so far (from ``overall``), or None when unknown: no plan,
        or under 2% done or half a second in (too little to tell)."""
        if self.overall is None or self.overall < 0.02 or self.job_elapsed < 0.5:
            return None
        return self.job_elapsed * (1.0 - self.overall) / self.overall


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


class JobPlan:
    """A job's stages, known before it starts, each weighted by its estimated cost (seconds, or any unit common
    to all). The sink of each stage (``stage``) passes that stage's events on with ``overall`` set to the whole
    job's completed share: the stage's start plus its weight times the stage's own fraction (an event's own
    ``overall`` when a nested plan set it, else done / total). The share never goes down: a stage whose counts
    start again (one batch after another) holds it until it passes the highest point reached."""

    def __init__(self, sink: ProgressSink | None, stages: Sequence[tuple[str, float]]) -> None:
        self.sink = sink or no_progress
        total = sum(max(0.0, w) for _, w in stages) or 1.0
        self._span: dict[str, tuple[float, float]] = {}
        start = 0.0
        for key, weight in stages:
            share = max(0.0, weight) / total
            self._span[key] = (start, share)
            start += share
        self.overall = 0.0
        self.started = time.perf_counter()
        self._lock = threading.Lock()

    def stage(self, key: str) -> ProgressSink:
        """The sink for stage ``key`` (one of the planned stages)."""
        start, share = self._span[key]

        def sink(event: ProgressEvent) -> None:
            inner = event.overall if event.overall is not None else (event.fraction if event.total else None)
            with self._lock:
                if inner is not None:
                    self.overall = max(self.overall, min(1.0, start + share * min(1.0, max(0.0, inner))))
                shown = replace(event, overall=self.overall, job_elapsed=time.perf_counter() - self.started)
            self.sink(shown)

        return sink

    def complete(self, key: str) -> None:
        """Stage ``key`` is done (also when it had nothing to do and said nothing): the share moves to its end,
        which the next event shows."""
        start, share = self._span[key]
        with self._lock:
            self.overall = max(self.overall, min(1.0, start + share))
