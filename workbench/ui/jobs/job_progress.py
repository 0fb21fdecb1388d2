"""A progress line for background jobs: what is happening, what the build expects (the core's cost estimate,
an ``estimate`` event: chunks, texts to embed, time on this machine), a bar, rate, time left and Cancel.

A job that planned its stages (``core.jobs.JobPlan``) sends its whole share with every event: the bar shows
that share and never moves back while the phases' own counts start again ("Cutting documents 3 / 10",
"Embedding chunks 312 / 1,415", "Scoring questions 40 / 120"), and the time left is the whole job's."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from workbench.core.index.estimate import about
from workbench.core.jobs import ProgressEvent

STAGES = {"reading": ("Reading", "documents"), "chunking": ("Cutting", "documents"),
          "embedding": ("Embedding", "chunks"), "indexing": ("Indexing", "chunks"),
          "evaluating": ("Scoring", "questions"), "answering": ("Answering", "questions")}
STEPS = 1000  # the bar's steps for a job's whole share

EXPECTED_TIP = ("What this build expected before it started: chunks, texts to embed (not cached yet) and the time "
                "on this machine, from the embedding rate measured here")


def expected_text(message: str) -> str:
    """The estimate as the line shows it: the time first (what is clipped when the line is narrow is the
    rest), e.g. ``expects about 25 s · ~1,240 chunks, 310 to embed`` for ``200 tokens: ~1,240 chunks, 310 to
    embed, about 25 s``."""
    *counts, time = message.rsplit(": ", 1)[-1].split(", ")
    return f"expects {time} · {', '.join(counts)}" if counts else f"expects {time}"


def describe(event: ProgressEvent) -> str:
    """One line for people: stage, units done of total, rate and time left; for a planned job (``overall``)
    the phase, its counts and the whole job's time left: ``Embedding chunks 312 / 1,415 · about 25 s left``."""
    verb, unit = STAGES.get(event.stage, (event.stage.capitalize(), "items"))
    if event.overall is not None:
        text = f"{verb} {unit} {event.done:,} / {event.total:,}" if event.total else f"{verb}…"
        if event.message and not event.total:
            text = event.message
        left = event.overall_left_s
        if left is not None and event.overall < 1:
            text += f" · {about(left)} left"
        return text
    text = f"{verb} {unit} {event.done}/{event.total}" if event.total else f"{verb}…"
    if event.rate and event.done < event.total:
        text += f" · {event.rate:.0f}/s" if event.rate >= 10 else f" · {event.rate:.1f}/s"
    left = event.remaining_s
    if left is not None and event.done < event.total:
        text += f" · ~{left:.0f} s left" if left >= 1 else " · <1 s left"
    return text


def show_share(bar: QProgressBar, event: ProgressEvent) -> None:
    """Show ``event`` on a plain bar with its text inside: a planned job's whole share (never moving back,
    until the bar is reset with ``setRange(0, 0)`` or another maximum for the next job) and ``describe``'s
    line; an event without a share shows its own counts."""
    if event.overall is not None:
        if bar.maximum() != STEPS:
            bar.setRange(0, STEPS)
            bar.setValue(0)
        if event.total or event.overall:
            bar.setValue(max(bar.value(), round(event.overall * STEPS)))
    elif event.total:
        bar.setRange(0, event.total)
        bar.setValue(min(event.done, event.total))
    else:
        return
    bar.setFormat(describe(event).replace("%", "%%"))


class JobProgress(QWidget):
    """Hidden until ``start``; ``cancelRequested`` fires when Cancel is pressed."""

    cancelRequested = Signal()

    def __init__(self, parent: QWidget | None = None, label: Callable[[], QLabel] = QLabel) -> None:
        """``label`` makes the title and detail labels: a side or the library passes one that elides, so the
        line never asks for more width than its pane has (the pane does not widen while a job runs)."""
        super().__init__(parent)
        self.title = label()
        self.expected = QLabel()  # the build's cost estimate, kept while the job runs
        self.expected.setObjectName("muted")
        # never wider than the room left: a long line must not widen a side past a laptop screen
        self.expected.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.detail = label()
        self.detail.setObjectName("muted")
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(12)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop this job; the store stays consistent and the next run resumes it")
        self.cancel.clicked.connect(self._cancel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 2)
        lay.addWidget(self.title)
        lay.addWidget(self.expected, 2)
        lay.addWidget(self.bar, 1)
        lay.addWidget(self.detail)
        lay.addWidget(self.cancel)
        self.last_event: ProgressEvent | None = None
        self.hide()

    def start(self, title: str) -> None:
        """Show the line with a busy bar."""
        self.title.setText(title)
        self.expected.clear()
        self.expected.hide()
        self.detail.setText("starting…")
        self.bar.setRange(0, 0)
        self.bar.setToolTip("")
        self.cancel.setEnabled(True)
        self.last_event = None
        self.show()

    def update_event(self, event: ProgressEvent) -> None:
        """Show a progress event (an ``estimate`` stays beside the title until the next job)."""
        if event.stage == "estimate":
            self.expected.setText(expected_text(event.message))
            self.expected.setToolTip(f"{event.message}\n{EXPECTED_TIP}")
            self.expected.show()
            return
        self.last_event = event
        if event.overall is not None:  # the whole job's share: never back, whatever the phase counts
            if self.bar.maximum() != STEPS:
                self.bar.setRange(0, STEPS)
                self.bar.setValue(0)
            self.bar.setValue(max(self.bar.value(), round(event.overall * STEPS)))
            self.bar.setToolTip(f"{event.overall:.0%} of the whole job")
        elif event.total:
            self.bar.setRange(0, event.total)
            self.bar.setValue(min(event.done, event.total))
        else:
            self.bar.setRange(0, 0)
        self.detail.setText(describe(event))

    def finish(self) -> None:
        """Hide the line."""
        self.hide()

    def _cancel(self) -> None:
        self.cancel.setEnabled(False)
        self.detail.setText("cancelling…")
        self.cancelRequested.emit()
