"""Shared fixtures and helpers of the UI tests (imported by the ``test_ui_*`` modules; not a test module itself).

Every window gets a temporary settings file; after each test every window is closed and deleted and
no top-level widget may be left over.
"""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from shiboken6 import getCppPointer, isValid  # noqa: E402

QUESTION = "Why must the database migration run before the rollout?"
WAIT_MS = 60_000
INTERNAL = {"QTipLabel"}  # Qt's shared tooltip label lives for the whole application


def _live_top_levels() -> dict[int, str]:
    return {getCppPointer(w)[0]: type(w).__name__ for w in QApplication.topLevelWidgets()
            if isValid(w) and w.metaObject().className() not in INTERNAL}


@pytest.fixture
def ui_settings(tmp_path):
    """A QSettings INI file in the test's temporary folder."""
    from workbench.ui.app.settings import open_settings

    return open_settings(str(tmp_path / "settings.ini"))


DESK = (1920, 1080)  # the screen a test's window sits on unless the test gives one (``on_screen``)


def on_screen(monkeypatch, width: int, height: int):
    """Windows see a screen whose available area is ``width`` × ``height`` (the offscreen platform has one
    800 × 800 screen); returns that rectangle."""
    from PySide6.QtCore import QRect

    from workbench.ui.window import layout

    rect = QRect(0, 0, width, height)
    monkeypatch.setattr(layout, "available_rect", lambda _window: QRect(rect))
    return rect


@pytest.fixture
def make_window(qtbot, ui_settings, monkeypatch):
    """``make_window(ws)`` → a shown MainWindow on ``ws`` (on a ``DESK`` screen unless the test sets one with
    ``on_screen``); closed, deleted and leak-checked afterwards."""
    from workbench.ui.window.main_window import MainWindow

    on_screen(monkeypatch, *DESK)
    before = _live_top_levels()
    windows = []

    def make(ws, settings=None):
        window = MainWindow(ws, settings=settings or ui_settings)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    while windows:  # pop: no loop variable may keep a wrapper (and its Python-owned helpers) alive
        window = windows.pop()
        if isValid(window):
            window.close()
            window.deleteLater()
        del window
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    gc.collect()  # parentless helpers (e.g. pyqtgraph's context menus) go with their Python owners
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    leaks = {k: v for k, v in _live_top_levels().items() if k not in before}
    assert not leaks, f"top-level widgets left over: {sorted(leaks.values())}"


def search(qtbot, window, question: str = QUESTION, sides=("a",)):
    """Type ``question``, press Enter and wait until every named side shows its result."""
    from PySide6.QtCore import Qt

    panels = [getattr(window.compare, s) for s in sides]
    window.question.clear()
    qtbot.keyClicks(window.question, question)
    with qtbot.waitSignals([p.resultShown for p in panels], timeout=WAIT_MS):
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    return [p.controller.result for p in panels]


def wait_result(qtbot, panel, action):
    """Run ``action`` and wait for ``panel`` to show a new result; returns it."""
    with qtbot.waitSignal(panel.resultShown, timeout=WAIT_MS) as blocker:
        action()
    return blocker.args[0]


def wait_settled(qtbot, panel, accept=lambda result: True):
    """Wait until ``panel``'s side has no search or chunk-set build running or pending and its last result
    satisfies ``accept``; returns that result (robust to results of earlier searches arriving late)."""
    c = panel.controller

    def settled() -> bool:
        idle = c._search_worker is None and c._build_worker is None and not c._pending
        return idle and not c._debounce.isActive() and c.result is not None and accept(c.result)

    qtbot.waitUntil(settled, timeout=WAIT_MS)
    return c.result



def shown_texts(root) -> list[str]:
    """The texts of every label and button shown inside ``root`` (visible to it, whatever tab is in front)."""
    from PySide6.QtWidgets import QAbstractButton, QLabel

    widgets = [*root.findChildren(QLabel), *root.findChildren(QAbstractButton)]
    return [w.text() for w in widgets if w.isVisibleTo(root) and w.text()]


def sample_set(tmp_path, corpus_ids=None):
    """A question set folder over the sample corpus (``eval_support.sample_questions``); returns its path."""
    from eval_support import sample_questions

    from workbench.core.evaluate.datasets import save_question_set

    questions, corpora = sample_questions(corpus_ids)
    save_question_set(tmp_path / "qs", questions, corpora)
    return tmp_path / "qs"


def run_lab(qtbot, view, timeout: int = 180_000):
    """Press the lab's Run and wait for the run to be recorded."""
    with qtbot.waitSignal(view.runFinished, timeout=timeout):
        view.run_button.click()
