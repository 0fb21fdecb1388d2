"""The answer panel: Ask, the streamed answer, Stop, a stats line, cited sources and "show prompt".

It works when ``workbench.core.llm`` is importable; otherwise it says "answering backend not installed".
Generation runs on a worker; tokens are appended as they stream in. The backend, model and Ollama host
are the user's (``settings.LLMChoice``); a host that is not this machine shows a warning above the answer.
An extractive answer (no language model) is labelled as such; each finished answer goes to the window's model
(``ui/model.py``), tagged with its question and strategy, where each side's results find the sentences it
quoted. An answer (and its prompt) that belongs to an earlier question or to the side's previous strategy is
greyed, with a note saying so.

"Answer from" picks the sides: A, B, or A and B (one after the other on the answer queue, shown in two
columns, stacked when the panel is narrow). Each answer is built from its own side's passages, so its
citations open that side's passages: a citation ``[n]`` in the text is a link (``citationActivated``). With a
question-set question loaded, each answer is judged by the same model against its reference spans and the
label and the judge's reason show under it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, SignalInstance
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.core.spans import Span
from workbench.ui.answer.answer_backend import AnswerJob, BackendHolder, llm_available, run_answer
from workbench.ui.answer.answer_column import AnswerColumn
from workbench.ui.answer.answer_judging import judge_job, reference_texts
from workbench.ui.basics.settings import LLMChoice
from workbench.ui.basics.wording import for_the_window
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.model import SIDES, WorkbenchModel, as_side
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

NOT_INSTALLED = "answering backend not installed"
SIDE_CHOICES = {"A": ("A",), "B": ("B",), "A and B": ("A", "B")}
STACK_BELOW_PX = 720  # narrower than this, the two answers stack
PROMPT_PX = 160  # the prompt view's share when shown (it scrolls)


class _Relay(QObject):
    """Carries streamed pieces from the worker thread to the GUI thread."""

    token = Signal(str)
    prompt = Signal(str)


class AnswerPanel(QWidget):
    """Ask / Stop, the sides to answer from, one answer column per side, stats, sources and the prompt view.

    The question, each side's strategy and the reference spans to judge against come from ``model``; each
    answer goes back to it. ``answered(job)`` is announced per answer, ``runFinished(jobs)`` after the last
    of a run; ``citationActivated(side, span)`` when a citation ``[n]`` of a side's answer is clicked.
    """

    sourceActivated = Signal(object)  # Span of a cited passage
    citationActivated = Signal(str, object)  # side, Span of the passage cited
    message = Signal(str)
    answered = Signal(object)  # AnswerJob
    runFinished = Signal(list)
    stopped = Signal()
    asked = Signal()  # a new answer run started (the window brings the answers, not the prompt, into view)
    sizeChanged = Signal()  # what the panel shows grew or shrank (``content_height`` changed)

    def __init__(self, workspace: Workspace, model: WorkbenchModel, jobs: JobRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model
        self.jobs = jobs
        self.available = llm_available()
        self.choice = LLMChoice()
        self.holder = BackendHolder()
        self.host_warning = WrappedLabel()
        self.host_warning.setObjectName("banner")
        self.host_warning.setWordWrap(True)
        self.host_warning.hide()
        self.worker: Worker | None = None
        self._outcome: tuple[SignalInstance, tuple[object, ...]] | None = None
        self._pending: list[str] = []  # sides still to answer in this run
        self._run_jobs: list[AnswerJob] = []
        self._side = "A"  # the side answering now (its column receives the tokens)
        self.relay = _Relay(self)
        self.relay.token.connect(self._append)
        self.relay.prompt.connect(self._set_prompt)
        self.ask = QPushButton("Ask")
        self.ask.setObjectName("primary")
        self.stop = QPushButton("Stop")
        self.stop.setToolTip("Stop generating; the text so far stays")
        self.sides = QComboBox()
        self.sides.addItems(list(SIDE_CHOICES))
        self.sides.setToolTip("Answer from A's passages, B's, or both one after the other (side by side)")
        self.sides.currentTextChanged.connect(self._sides_changed)
        self.status = WrappedLabel("" if self.available else NOT_INSTALLED)
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        placeholder = "The answer streams here." if self.available else NOT_INSTALLED
        self.columns: dict[str, AnswerColumn] = {side: AnswerColumn(side, placeholder) for side in SIDES}
        for side, column in self.columns.items():
            column.sourceActivated.connect(self.sourceActivated)
            column.citationActivated.connect(lambda n, s=side: self._citation(s, n))
        first = self.columns["A"]  # the single answer's widgets, as before the side choice
        self.answer, self.stats, self.sources = first.answer, first.stats, first.sources
        self.show_prompt = QPushButton("Show prompt")
        self.show_prompt.setCheckable(True)
        self.copy = QPushButton("Copy prompt")
        self.prompt = QPlainTextEdit()
        self.prompt.setReadOnly(True)
        self.prompt_note = WrappedLabel("")  # the prompt shown belongs to an earlier question
        self.prompt_note.setObjectName("staleNote")
        self.prompt_note.setWordWrap(True)
        self.prompt_box = QWidget()
        box = QVBoxLayout(self.prompt_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.prompt_note)
        box.addWidget(self.prompt, 1)
        self.prompt_box.hide()
        self.prompt_note.hide()
        self.copy.hide()
        self.show_prompt.toggled.connect(self._toggle_prompt)
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.prompt.toPlainText()))
        self.ask.clicked.connect(self.start)
        self.stop.clicked.connect(self.cancel)
        self._layout()
        self.set_backend(model.llm)
        self._sides_changed(self.sides.currentText())
        self._sides_before = ""  # the choice naming B when B was hidden (it comes back with B)
        model.sideBySideChanged.connect(self._side_b_shown)
        self._set_running(False)
        model.llmChanged.connect(self.set_backend)
        for signal in (model.questionChanged, model.strategyChanged, model.answerChanged):
            signal.connect(self._mark_stale)

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.addWidget(self.ask)
        bar.addWidget(QLabel("from"))
        for w in (self.sides, self.stop, self.show_prompt, self.copy):
            bar.addWidget(w)
        bar.addWidget(self.status, 1)
        answers = QWidget()
        self.column_box = QBoxLayout(QBoxLayout.Direction.LeftToRight, answers)
        self.column_box.setContentsMargins(0, 0, 0, 0)
        for column in self.columns.values():
            self.column_box.addWidget(column, 1)
        self.body = QSplitter(Qt.Orientation.Vertical)  # answers above the prompt, each keeping its lines
        self.body.setChildrenCollapsible(False)
        self.body.addWidget(answers)
        self.body.addWidget(self.prompt_box)
        lay = self.outer = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(4)
        lay.addLayout(bar)
        lay.addWidget(self.host_warning)
        lay.addWidget(self.body, 1)

    def _bar_height(self) -> int:
        """The panel's margins, its bar (Ask, the sides, the status) and, when shown, the host warning."""
        lay = self.outer
        margins = lay.contentsMargins()
        bar = max(w.sizeHint().height() for w in (self.ask, self.sides, self.status))
        height = margins.top() + margins.bottom() + bar + lay.spacing()
        if not self.host_warning.isHidden():
            height += self.host_warning.sizeHint().height() + lay.spacing()
        return height

    def least_height(self) -> int:
        """The least height the answers are of use in: the bar, and each shown answer's least (its text
        ``ANSWER_LINES`` lines, its stats and sources); the prompt, when shown, scrolls below them."""
        height = self._bar_height()
        answers = self.body.widget(0)
        return height + (answers.minimumSizeHint().height() if answers is not None else 0)

    def content_height(self) -> int:
        """The height the panel needs to show its answers whole (stats, judge's lines and cited passages
        included) and, when shown, the prompt: the window sizes the answer pane to it."""
        height = self._bar_height()
        shown = [c.content_height() for c in self.columns.values() if not c.isHidden()]
        side_by_side = self.column_box.direction() == QBoxLayout.Direction.LeftToRight
        height += (max(shown) if side_by_side else sum(shown)) if shown else 0
        if not self.prompt_box.isHidden():
            height += PROMPT_PX + self.body.handleWidth()
        return height

    def set_backend(self, choice: LLMChoice) -> None:
        """Answer with ``choice`` from the next question on (an answer in progress keeps its backend)."""
        self.choice = choice
        self.holder = BackendHolder(choice.core(), blocked=choice.blocked())
        # LLM rerank, summaries and contextual sentences use the same choice (opened on first use)
        self.ws.use_llm(self.holder.get)
        self.ws.models.use_ollama_host(choice.host or None, choice.allow_remote())  # ollama: embedding models too
        warning = choice.blocked() or choice.warning()
        self.host_warning.setText(f"Warning: {warning}." if warning else "")
        self.host_warning.setVisible(bool(warning))
        self._update_tooltip()

    def set_sides(self, choice: str) -> None:
        """Answer from ``"A"``, ``"B"`` or ``"A and B"`` from the next question on."""
        if choice not in SIDE_CHOICES:
            raise ValueError(f"no side choice {choice!r}: {', '.join(SIDE_CHOICES)}")
        self._sides_before = ""
        self.sides.setCurrentText(choice)

    def _side_b_shown(self, shown: bool) -> None:
        """B hidden (one side): the answer comes from A's passages, as the window shows only A; the choice that
        named B comes back when B is shown again."""
        if not shown and "B" in self.answer_sides():
            self._sides_before = self.sides.currentText()
            self.sides.setCurrentText("A")
        elif shown and self._sides_before:
            self.sides.setCurrentText(self._sides_before)
            self._sides_before = ""

    def answer_sides(self) -> tuple[str, ...]:
        """The sides the next question is answered from."""
        return SIDE_CHOICES[self.sides.currentText()]

    def _sides_changed(self, _text: str) -> None:
        sides = self.answer_sides()
        for side, column in self.columns.items():
            column.setVisible(side in sides)
            column.set_title_shown(len(sides) > 1 or side != "A")
        self._update_tooltip()
        self.sizeChanged.emit()

    def _update_tooltip(self) -> None:
        sides = " and ".join(self.answer_sides())
        self.ask.setToolTip(f"Answer the question from strategy {sides}'s passages with "
                            f"{describe_choice(self.choice)} (Ctrl+Enter)")

    def _set_running(self, running: bool) -> None:
        self.ask.setEnabled(self.available and not running)
        self.stop.setEnabled(running)
        self.sides.setEnabled(not running)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Two answers side by side when there is room, stacked otherwise."""
        wide = event.size().width() >= STACK_BELOW_PX
        self.column_box.setDirection(QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom)
        super().resizeEvent(event)

    # ----- what is shown belongs to the current question and strategies -----------------------
    def _mark_stale(self, *_: object) -> None:
        """Each column says when its answer is not the current question's or its side's strategy's; so does
        the prompt."""
        words_of: dict[str, str] = {}
        for side, column in self.columns.items():
            words = self.model.stale_words(side, self.model.answer(side), "Answer")
            column.set_stale(words)
            words_of[side] = words
        shown = [s for s in self.answer_sides() if self.model.answer(s) is not None]
        words = next((words_of[s] for s in shown if words_of[s]), "")
        self.prompt_note.setText(words.replace("Answer", "Prompt", 1))
        self.prompt_note.setVisible(bool(words))

    def _citation(self, side: str, number: int) -> None:
        """A citation ``[number]`` of ``side``'s answer: the passage it cites."""
        answer = self.model.answer(side)
        sources = answer.sources if isinstance(answer, AnswerJob) else []
        span = next((span for label, span in sources if label.startswith(f"[{number}]")), None)
        if span is None:
            self.message.emit(f"[{number}] cites no passage shown to the model.")
            return
        self.citationActivated.emit(side, Span(*span))

    # ----- actions --------------------------------------------------------------------------
    def start(self) -> None:
        """Answer the current question from each chosen side's strategy, one side after the other."""
        if not self.available or self.worker is not None:
            return
        if not self.model.question:
            self.status.setText("Type a question first.")
            return
        self._pending = list(self.answer_sides())
        self._run_jobs = []
        self.prompt.clear()
        self.show_prompt.setChecked(False)  # a new answer, not the last prompt, in view
        self.asked.emit()
        for side, column in self.columns.items():
            if side in self._pending:
                column.clear()
                self.model.set_answer(side, None)
        self._start_next()

    def _start_next(self) -> None:
        side = self._side = self._pending.pop(0)
        question, strategy = self.model.question, self.model.strategy(side)
        self.model.set_answer(side, AnswerJob(question, strategy, side=as_side(side)))  # streams into it
        prefix = f"{side}: " if len(self._run_sides()) > 1 else ""
        self.status.setText(f"{prefix}loading the model and reading the passages…")
        ws, holder, relay = self.ws, self.holder, self.relay
        judging = self.model.reference if self.model.from_question_set else None

        def job(_progress: ProgressSink, cancel: CancelToken) -> AnswerJob:
            done = run_answer(ws, question, strategy, holder, relay.prompt.emit, relay.token.emit, cancel)
            done.side = side
            if judging is not None and not cancel.cancelled:
                judge_job(done, holder.get(), reference_texts(ws, judging), cancel)
            return done

        worker = Worker(job, f"answer {side}")
        worker.signals.result.connect(self._done)
        worker.signals.error.connect(lambda msg, _tb: self._failed(msg))
        worker.signals.cancelled.connect(self._cancelled)
        worker.signals.finished.connect(self._finished)
        self.worker = worker
        self._set_running(True)
        self.jobs.start(worker)

    def cancel(self) -> None:
        """Stop the answer being generated (and the sides still waiting)."""
        self._pending = []
        if self.worker is not None:
            self.worker.cancel()

    # ----- stream ---------------------------------------------------------------------------
    def _append(self, piece: str) -> None:
        if "loading the model" in self.status.text():
            self.status.setText(f"{self._side}: answering…" if len(self._run_sides()) > 1 else "answering…")
        self.columns[self._side].append(piece)
        self.sizeChanged.emit()

    def _run_sides(self) -> list[str]:
        return [j.side for j in self._run_jobs] + [self._side] + self._pending

    def _set_prompt(self, text: str) -> None:
        if len(self._run_sides()) > 1:
            text = f"═══ {self._side} ═══\n{text}"
            previous = self.prompt.toPlainText()
            text = f"{previous}\n\n{text}" if previous else text
        self.prompt.setPlainText(text)

    def _done(self, job: AnswerJob) -> None:
        stopped = self.worker is not None and self.worker.cancelled
        self.columns[job.side].show_job(job)
        self.model.set_answer(job.side, job)
        self.sizeChanged.emit()
        if stopped:  # the model stopped early; the partial answer stays
            self._cancelled()
            return
        self._run_jobs.append(job)
        self.status.setText(for_the_window("; ".join(job.warnings)) if job.warnings else "done")
        self._outcome = (self.answered, (job,))

    def _failed(self, message: str) -> None:
        self.status.setText(f"answer failed: {message}")
        self.message.emit(f"Answer failed: {message}")
        self._pending = []
        self._outcome = None

    def _cancelled(self) -> None:
        self.status.setText("stopped; the text so far is kept")
        self._pending = []
        self._outcome = (self.stopped, ())

    def _finished(self) -> None:
        """Last signal of a worker: the next side starts, or the panel is ready for the next question; then
        the outcome is announced."""
        self.worker = None
        outcome, self._outcome = self._outcome, None
        if self._pending:
            self._start_next()
        else:
            self._set_running(False)
        if outcome is None:
            return
        signal, args = outcome
        signal.emit(*args)
        if signal is self.answered and self.worker is None:  # the run's last answer
            self.runFinished.emit(list(self._run_jobs))

    def _toggle_prompt(self, shown: bool) -> None:
        self.prompt_box.setVisible(shown)
        self.copy.setVisible(shown)
        self.show_prompt.setText("Hide prompt" if shown else "Show prompt")
        self.sizeChanged.emit()


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
