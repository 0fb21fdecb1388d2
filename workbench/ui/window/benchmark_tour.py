"""The welcome's benchmark path: a first run that shows gold spans, hits, windows and metrics.

``BenchmarkTour(window).start()`` takes one corpus of a bundled benchmark (Chroma's ``state_of_the_union``,
76 questions with reference spans, from ``chroma-general``) through the window's own paths, in four steps:

1. the library indexes the corpus file (its progress line, for the chunk sizes of strategies A and B);
2. the Evaluation tab loads that corpus's questions and scores A and B on all of them (its progress bar),
   whatever its own Sweep, Budgets and limit fields hold;
3. the question table compares A with B and the tour picks a question (``pick_question``);
4. the Evaluation tab's drill-down opens it side by side: reference spans drawn, recall / precision / IoU
   shown per side, the document view scrolled to the first reference span.

A and B are the window's strategies (by default A = neighbours ±1, B = plain: the trade-off between recall
and precision that windows make). Each step reports in the status bar; a cancelled or failed step stops
the tour with a message and loses nothing.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance

from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult, compare_rows
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy

if TYPE_CHECKING:
    from workbench.core.index.build import IngestReport
    from workbench.ui.evaluate.eval_view import EvalView
    from workbench.ui.library.library_panel import LibraryPanel
    from workbench.ui.model import WorkbenchModel

log = logging.getLogger(__name__)
BENCHMARK_SET = "chroma-general"
BENCHMARK_CORPUS = "state_of_the_union"


def pick_question(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]) -> QuestionResult | None:
    """The question the tour opens, deterministically: the first (in question-set order) covered question
    whose recall under A and B differs by more than ``compare_rows``'s threshold (the lab's "vs compared"
    column says which is better); else the first covered question; None when no question is covered."""
    comparison = compare_rows(rows_a, rows_b)
    differ = {c.q_index for c in (*comparison.fixed, *comparison.broke)}
    covered = [r for r in rows_a if r.metrics.covered]
    return next((r for r in covered if r.q_index in differ), covered[0] if covered else None)


def contrasting(a: Strategy, b: Strategy) -> Strategy:
    """B as it is when it differs from A, else a preset that does (plain, or neighbours when A is plain)."""
    if a.to_dict() != b.to_dict():
        return b
    return PRESETS["neighbours"] if a.to_dict() == PRESETS["plain"].to_dict() else PRESETS["plain"]


class TourHost(Protocol):
    """What the tour needs of the window: the model, the library, the lab, and the window's few moves."""

    model: WorkbenchModel
    library: LibraryPanel
    eval_view: EvalView | None

    def set_mode(self, mode: str) -> None: ...
    def show_message(self, text: str) -> None: ...
    def show_library_tab(self) -> None: ...
    def show_side_by_side(self) -> None: ...
    def show_document_tab(self) -> None: ...
    def fit_to_screen(self) -> None: ...


