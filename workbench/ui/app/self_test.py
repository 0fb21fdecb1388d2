"""``workbench-gui --self-test``: what a researcher does first, through the real window on a temporary data
folder, so a bundle that cannot do it fails its build (``packaging/build``) and the full test run.

The checks, in order (each prints one line; the first failure stops the test and exits 1):

1. the window opens and indexes the bundled sample corpus through the library panel;
2. a question typed in the question bar is searched with two strategies side by side (``sentence-window`` on
   A, ``hybrid`` on B: the embedding model, FAISS and the lexical index), and both return passages;
3. an extractive answer (no language model) quotes sentences of the passages, each citation a span of a stored
   document whose text is the quoted sentence;
4. a small evaluation: the first questions of the bundled ``sample`` question set, scored against their
   reference spans (recall must be measured for every covered question);
5. the optional embedded answering model: present (the add-on is installed; it answers one short prompt) or
   absent, said so with the line a user sees — answers stay extractive;
6. the window still shows the question, and how long the process took to show it.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication

    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace
    from workbench.ui.window.main_window import MainWindow

TIMEOUT_S = 300
STRATEGY_A = "sentence-window"
STRATEGY_B = "hybrid"
EVAL_SET = "sample"
EVAL_QUESTIONS = 4


class CheckFailed(Exception):
    """A check of the self-test that did not pass; the message says what happened."""


@dataclass
class Checks:
    """The checks run so far, printed as they pass or fail."""

    passed: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def run(self, name: str, check: Callable[[], str]) -> None:
        """Run one check; prints ``ok`` with what it found, or raises ``CheckFailed`` after printing why."""
        t0 = time.perf_counter()
        try:
            found = check()
        except CheckFailed as exc:
            print(f"self-test: FAIL {name}: {exc}", file=sys.stderr, flush=True)
            raise
        except Exception as exc:  # any error of the app is a failed check, said in one line
            print(f"self-test: FAIL {name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            raise CheckFailed(str(exc)) from exc
        self.passed.append(name)
        print(f"self-test: ok   {name}: {found} ({time.perf_counter() - t0:.1f} s)", flush=True)


def _wait(app: QCoreApplication, done: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.01)
    return True


@dataclass
class _Run:
    """What the checks share: the application, the window and its workspace."""

    app: QCoreApplication
    window: MainWindow
    ws: Workspace
    timeout_s: float
    question: str
    shown_after_s: float | None = None

    def index(self, sample: Path) -> str:
        outcome: list[str] = []
        lib = self.window.library
        lib.indexingFinished.connect(lambda _r: outcome.append("ok"))
        lib.indexingFailed.connect(lambda msg: outcome.append(f"failed: {msg}"))
        lib.indexingCancelled.connect(lambda: outcome.append("cancelled"))
        self.window.index_sample(sample)
        if not _wait(self.app, lambda: bool(outcome), self.timeout_s):
            raise CheckFailed(f"indexing did not finish in {self.timeout_s:.0f} s")
        if outcome[0] != "ok":
            raise CheckFailed(f"indexing did not finish ({outcome[0]})")
        docs = self.ws.records.documents()
        if not docs:
            raise CheckFailed("indexing finished with no document stored")
        return f"{len(docs)} documents of the sample corpus"

    def search_two(self) -> str:
        from workbench.core.retrieve.strategy.presets import PRESETS

        compare = self.window.compare
        compare.a.set_strategy(PRESETS[STRATEGY_A])
        compare.b.set_strategy(PRESETS[STRATEGY_B])
        self.window.side_by_side.setChecked(True)
        shown: dict[str, SearchResult] = {}
        compare.a.resultShown.connect(lambda r: shown.setdefault("A", r))
        compare.b.resultShown.connect(lambda r: shown.setdefault("B", r))
        self.window.question.setText(self.question)
        self.window.run_search()
        if not _wait(self.app, lambda: len(shown) == 2, self.timeout_s):
            raise CheckFailed(f"side(s) {', '.join(sorted({'A', 'B'} - set(shown)))} did not answer")
        counts = []
        for side, name in (("A", STRATEGY_A), ("B", STRATEGY_B)):
            if not shown[side].passages:
                raise CheckFailed(f"{name} returned no passages")
            counts.append(f"{name} {len(shown[side].passages)} passages")
        return ", ".join(counts)

    def extractive_answer(self) -> str:
        from workbench.core.answer.answering import answer, prepare
        from workbench.core.llm.no_model import ExtractiveBackend

        backend = ExtractiveBackend()
        prompt, _warnings = prepare(self.ws, self.question, STRATEGY_A, backend)
        result = answer(prompt, backend, ws=self.ws)
        quotes = [c for c in result.citations if c.quote is not None]
        if not result.text.strip() or not quotes:
            raise CheckFailed("the extractive answer quoted nothing")
        for c in quotes:
            assert c.quote is not None
            text = self.ws.corpus.doc_text(c.quote.doc_id)[c.quote.start:c.quote.end]
            if c.quote_text is not None and text.strip() != c.quote_text.strip():
                raise CheckFailed(f"citation [{c.number}] does not quote its span {c.quote}")
        return f"{len(quotes)} sentence(s) quoted, each a span of a stored document"

    def evaluation(self) -> str:
        from workbench.core.evaluate.bundled import resolve_dataset
        from workbench.core.evaluate.datasets import load_question_set
        from workbench.core.evaluate.sweep import expand_grid, run_sweep

        qset = load_question_set(resolve_dataset(EVAL_SET)).subset(limit=EVAL_QUESTIONS)
        covered = [q for q in qset.questions if q.covered]
        if not covered:
            raise CheckFailed(f"the bundled '{EVAL_SET}' question set has no reference spans")
        result = run_sweep(self.ws, qset, expand_grid([STRATEGY_A]))
        rows = result.results[0].rows
        recalls = [r.metrics.recall for r in rows if r.metrics.covered]
        if len(recalls) != len(covered) or any(r is None for r in recalls):
            raise CheckFailed("recall was not measured for every question with reference spans")
        mean = sum(r for r in recalls if r is not None) / len(recalls)
        return f"{len(rows)} questions of '{EVAL_SET}', {len(covered)} with reference spans, mean recall {mean:.2f}"

    def embedded_model(self) -> str:
        from workbench.core.llm import list_backends

        info = next(i for i in list_backends() if i.name == "embedded")
        if not info.available:
            return f"not installed, answers are extractive ({info.detail})"
        from workbench.core.llm.open import open_backend

        text = open_backend("embedded").complete([{"role": "user", "content": "Say hello."}], max_tokens=8)
        if not text.strip():
            raise CheckFailed("the embedded model answered nothing")
        return f"installed, answered {text.strip()[:40]!r}"

    def window_shown(self) -> str:
        self.app.processEvents()
        if not self.window.isVisible():
            raise CheckFailed("the window is not shown")
        if self.window.question.text() != self.question:
            raise CheckFailed(f"the question bar shows {self.window.question.text()!r}")
        age = f"{self.shown_after_s:.1f} s after the process started" if self.shown_after_s is not None else "shown"
        return f"window shown ({age}) with the question {self.question!r}"


def run_self_test(timeout_s: float = TIMEOUT_S) -> int:
    """Run the self-test; prints one line per check and returns the exit code (0: every check passed)."""
    from workbench.ui.app.qt_app import SAMPLE_DIR, SELF_TEST_QUESTION, headless_if_needed, make_app, process_age_s

    headless_if_needed()
    from workbench.ui.app.logs import setup_logging

    setup_logging()
    app = make_app()
    from workbench.core.workspace import Workspace
    from workbench.ui.basics.settings import open_settings
    from workbench.ui.window.main_window import MainWindow

    checks = Checks()
    with tempfile.TemporaryDirectory(prefix="workbench-self-test-") as tmp:
        ws = Workspace(Path(tmp) / "data")
        window = MainWindow(ws, settings=open_settings(str(Path(tmp) / "settings.ini")))
        window.show()
        app.processEvents()
        run = _Run(app, window, ws, timeout_s, SELF_TEST_QUESTION, shown_after_s=process_age_s())
        try:
            checks.run("index the sample corpus", lambda: run.index(SAMPLE_DIR))
            checks.run("search with two strategies", run.search_two)
            checks.run("extractive answer with citations", run.extractive_answer)
            checks.run("evaluation against reference spans", run.evaluation)
            checks.run("embedded answering model", run.embedded_model)
            checks.run("window with the question", run.window_shown)
        except CheckFailed:
            print(f"self-test: failed after {len(checks.passed)} passing check(s)", file=sys.stderr)
            return 1
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
            ws.close()
    print(f"self-test: all {len(checks.passed)} checks passed in {time.perf_counter() - checks.started:.1f} s")
    return 0
