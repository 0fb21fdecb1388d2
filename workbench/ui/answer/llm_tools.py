"""LLM tools of the workbench window: "Contextualize chunks…" and "Make questions…".

Both run on a background worker (``workers.Worker``; on the window's store queue when given, since both
write to the store) with a progress line and Cancel, and use only the local backends (embedded or
Ollama). The window's "Tools" menu opens them through ``open_contextualize`` / ``open_make_questions`` (they
take the workspace, a job queue and a callback, not the window); the dialogs also open on their own
(``ContextualizeDialog(ws, …)``, ``MakeQuestionsDialog(ws, …)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.ingest.chunkers.choice import chunk_overlap, chunk_size, chunk_unit, with_chunk_size
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig, max_overlap
from workbench.ui.jobs.dialog_job import DialogJob
from workbench.ui.jobs.job_progress import JobProgress
from workbench.ui.jobs.workers import JobFn, JobRunner, Worker

if TYPE_CHECKING:
    from workbench.core.evaluate.synthetic import GenerationResult
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.llm.base import Backend
    from workbench.core.workspace import Workspace

LLMFactory = Callable[["Workspace", str], "Backend"]  # (workspace, backend kind) -> backend


def open_local_llm(ws: Workspace, kind: str) -> Backend:
    """The local backend ``kind`` (auto: the workspace's shared one); raises ``ValueError`` with the reason."""
    if kind == "auto":
        llm, why = ws.pipeline_llm()
        if llm is None:
            raise ValueError(why)
        return llm
    from workbench.core.llm import LLMChoice, LLMError, open_backend

    try:
        return open_backend(LLMChoice(kind))
    except LLMError as exc:
        raise ValueError(str(exc)) from None


class _ToolDialog(QDialog):
    """A form, a Start button, a progress line with Cancel and a status line; runs one job at a time."""

    jobFinished = Signal(object)

    def __init__(self, ws: Workspace, title: str, runner: JobRunner | None, llm_factory: LLMFactory | None,
                 parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.ws = ws
        self.runner = runner or JobRunner(1, self)
        self.llm_factory = llm_factory or open_local_llm
        self.form = QFormLayout()
        self.backend = QComboBox()
        self.backend.addItems(["auto", "embedded", "ollama"])
        self.backend.setToolTip("auto: Ollama when its server answers with a model (these tools need a generative "
                                "model); embedded: a tiny plumbing demo (SmolLM2-135M), not for real text")
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("primary")
        self.start_button.clicked.connect(self.start)
        self.progress = JobProgress()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.task = DialogJob(self.runner, self.progress, self.start_button, self.status.setText, self)
        self.close_button = QPushButton("Cancel")  # closes the dialog; a running job is cancelled first
        self.close_button.setToolTip("Close without starting (a running job stops; what it did is kept)")
        self.close_button.clicked.connect(self.reject)
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.close_button)
        self.buttons.addWidget(self.start_button)
        lay = QVBoxLayout(self)
        lay.addLayout(self.form)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addLayout(self.buttons)

    def job(self, llm_kind: str) -> JobFn:
        """The job function to run (subclasses)."""
        raise NotImplementedError

    def describe(self, result: object) -> str:
        """The status line for a finished job (subclasses)."""
        raise NotImplementedError

    @property
    def running(self) -> bool:
        """True while the job runs."""
        return self.task.running

    @property
    def worker(self) -> Worker | None:
        """The running job's worker (None when none runs)."""
        return self.task.worker

    def start(self) -> bool:
        """Start the job in the background; False when one is running or the inputs are bad."""
        if self.task.running:
            return False
        try:
            fn = self.job(self.backend.currentText())
        except ValueError as exc:
            self.status.setText(str(exc))
            return False
        return self.task.run(fn, self.windowTitle(), self.windowTitle().rstrip("…"), self._result, "failed: ",
                             "cancelled (what was done is kept and reused next time)")

    def cancel(self) -> None:
        """Ask the running job to stop."""
        self.task.cancel()

    def _result(self, result: object) -> None:
        self.status.setText(self.describe(result))
        self.jobFinished.emit(result)

    def done(self, code: int) -> None:  # QDialog API: closing cancels the job
        self.cancel()
        super().done(code)


class ContextualizeDialog(_ToolDialog):
    """Build the contextual chunk set (an LLM sentence situating each chunk) for a chunk configuration."""

    def __init__(self, ws: Workspace, config: ChunkConfig | None = None, runner: JobRunner | None = None,
                 llm_factory: LLMFactory | None = None, parent: QWidget | None = None) -> None:
        super().__init__(ws, "Contextualize chunks…", runner, llm_factory, parent)
        config = config or ChunkConfig()
        self.base = config
        self.size_box = QSpinBox()
        self.size_box.setRange(8, 4000)
        self.size_box.setValue(chunk_size(config))
        self.size_box.setSuffix(f" {chunk_unit(config)}")
        self.size_box.setEnabled(chunk_size(config) > 0)  # a chunker without a size (headings) keeps its cuts
        self.heading = QCheckBox("Also embed the heading path")
        self.heading.setChecked(config.heading_prefix)
        self.form.addRow("Chunk size", self.size_box)
        self.form.addRow("", self.heading)
        self.form.addRow("LLM backend", self.backend)
        note = QLabel("The local LLM writes one sentence per chunk that situates it in its document; it is "
                      "embedded before the chunk. Sentences are cached: a second build costs nothing.")
        note.setWordWrap(True)
        note.setObjectName("muted")
        self.form.addRow(note)

    def config(self) -> ChunkConfig:
        """The contextual chunk configuration the form describes."""
        base = self.base
        if chunk_size(base):  # the size lands on the chunker's own parameter, whichever chunker it is
            size = self.size_box.value()
            base = with_chunk_size(base, size, chunk_overlap(base) if chunk_overlap(base) <= max_overlap(size) else 0)
        return replace(base, heading_prefix=self.heading.isChecked(), contextual=True)

    def job(self, llm_kind: str) -> JobFn:
        from workbench.core.index.situating import build_contextual_set

        config, ws, factory = self.config(), self.ws, self.llm_factory
        if not ws.records.documents():
            raise ValueError("the library is empty: add documents first")

        def run(progress: ProgressSink, cancel: CancelToken) -> dict[str, Any]:
            info, usage = build_contextual_set(ws, config, factory(ws, llm_kind), progress, cancel)
            return {"set_id": info.id, "label": chunking_label(config), "chunks": info.chunk_count,
                    "llm": usage.as_dict()}

        return run

    def describe(self, result: object) -> str:
        if not isinstance(result, dict):
            return ""
        u = result["llm"]
        return (f"{result['label']}: {result['chunks']} chunks; {u['calls']} LLM calls, {u['cached']} sentences "
                f"from the cache, {u['tokens']} tokens, {u['seconds']:.1f} s")


class MakeQuestionsDialog(_ToolDialog):
    """Write a synthetic question set from the library with the local LLM; offers to load it when done."""

    loadRequested = Signal(str)  # the question set folder to open in the evaluation view

    def __init__(self, ws: Workspace, runner: JobRunner | None = None, llm_factory: LLMFactory | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(ws, "Make questions…", runner, llm_factory, parent)
        self.n = QSpinBox()
        self.n.setRange(1, 1000)
        self.n.setValue(20)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.two_part = QCheckBox("Questions that need two parts of a window (why, then how)")
        self.out = QLineEdit(str(Path(ws.data_dir) / "question-sets" / "synthetic"))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.out, 1)
        row.addWidget(browse)
        self.form.addRow("Questions", self.n)
        self.form.addRow("Seed", self.seed)
        self.form.addRow("", self.two_part)
        self.form.addRow("Output folder", row)
        self.form.addRow("LLM backend", self.backend)
        self.result_dir = ""  # the question set written by the last run
        self.load_button = QPushButton("Load in evaluation view")
        self.load_button.setEnabled(False)
        self.load_button.clicked.connect(lambda: self.loadRequested.emit(self.result_dir))
        self.buttons.insertWidget(1, self.load_button)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Output folder for the question set")
        if folder:
            self.out.setText(folder)

    def job(self, llm_kind: str) -> JobFn:
        from workbench.core.evaluate.datasets import QUESTIONS_FILE
        from workbench.core.evaluate.synthetic import make_question_set

        ws, factory = self.ws, self.llm_factory
        out = Path(self.out.text().strip()).expanduser()
        if not self.out.text().strip():
            raise ValueError("choose an output folder")
        if (out / QUESTIONS_FILE).exists():
            raise ValueError(f"{out / QUESTIONS_FILE} exists: choose another output folder")
        if not ws.records.documents():
            raise ValueError("the library is empty: add documents first")
        n, seed, two_part = self.n.value(), self.seed.value(), self.two_part.isChecked()
        self.load_button.setEnabled(False)

        def run(progress: ProgressSink, cancel: CancelToken) -> GenerationResult:
            return make_question_set(ws, out, factory(ws, llm_kind), n=n, seed=seed, two_part=two_part,
                                     progress=progress, cancel=cancel)

        return run

    def describe(self, result: object) -> str:
        from workbench.core.evaluate.synthetic import GenerationResult

        if not isinstance(result, GenerationResult) or result.qset is None:
            return "no question set was written"
        self.result_dir = str(result.qset.root)
        self.load_button.setEnabled(bool(result.questions))
        reasons = ", ".join(f"{k} {v}" for k, v in result.reasons.items()) or "none"
        return (f"{len(result.questions)} question(s) kept of {result.attempts} tried (dropped: {reasons}); "
                f"{result.usage.calls} LLM calls, {result.usage.seconds:.1f} s; written to {self.result_dir}")


def open_contextualize(parent: QWidget, ws: Workspace, config: ChunkConfig, runner: JobRunner) -> ContextualizeDialog:
    """Open "Contextualize chunks…" for ``config`` (the window passes strategy A's), non-blocking."""
    dialog = ContextualizeDialog(ws, config, runner, parent=parent)
    dialog.open()
    return dialog


def open_make_questions(parent: QWidget, ws: Workspace, runner: JobRunner,
                        load: Callable[[str], object]) -> MakeQuestionsDialog:
    """Open "Make questions…" (non-blocking); *Load in evaluation view* calls ``load(folder)``."""
    dialog = MakeQuestionsDialog(ws, runner, parent=parent)
    dialog.loadRequested.connect(load)
    dialog.open()
    return dialog