class BenchmarkTour(QObject):
    """Runs the four steps of the module docstring on ``host`` (the window, through ``TourHost``);
    ``finished(question)`` once the question is shown on both sides, ``failed(message)`` when a step could
    not run."""

    finished = Signal(str)
    failed = Signal(str)

    def __init__(self, host: TourHost, set_name: str = BENCHMARK_SET, corpus: str = BENCHMARK_CORPUS,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.set_name, self.corpus = set_name, corpus
        self.question = ""
        self.q_index: int | None = None
        self._waiting = False

    # ----- step 1: index the corpus ------------------------------------------------------------
    def start(self) -> bool:
        """Begin with indexing; False (with a message) when the tour cannot start."""
        host = self.host
        view = host.eval_view
        if view is None:
            return self._fail("the Evaluation tab is not available")
        if view.running:
            return self._fail("an evaluation is already running; wait for it or cancel it first")
        try:
            qset = load_question_set(self.set_name).subset(corpus=self.corpus)
        except ValueError as exc:
            return self._fail(str(exc))
        path = qset.corpora[self.corpus]
        model = host.model
        b = contrasting(model.strategy("A"), model.strategy("B"))
        if b is not model.strategy("B"):
            model.set_strategy("B", b)  # before indexing: the library builds both sides' chunk sizes
        lib = host.library
        for signal, slot in self._library_slots():
            signal.connect(slot)
        worker = lib.index_paths([str(path)], f"Indexing the benchmark corpus {self.corpus} "
                                              f"({len(qset.questions)} questions)")
        if worker is None:
            self._disconnect_library()
            return self._fail("indexing is already running; wait for it or cancel it first")
        host.show_library_tab()
        host.set_mode("explore")
        host.show_message(f"Benchmark: indexing {self.corpus} for strategies A and B…")
        return True

    def _library_slots(self) -> list[tuple[SignalInstance, Callable[..., None]]]:
        lib = self.host.library
        return [(lib.indexingFinished, self._indexed), (lib.indexingCancelled, self._index_cancelled),
                (lib.indexingFailed, self._index_failed)]

    def _disconnect_library(self) -> None:
        for signal, slot in self._library_slots():
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)

    def _index_cancelled(self) -> None:
        self._disconnect_library()
        self._fail("indexing was cancelled")

    def _index_failed(self, message: str) -> None:
        self._disconnect_library()
        self._fail(message)

    # ----- step 2: load the questions and score A and B ---------------------------------------
    def _indexed(self, report: IngestReport) -> None:
        self._disconnect_library()
        if report.failed or report.skipped:
            bad = "; ".join(f"{r.path}: {r.reason}" for r in [*report.failed, *report.skipped])
            self._fail(f"the corpus could not be indexed: {bad}")
            return
        view, model = self.host.eval_view, self.host.model
        if view is None:
            self._fail("the Evaluation tab is not available")
            return
        if not view.load_question_set(self.set_name, corpus=self.corpus):
            self._fail(view.status.text())
            return
        self.host.set_mode("evaluate")  # the lab has its own mode (whole window)
        view.runFinished.connect(self._scored)
        # all questions, the two strategies as they are: whatever the lab's own fields hold
        if not view.start([model.strategy("A"), model.strategy("B")], grid="", budgets="", limit=0):
            view.runFinished.disconnect(self._scored)
            self._fail(view.status.text())
            return
        qset = model.question_set
        questions = len(qset.questions) if qset is not None else 0
        self.host.show_message(f"Benchmark: scoring strategies A and B on {questions} questions of {self.corpus}…")

    # ----- steps 3 and 4: pick a question and open it side by side ----------------------------
    def _scored(self, _run_id: str) -> None:
        view, host = self.host.eval_view, self.host
        if view is None:
            return
        view.runFinished.disconnect(self._scored)
        results: list[ConfigResult] = view.results
        if len(results) < 2:
            self._fail("the evaluation did not score both strategies")
            return
        view.select_configuration(results[0].config.key)
        view.compare_to.setCurrentIndex(view.compare_to.findData(results[1].config.key))
        row = pick_question(results[0].rows, results[1].rows)
        if row is None:
            self._fail("no question of this corpus has reference spans")
            return
        self.question, self.q_index = row.question, row.q_index
        host.show_side_by_side()
        self._waiting = True
        host.model.resultChanged.connect(self._side_shown)
        if not view.open_question(row.q_index):
            self._stop_waiting()
            self._fail(f"question {row.q_index} is not in the question table")

    def _side_shown(self, _side: str) -> None:
        model = self.host.model
        if not self._waiting or model.question != self.question:
            return
        if model.current_result("A") is None or model.current_result("B") is None:
            return
        self._stop_waiting()
        self.host.show_document_tab()  # the window's document view is at the question's first reference span
        self.host.fit_to_screen()  # side by side with the document: the library strip gives way on a laptop
        self.host.show_message(f"Benchmark: question {self.q_index} of {self.corpus}, side by side — reference "
                               "spans drawn, each side's recall / precision / IoU above its results. Double-click "
                               "another question in the Evaluation tab to open it.")
        self.finished.emit(self.question)

    def _stop_waiting(self) -> None:
        self._waiting = False
        with contextlib.suppress(RuntimeError, TypeError):
            self.host.model.resultChanged.disconnect(self._side_shown)

    def _fail(self, message: str) -> bool:
        log.warning("benchmark tour stopped: %s", message)
        self.host.show_message(f"Benchmark: {message}")
        self.failed.emit(message)
        return False
