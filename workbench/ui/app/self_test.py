"""``workbench-gui --self-test``: the real window on a temporary data folder, sample corpus indexed
through the library panel, one search through the question bar; exit 0 when passages came back."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtCore import QCoreApplication

    from workbench.core.retrieve.pipeline import SearchResult

TIMEOUT_S = 300


def _wait(app: QCoreApplication, done: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.01)
    return True


def run_self_test(timeout_s: float = TIMEOUT_S) -> int:
    """Run the self-test; prints one line per step and returns the exit code."""
    from workbench.ui.app.qt_app import (
        SAMPLE_DIR,
        SELF_TEST_QUESTION,
        headless_if_needed,
        make_app,
    )

    headless_if_needed()
    from workbench.ui.app.logs import setup_logging

    setup_logging()
    app = make_app()
    from workbench.core.workspace import Workspace
    from workbench.ui.basics.settings import open_settings
    from workbench.ui.window.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix="workbench-self-test-") as tmp:
        ws = Workspace(Path(tmp) / "data")
        window = MainWindow(ws, settings=open_settings(str(Path(tmp) / "settings.ini")))
        window.show()
        started = time.perf_counter()
        outcome: list[str] = []
        lib = window.library
        lib.indexingFinished.connect(lambda _r: outcome.append("ok"))
        lib.indexingFailed.connect(lambda msg: outcome.append(f"failed: {msg}"))
        lib.indexingCancelled.connect(lambda: outcome.append("cancelled"))
        window.index_sample(SAMPLE_DIR)
        code = 1
        try:
            if not _wait(app, lambda: bool(outcome), timeout_s) or outcome[0] != "ok":
                print(f"self-test: indexing did not finish ({outcome or 'timeout'})", file=sys.stderr)
                return 1
            print(f"self-test: indexed {len(ws.records.documents())} documents in "
                  f"{time.perf_counter() - started:.1f} s")
            shown: list[SearchResult] = []
            window.compare.a.resultShown.connect(shown.append)
            window.question.setText(SELF_TEST_QUESTION)
            window.run_search()
            if not _wait(app, lambda: bool(shown), timeout_s):
                print("self-test: the search did not answer", file=sys.stderr)
                return 1
            result = shown[0]
            if not result.passages:
                print("self-test: the search returned no passages", file=sys.stderr)
                return 1
            print(f"self-test: search returned {len(result.passages)} passage(s); OK")
            code = 0
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
            ws.close()
        return code
