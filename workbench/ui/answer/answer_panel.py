"""The answer panel: Ask, the streamed answer, Stop, a stats line, cited sources and "show prompt".

It works when ``workbench.core.llm`` is importable; otherwise it says "answering backend not installed".
Generation runs on a worker; tokens are appended as they stream in. The backend, model and Ollama host
are the user's (``settings.LLMChoice``); a host that is not this machine shows a warning above the answer.
An extractive answer (no language model) is labelled as such, and its quoted sentences are announced through
``quotesChanged`` so the results view can highlight them inside their passages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.spans import Span
from workbench.ui.answer.answer_backend import AnswerJob, BackendHolder, llm_available, run_answer
from workbench.ui.app.settings import LLMChoice
from workbench.ui.window.workers import JobRunner, Worker

if TYPE_CHECKING:
    from workbench.core.retrieve.strategies import Strategy
    from workbench.core.workspace import Workspace

NOT_INSTALLED = "answering backend not installed"
SPAN_ROLE = Qt.ItemDataRole.UserRole


class _Relay(QObject):
    """Carries streamed pieces from the worker thread to the GUI thread."""

    token = Signal(str)
    prompt = Signal(str)


class AnswerPanel(QWidget):
    """Ask / Stop, answer text, stats, sources and the prompt view."""

    sourceActivated = Signal(object)  # Span of a cited passage
    message = Signal(str)
    answered = Signal(object)  # AnswerJob
    stopped = Signal()
    quotesChanged = Signal(list)  # noqa: N815 - Qt naming; [Span] quoted by an extractive answer ([] to clear)

    def __init__(self, workspace: Workspace, context: Callable[[], tuple[str, Strategy]], jobs: JobRunner,
                 parent: QWidget | None = None, backend: LLMChoice | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.context = context  # -> (question, strategy) to answer with
        self.jobs = jobs
        self.available = llm_available()
        self.choice = LLMChoice()
        self.holder = BackendHolder()
        self.host_warning = QLabel()
        self.host_warning.setObjectName("banner")
        self.host_warning.setWordWrap(True)
        self.host_warning.hide()
        self.worker: Worker | None = None
        self._outcome: tuple | None = None
        self.relay = _Relay(self)
        self.relay.token.connect(self._append)
        self.relay.prompt.connect(self._set_prompt)
        self.ask = QPushButton("Ask")
        self.ask.setObjectName("primary")
        self.ask.setToolTip("Answer the question from strategy A's passages with the local model (Ctrl+Enter)")
        self.stop = QPushButton("Stop")
        self.stop.setToolTip("Stop generating; the text so far stays")
        self.status = QLabel("" if self.available else NOT_INSTALLED)
        self.status.setObjectName("muted")
        self.answer = QPlainTextEdit()
        self.answer.setReadOnly(True)
        self.answer.setPlaceholderText("The answer streams here." if self.available else NOT_INSTALLED)
        self.stats = QLabel("")
        self.stats.setObjectName("stats")
        self.stats.setWordWrap(True)
        self.sources = QListWidget()
        self.sources.setMaximumHeight(90)
        self.sources.setToolTip("Passages the answer cites; double-click to open one in the document view")
        self.sources.itemActivated.connect(self._source_activated)
        self.show_prompt = QPushButton("Show prompt")
        self.show_prompt.setCheckable(True)
        self.copy = QPushButton("Copy prompt")
        self.prompt = QPlainTextEdit()
        self.prompt.setReadOnly(True)
        self.prompt.hide()
        self.copy.hide()
        self.show_prompt.toggled.connect(self._toggle_prompt)
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.prompt.toPlainText()))
        self.ask.clicked.connect(self.start)
        self.stop.clicked.connect(self.cancel)
        self._layout()
        self.set_backend(backend or LLMChoice())
        self._set_running(False)

    def _layout(self) -> None:
        bar = QHBoxLayout()
        for w in (self.ask, self.stop, self.show_prompt, self.copy):
            bar.addWidget(w)
        bar.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(bar)
        lay.addWidget(self.host_warning)
        lay.addWidget(self.answer, 2)
        lay.addWidget(self.stats)
        lay.addWidget(self.sources)
        lay.addWidget(self.prompt, 2)

    def set_backend(self, choice: LLMChoice) -> None:
        """Answer with ``choice`` from the next question on (an answer in progress keeps its backend)."""
        self.choice = choice
        self.holder = BackendHolder(choice.core(), blocked=choice.blocked())
        # LLM rerank, summaries and contextual sentences use the same choice (opened on first use)
        self.ws.use_llm(self.holder.get)
        warning = choice.blocked() or choice.warning()
        self.host_warning.setText(f"Warning: {warning}." if warning else "")
        self.host_warning.setVisible(bool(warning))
        self.ask.setToolTip("Answer the question from strategy A's passages with "
                            f"{describe_choice(choice)} (Ctrl+Enter)")

    def _set_running(self, running: bool) -> None:
        self.ask.setEnabled(self.available and not running)
        self.stop.setEnabled(running)

    # ----- actions --------------------------------------------------------------------------
    def start(self) -> None:
        """Answer the current question with the current strategy."""
        if not self.available or self.worker is not None:
            return
        question, strategy = self.context()
        if not question:
            self.status.setText("Type a question first.")
            return
        self.answer.clear()
        self.sources.clear()
        self.stats.setText("")
        self.quotesChanged.emit([])
        self.status.setText("loading the model and reading the passages…")
        ws, holder, relay = self.ws, self.holder, self.relay
        worker = Worker(lambda _progress, cancel: run_answer(ws, question, strategy, holder, relay.prompt.emit,
                                                             relay.token.emit, cancel), "answer")
        worker.signals.result.connect(self._done)
        worker.signals.error.connect(lambda msg, _tb: self._failed(msg))
        worker.signals.cancelled.connect(self._cancelled)
        worker.signals.finished.connect(self._finished)
        self.worker = worker
        self._set_running(True)
        self.jobs.start(worker)

    def cancel(self) -> None:
        """Stop the answer being generated."""
        if self.worker is not None:
            self.worker.cancel()

    # ----- stream ---------------------------------------------------------------------------
    def _append(self, piece: str) -> None:
        if self.status.text().startswith("loading"):
            self.status.setText("answering…")
        cursor = self.answer.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)

    def _set_prompt(self, text: str) -> None:
        self.prompt.setPlainText(text)

    def _done(self, job: AnswerJob) -> None:
        stopped = self.worker is not None and self.worker.cancelled
        self.stats.setText(job.stats_line)
        if job.quotes:
            self.quotesChanged.emit([Span(*q) for q in job.quotes])
        for label, span in job.sources:
            item = QListWidgetItem(label)
            item.setData(SPAN_ROLE, span)
            self.sources.addItem(item)
        if stopped:  # the model stopped early; the partial answer stays
            self._cancelled()
            return
        self.status.setText("; ".join(job.warnings) if job.warnings else "done")
        self._outcome = (self.answered, (job,))

    def _failed(self, message: str) -> None:
        self.status.setText(f"answer failed: {message}")
        self.message.emit(f"Answer failed: {message}")
        self._outcome = None

    def _cancelled(self) -> None:
        self.status.setText("stopped; the text so far is kept")
        self._outcome = (self.stopped, ())

    def _finished(self) -> None:
        """Last signal of a run: the panel is ready for the next question, then the outcome is announced."""
        self.worker = None
        self._set_running(False)
        outcome, self._outcome = self._outcome, None
        if outcome is not None:
            signal, args = outcome
            signal.emit(*args)

    def _toggle_prompt(self, shown: bool) -> None:
        self.prompt.setVisible(shown)
        self.copy.setVisible(shown)
        self.show_prompt.setText("Hide prompt" if shown else "Show prompt")

    def _source_activated(self, item: QListWidgetItem) -> None:
        span = item.data(SPAN_ROLE)
        if span:
            self.sourceActivated.emit(Span(*span))


def describe_choice(choice: LLMChoice) -> str:
    """``choice`` in words, for tooltips: which backend and model answer."""
    if choice.kind == "embedded":
        return "the embedded tiny plumbing demo (SmolLM2-135M)"
    if choice.kind == "extractive":
        return "extractive answers (the closest sentences, no language model)"
    where = f"Ollama at {choice.effective_host()}"
    if choice.model:
        return f"{choice.model} ({where})"
    if choice.kind == "ollama":
        return f"the first model of {where}"
    return f"{where} when it answers, else extractive answers (no language model)"
