"""The library: add files or folders (dialogs or drag-and-drop), see every document's status and chunk
count, remove or re-index documents. Indexing runs on the serial store queue with progress and Cancel."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.documents import SUPPORTED_SUFFIXES
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import JobPlan
from workbench.ui.jobs.job_progress import JobProgress
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.library.library_table import LibraryTable
from workbench.ui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:
    from workbench.core.index.build import IngestReport
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

log = logging.getLogger(__name__)
FILTER = "Documents (" + " ".join(f"*{s}" for s in sorted(SUPPORTED_SUFFIXES)) + ");;All files (*)"


def report_line(report: IngestReport) -> str:
    """One line for the status bar about an indexing run."""
    parts = [f"{len(report.added)} added", f"{len(report.updated)} updated",
             f"{len(report.unchanged)} unchanged"]
    if report.removed:
        parts.append(f"{len(report.removed)} removed")
    if report.moved:
        parts.append(f"{len(report.moved)} moved")
    if report.skipped:
        parts.append(f"{len(report.skipped)} skipped")
    if report.failed:
        parts.append(f"{len(report.failed)} failed")
    return (f"Indexed: {', '.join(parts)} · {report.chunks_total} chunks ({report.chunks_embedded} embedded) "
            f"· {report.seconds:.1f} s")


class LibraryPanel(QWidget):
    """Document list, add / remove / re-index buttons and the indexing progress line."""

    libraryChanged = Signal()
    indexingStarted = Signal()  # an indexing job started (the window shows the panel and its progress)
    indexingFinished = Signal(object)  # IngestReport
    indexingCancelled = Signal()
    indexingFailed = Signal(str)  # any store job of the library that failed, with its message
    removed = Signal(int)
    message = Signal(str)

    def __init__(self, workspace: Workspace, store_jobs: JobRunner,
                 configs: Callable[[], Sequence[ChunkConfig]] = lambda: [ChunkConfig()],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.store_jobs = store_jobs
        self.configs = configs
        self.worker: Worker | None = None
        self.last_report: IngestReport | None = None
        self._outcome: tuple[str, SignalInstance, tuple[object, ...]] = ("", self.indexingCancelled, ())
        self.table = LibraryTable()
        self.progress = JobProgress(label=ElidedLabel)  # never wider than the pane while indexing
        self.progress.cancelRequested.connect(self.cancel)
        self.add_files = QPushButton("Add files…")
        self.add_folder = QPushButton("Add folder…")
        self.remove = QPushButton("Remove")
        self.reindex = QPushButton("Re-index")
        self.add_files.setToolTip("Index text, Markdown, HTML or PDF files (or drop them on this panel)")
        self.add_folder.setToolTip("Index every supported file in a folder and its sub-folders")
        self.remove.setToolTip("Remove the selected documents from the store (files on disk stay)")
        self.reindex.setToolTip("Read the selected documents (or all, with none selected) from disk again")
        self.add_files.clicked.connect(self.choose_files)
        self.add_folder.clicked.connect(self.choose_folder)
        self.remove.clicked.connect(self.ask_remove)
        self.confirm: Callable[[str], bool] = self._ask  # a removal asks first (tests answer for the person)
        self.reindex.clicked.connect(self.reindex_selected)
        self.summary = QLabel()
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        self.hint = QLabel("Drop files or folders here to index them.")
        self.hint.setObjectName("muted")
        buttons = QHBoxLayout()
        for b in (self.add_files, self.add_folder, self.remove, self.reindex):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(buttons)
        lay.addWidget(self.progress)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.summary)
        lay.addWidget(self.hint)
        self.setAcceptDrops(True)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.refresh()

    # ----- list -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload the document list from the store."""
        try:
            docs = self.ws.records.documents()
            problems = self.ws.records.problems()
            counts = self._chunk_counts()
        except Exception as exc:
            log.exception("library refresh failed")
            self.message.emit(f"Cannot read the library: {exc}")
            return
        self.table.fill(docs, problems, counts)
        config = self.configs()[0]
        total = sum(counts.values()) if counts else 0
        self.summary.setText(f"{len(docs)} document(s) · {total} chunks at {chunking_label(config)}"
                             + (f" · {len(problems)} file(s) skipped or failed" if problems else ""))
        self._update_buttons()

    def _chunk_counts(self) -> dict[int, int] | None:
        info = self.ws.sets.find_chunk_set(self.configs()[0])
        if info is None:
            return None
        return dict(self.ws.sets.runtime(info.id).doc_row_count)

    def _update_buttons(self) -> None:
        idle = self.worker is None
        has_docs = any(r["doc_id"] is not None for r in self.table.selected())
        for b in (self.add_files, self.add_folder):
            b.setEnabled(idle)
        self.remove.setEnabled(idle and has_docs)
        self.reindex.setEnabled(idle and self.table.topLevelItemCount() > 0)

    # ----- actions --------------------------------------------------------------------------
    def choose_files(self) -> None:
        """Ask for files, then index them."""
        paths, _ = QFileDialog.getOpenFileNames(self, "Add documents", "", FILTER)
        if paths:
            self.index_paths(paths)

    def choose_folder(self) -> None:
        """Ask for a folder, then index it."""
        path = QFileDialog.getExistingDirectory(self, "Add a folder of documents")
        if path:
            self.index_paths([path])

    def index_paths(self, paths: Sequence[str], title: str | None = None) -> Worker | None:
        """Index files and folders in the background; returns the worker (None when one is running)."""
        if self.worker is not None:
            self.message.emit("Indexing is already running; wait for it or cancel it first.")
            return None
        ws, configs, paths = self.ws, list(self.configs()), list(paths)

        def job(progress: ProgressSink, cancel: CancelToken) -> IngestReport:
            # one bar for the whole job: adding (reading and A's chunk set), then each other side's chunk set
            plan = JobPlan(progress, [("adding", 1.0), *((f"set {n}", 1.0) for n in range(1, len(configs)))])
            report = ws.add_paths(paths, configs[0], progress=plan.stage("adding"), cancel=cancel)
            for n, config in enumerate(configs[1:], start=1):
                ws.sets.ensure_chunk_set(config, plan.stage(f"set {n}"), cancel)
            return report

        worker = Worker(job, "indexing")
        worker.signals.progress.connect(self.progress.update_event)
        worker.signals.result.connect(self._indexed)
        worker.signals.cancelled.connect(self._cancelled)
        worker.signals.error.connect(lambda msg, _tb: self._failed(msg))
        worker.signals.finished.connect(self._finished)
        self.worker = worker
        self.progress.start(title or f"Indexing {len(paths)} path(s)")
        self._update_buttons()
        self.store_jobs.start(worker)
        self.indexingStarted.emit()
        return worker

    def cancel(self) -> None:
        """Cancel the running indexing job."""
        if self.worker is not None:
            self.worker.cancel()

    def removal_words(self, rows: Sequence[dict[str, object]]) -> str:
        """What removing the documents of ``rows`` (library rows) takes with it, in words: their chunks in
        every chunk set, the passages shown from them, and the stored questions whose references point into
        them (those then need review and are left out of evaluation). The files on disk stay."""
        ids = {int(str(r["doc_id"])) for r in rows if r.get("doc_id") is not None}
        names = [str(r.get("title") or "") for r in rows if r.get("doc_id") is not None]
        what = (f"“{names[0]}”" if len(names) == 1 else
                f"{len(names)} documents ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})")
        counts = self._chunk_counts() or {}
        chunks = sum(counts.get(d, 0) for d in ids)
        lines = [f"Remove {what} from the library?", "",
                 f"This takes with it their chunks in every chunk set ({chunks} at "
                 f"{chunking_label(self.configs()[0])}) and every passage shown from them."]
        hit: dict[str, int] = {}
        try:
            for info in self.ws.questions.sets():
                read = self.ws.questions.read(info.name)
                n = sum(any(r.doc_id in ids for r in q.references) for q in read.questions)
                if n:
                    hit[info.name] = n
        except Exception:  # the sets could not be read: the removal still says what it knows
            log.debug("question sets not read for the removal's words", exc_info=True)
        if hit:
            sets = ", ".join(f"{n} in “{name}”" for name, n in hit.items())
            lines.append(f"Questions whose reference lies in them will need review and are left out of "
                         f"evaluation: {sets}.")
        lines.append("The files on disk stay; Add files… brings them back.")
        return "\n".join(lines)

    def ask_remove(self) -> Worker | None:
        """*Remove*: say what the removal takes with it and remove once the person confirms (``confirm``)."""
        rows = [r for r in self.table.selected() if r["doc_id"] is not None]
        if not rows or self.worker is not None:
            return None
        if not self.confirm(self.removal_words(rows)):
            self.message.emit("Nothing removed.")
            return None
        return self.remove_selected()

    def _ask(self, text: str) -> bool:
        """Ask the person ``text`` (Remove / Cancel; Cancel is the default)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Remove from the library?", text,
                          QMessageBox.StandardButton.Cancel, self.window())
        remove = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is remove

    def remove_selected(self) -> Worker | None:
        """Remove the selected documents from the store (on the store queue: it waits for running writes)."""
        ids = [int(r["doc_id"]) for r in self.table.selected() if r["doc_id"] is not None]
        if not ids or self.worker is not None:
            return None
        ws = self.ws

        def job(_progress: ProgressSink, cancel: CancelToken) -> int:
            for doc_id in ids:
                ws.remove_document(doc_id)
            return len(ids)

        worker = Worker(job, "remove documents")
        worker.signals.result.connect(
            lambda n: setattr(self, "_outcome", (f"Removed {n} document(s).", self.removed, (n,))))
        worker.signals.error.connect(lambda msg, _tb: self._failed(msg, "Removing documents"))
        worker.signals.finished.connect(self._finished)
        self.worker = worker
        self.progress.start(f"Removing {len(ids)} document(s)")
        self._update_buttons()
        self.store_jobs.start(worker)
        return worker

    def reindex_selected(self) -> None:
        """Re-read the selected documents (all when none is selected)."""
        rows = self.table.selected() or self.table.rows()
        paths = sorted({r["path"] for r in rows if r["path"]})
        if paths:
            self.index_paths(paths, f"Re-indexing {len(paths)} file(s)")

    # ----- job results ----------------------------------------------------------------------
    def _indexed(self, report: IngestReport) -> None:
        self.last_report = report
        self._outcome = (report_line(report), self.indexingFinished, (report,))

    def _cancelled(self) -> None:
        self._outcome = ("Indexing cancelled: the store keeps what was completed; index again to resume.",
                         self.indexingCancelled, ())

    def _failed(self, message: str, what: str = "Indexing") -> None:
        self._outcome = (f"{what} failed: {message}", self.indexingFailed, (f"{what} failed: {message}",))

    def _finished(self) -> None:
        """Last signal of a run: refresh the list first, then announce the outcome."""
        self.worker = None
        self.progress.finish()
        self.refresh()
        self.libraryChanged.emit()
        text, signal, args = self._outcome
        self.message.emit(text)
        signal.emit(*args)

    # ----- drag and drop --------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept local files and folders."""
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Index what was dropped."""
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.index_paths(paths)
