"""The worker of one side (A or B): runs its searches and chunk-set builds. The side's strategy, the question
it searches and its latest result live in the window's model (``ui/model.py``): the controller follows the
model's strategy and question and writes each result there, tagged with the question and strategy that
produced it.

Cheap changes (window, top-k, budget, margin, hybrid) re-run the search at once on a worker: the chunk
set is loaded and the question vector cached, so nothing is embedded. Chunk changes (size, overlap,
unit, heading path) are debounced, then the chunk set is built on the shared serial store queue while the
old result stays up (greyed); a chunk set that was built before is found at once and used directly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from workbench.core.consent import NotTrusted
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.pipeline import SearchResult
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.ui.jobs.workers import JobRunner, Worker, while_alive
from workbench.ui.model import WorkbenchModel, as_side

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

log = logging.getLogger(__name__)
DEBOUNCE_MS = 300
NEEDS_BUILD = object()  # a search job's answer when its chunk set must be built first


@dataclass(frozen=True)
class OversizedAsk:
    """A build job's answer when its chunking would make far more chunks than its size implies
    (``BuildEstimate.oversized``): nothing was built; the person is asked first, as ``--yes`` on the command
    line."""

    question: str


def ask_to_build(question: str) -> bool:
    """The window's question before a costly chunking: True when the person chooses to build it."""
    answer = QMessageBox.question(None, "Build this chunking?", question,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class SideController(QObject):
    """Runs searches and chunk-set builds for one side; see the module docstring."""

    staleChanged = Signal(bool)  # True while a newer result is being made (search or build)
    buildStarted = Signal(object)  # ChunkConfig
    buildProgress = Signal(object)  # ProgressEvent
    buildFinished = Signal(object)  # ChunkSetInfo
    buildCancelled = Signal()
    failed = Signal(str)
    untrusted = Signal(str, str)  # (target, what): the strategy names code the user has not allowed

    def __init__(self, workspace: Workspace, model: WorkbenchModel, store_jobs: JobRunner, search_jobs: JobRunner,
                 name: str = "A", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model
        self.name = as_side(name)
        self.stale = False
        self.store_jobs = store_jobs
        self.search_jobs = search_jobs
        self._gen = 0
        self._search_worker: Worker | None = None
        self._pending = False
        self._build_worker: Worker | None = None
        self._build_config: ChunkConfig | None = None
        self._build_model = ""  # the embedding model of the chunk set being built
        self._confirmed: set[tuple[ChunkConfig, str]] = set()  # costly chunkings the person chose to build
        self.confirm: Callable[[str], bool] = ask_to_build  # a costly chunking asks first (tests answer for the person)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._start_build)
        model.strategyChanged.connect(self._strategy_changed)

    @property
    def strategy(self) -> Strategy:
        """The side's strategy (the model's)."""
        return self.model.strategy(self.name)

    @property
    def question(self) -> str:
        """The question the side searches (the model's ``searched``; "" before its first search)."""
        return self.model.searched(self.name)

    @property
    def result(self) -> SearchResult | None:
        """The side's latest result (the model's), whatever question and strategy it was made for."""
        return self.model.result(self.name)

    # ----- requests --------------------------------------------------------------------------
    def search(self, question: str | None = None) -> None:
        """Run the side's strategy for ``question`` (default: the model's question)."""
        self.model.set_searched(self.name, self.model.question if question is None else question)
        self.refresh()

    def _strategy_changed(self, side: str, strategy: Strategy) -> None:
        """The model gave this side a strategy: run it for the current question (once the side has searched),
        instantly when its chunk set exists, else after a debounced background build."""
        if side != self.name:
            return
        if self.question and self.model.question:
            self.model.set_searched(self.name, self.model.question)
        if self._build_config is not None and (self._build_config, self._build_model) != (strategy.chunk,
                                                                                          strategy.model):
            self._cancel_build()
        if self._chunk_set_ready(strategy):
            self._debounce.stop()
            self._run_search()
        elif self._trusted(strategy):
            self._set_stale(True)
            self._debounce.start()

    def refresh(self) -> None:
        """Re-run the search now (after a library change, or a new question)."""
        self._debounce.stop()
        if self._chunk_set_ready(self.strategy):
            self._run_search()
        elif self._trusted(self.strategy):
            self._set_stale(True)
            self._start_build()

    def cancel_build(self) -> None:
        """Stop a running re-chunk; the old result stays, marked as made for the previous strategy."""
        self._debounce.stop()
        self._cancel_build()
        self._set_stale(False)

    @property
    def building(self) -> bool:
        """True while a chunk set is being built for this side (or a build is about to start)."""
        return self._build_worker is not None or self._debounce.isActive()

    @property
    def searching(self) -> bool:
        """True while a search of this side is running or queued."""
        return self._search_worker is not None

    # ----- searches --------------------------------------------------------------------------
    def _chunk_set_ready(self, strategy: Strategy) -> bool:
        try:
            return self.ws.sets.find_chunk_set(strategy.chunk, strategy.model) is not None
        except NotTrusted as exc:  # named by data: the panel asks (nothing was imported)
            self.untrusted.emit(exc.target, exc.what)
            return False
        except Exception as exc:  # a store problem is shown, not raised into a slot
            log.exception("chunk set lookup failed")
            self.failed.emit(str(exc))
            return False

    def _trusted(self, strategy: Strategy) -> bool:
        """False when ``strategy`` names code not allowed in this run (``untrusted`` was emitted)."""
        try:
            self.ws.check_code_allowed(strategy)
        except NotTrusted:
            return False
        except Exception:  # any other problem is the build's to report
            return True
        return True

    def _run_search(self) -> None:
        if not self.question:
            self._set_stale(False)
            return
        self._gen += 1
        if self._search_worker is not None:
            self._pending = True
            return
        gen, question, strategy, ws = self._gen, self.question, self.strategy, self.ws

        def job(progress: ProgressSink, cancel: CancelToken) -> SearchResult | object:
            if ws.sets.find_chunk_set(strategy.chunk, strategy.model) is None:
                return NEEDS_BUILD
            return ws.search(question, strategy, progress=progress, cancel=cancel)

        worker = Worker(job, f"search {self.name}")
        worker.signals.result.connect(while_alive(self, partial(self._search_done, gen)))
        worker.signals.error.connect(while_alive(self, lambda msg, _tb: self._search_failed(msg)))
        worker.signals.finished.connect(self._search_finished)
        self._search_worker = worker
        self.search_jobs.start(worker)

    def _search_done(self, gen: int, value: object) -> None:
        if value is NEEDS_BUILD:
            self._pending = False
            self._set_stale(True)
            self._start_build()
            return
        if gen != self._gen or not isinstance(value, SearchResult):
            return  # a newer request is pending; it will answer
        self._set_stale(self._build_worker is not None or self._debounce.isActive())
        self.model.set_result(self.name, value)

    def _search_failed(self, message: str) -> None:
        self._set_stale(False)
        self.failed.emit(f"Search {self.name} failed: {message}")

    def _search_finished(self) -> None:
        self._search_worker = None
        if self._pending:
            self._pending = False
            self._run_search()

    # ----- chunk-set builds ------------------------------------------------------------------
    def _start_build(self) -> None:
        config, model = self.strategy.chunk, self.strategy.model
        if self._build_worker is not None and (self._build_config, self._build_model) == (config, model):
            return
        self._cancel_build()
        ws, asked = self.ws, (config, model) not in self._confirmed

        def job(progress: ProgressSink, cancel: CancelToken) -> object:
            if asked:  # the estimate is kept: the build right after it does not cut the documents again
                estimate = ws.sets.estimate_chunk_set(config, model)
                if estimate.oversized():
                    return OversizedAsk(
                        f"{chunking_label(config)} would make ~{estimate.chunks:,} chunks, "
                        f"{estimate.chunks / max(1, estimate.expected):.0f}× the ~{estimate.expected:,} its size "
                        f"implies ({estimate.describe()}). Build it anyway? (No keeps the passages shown now; "
                        "another chunker or size avoids it.)")
            return ws.sets.ensure_chunk_set(config, progress, cancel, model=model)

        worker = Worker(job, f"chunk set {chunking_label(config)}")
        worker.signals.progress.connect(self.buildProgress)
        worker.signals.result.connect(while_alive(self, partial(self._build_done, worker)))
        worker.signals.cancelled.connect(while_alive(self, partial(self._build_stopped, worker, None)))
        worker.signals.error.connect(while_alive(self, lambda msg, _tb: self._build_stopped(worker, msg)))
        self._build_worker, self._build_config, self._build_model = worker, config, model
        self.buildStarted.emit(config)
        self.store_jobs.start(worker)

    def _cancel_build(self) -> None:
        worker = self._build_worker
        if worker is not None:
            worker.cancel()
            self._build_worker, self._build_config = None, None
            self.buildCancelled.emit()

    def _build_done(self, worker: Worker, info: object) -> None:
        if worker is not self._build_worker:
            return
        built = (self._build_config, self._build_model)
        self._build_worker, self._build_config = None, None
        if isinstance(info, OversizedAsk):
            key = (built[0], built[1]) if built[0] is not None else (self.strategy.chunk, self.strategy.model)
            if key != (self.strategy.chunk, self.strategy.model):
                return  # the side moved on to another chunking while this one was estimated
            if self.confirm(info.question):
                self._confirmed.add(key)
                self._start_build()
            else:
                self._set_stale(False)
                self.buildCancelled.emit()
                self.failed.emit(f"Chunk set for {self.name} not built: you chose not to build a chunking that "
                                 "makes far more chunks than its size implies")
            return
        self.buildFinished.emit(info)
        if self.question:
            self._run_search()
        else:
            self._set_stale(False)

    def _build_stopped(self, worker: Worker, message: str | None) -> None:
        if worker is not self._build_worker:
            return
        self._build_worker, self._build_config = None, None
        self._set_stale(False)
        if message is None:
            self.buildCancelled.emit()
        else:
            self.failed.emit(f"Building chunk set for {self.name} failed: {message}")

    def _set_stale(self, stale: bool) -> None:
        if stale != self.stale:
            self.stale = stale
            self.staleChanged.emit(stale)
