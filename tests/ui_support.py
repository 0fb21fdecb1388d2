"""Shared fixtures and helpers of the UI tests (imported by the ``test_ui_*`` modules; not a test module itself).

Every window gets a temporary settings file; after each test every window is closed and deleted and
no top-level widget may be left over.
"""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from shiboken6 import getCppPointer, isValid

QUESTION = "Why must the database migration run before the rollout?"
WAIT_MS = 60_000
INTERNAL = {"QTipLabel"}  # Qt's shared tooltip label lives for the whole application


def _live_top_levels() -> dict[int, str]:
    return {getCppPointer(w)[0]: type(w).__name__ for w in QApplication.topLevelWidgets()
            if isValid(w) and w.metaObject().className() not in INTERNAL}


@pytest.fixture
def ui_settings(tmp_path):
    """A QSettings INI file in the test's temporary folder."""
    from workbench.ui.basics.settings import open_settings

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


def clipped_texts(root) -> list[str]:
    """Every label, button and combo box shown inside ``root`` whose text does not fit its widget: narrower
    (or, for a word-wrapped label, lower) than its text needs. A label that elides its text (``ElidedLabel``)
    passes when its tooltip carries the whole text. Returns one line per offender."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QStyle, QStyleOptionComboBox

    from workbench.ui.explore.legend import Legend
    from workbench.ui.widgets.elided_label import ElidedLabel

    def shown(w) -> bool:
        return w.isVisible() and w.width() > 0 and not w.visibleRegion().isEmpty()

    out: list[str] = []
    for label in root.findChildren(QLabel):
        if not shown(label) or not label.text() or type(label).__name__ == "QTipLabel":
            continue
        name = f"{type(label).__name__} {label.objectName() or ''} {label.text()[:50]!r}"
        if isinstance(label, Legend):
            if label.shown_width() > label.width() + 1 or label.height() < label.sizeHint().height() - 1:
                out.append(f"{name}: {label.width()} px wide, its line needs {label.shown_width()}")
            if label.is_compact() and any(w not in label.toolTip() for w in label.plain_text().split(", ")):
                out.append(f"{name}: compact without its words in the tooltip")
            continue
        if isinstance(label, ElidedLabel):
            if label.is_elided() and label.text() not in label.toolTip():
                out.append(f"{name}: elided without its text in the tooltip")
            continue
        if label.wordWrap():
            need = label.heightForWidth(label.width())
            if need > label.height() + 1:
                out.append(f"{name}: {label.height()} px high, needs {need}")
            if label.minimumSizeHint().width() > label.width() + 1:
                out.append(f"{name}: {label.width()} px wide, its longest word needs {label.minimumSizeHint().width()}")
            continue
        hint = label.sizeHint()
        if hint.width() > label.width() + 1 or hint.height() > label.height() + 1:
            out.append(f"{name}: {label.width()}×{label.height()} px, needs {hint.width()}×{hint.height()}")
    for button in root.findChildren(QAbstractButton):
        if shown(button) and button.text() and button.sizeHint().width() > button.width() + 1:
            out.append(f"{type(button).__name__} {button.text()!r}: {button.width()} px wide, needs "
                       f"{button.sizeHint().width()}")
    from workbench.ui.widgets.elided_combo import ElidedComboBox

    for combo in root.findChildren(QComboBox):
        if not shown(combo) or not combo.currentText() or combo.isEditable():
            continue
        if isinstance(combo, ElidedComboBox):
            if combo.is_elided() and combo.currentText() not in combo.toolTip():
                out.append(f"{type(combo).__name__} {combo.currentText()!r}: elided without it in the tooltip")
            continue
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                             QStyle.SubControl.SC_ComboBoxEditField, combo)
        icon = combo.iconSize().width() + 4 if not combo.itemIcon(combo.currentIndex()).isNull() or \
            combo.itemData(combo.currentIndex(), 1) is not None else 0  # 1: Qt.DecorationRole
        need = combo.fontMetrics().horizontalAdvance(combo.currentText()) + icon
        tips = (combo.toolTip() or "") + str(combo.itemData(combo.currentIndex(), 3) or "")  # 3: Qt.ToolTipRole
        if need > field.width() + 1 and combo.currentText() not in tips:
            out.append(f"QComboBox {combo.currentText()!r}: shows {field.width()} px of {need}")
    return out


def narrow_inputs(root) -> list[str]:
    """Every spin box shown inside ``root`` narrower than its widest value (prefix, the longer of its minimum
    and maximum, suffix): "100" in a box that shows "10" reads wrong. One line per offender."""
    from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QLineEdit, QSpinBox

    out: list[str] = []
    for box in root.findChildren(QAbstractSpinBox):
        if not box.isVisible() or box.visibleRegion().isEmpty() or not isinstance(box, QSpinBox | QDoubleSpinBox):
            continue
        values = [box.textFromValue(box.minimum()), box.textFromValue(box.maximum()), box.specialValueText()]
        widest = max(box.fontMetrics().horizontalAdvance(box.prefix() + v + box.suffix()) for v in values if v)
        edit = box.findChild(QLineEdit)
        room = edit.contentsRect().width() - 4 if edit is not None else box.width()  # QLineEdit's own margins
        if widest > room:
            out.append(f"{type(box).__name__} {box.objectName() or box.toolTip()[:30]!r}: {room} px for "
                       f"{widest} px of {box.prefix()}{values[1]}{box.suffix()!r}")
    return out


def sideways_scrolling(root) -> list[str]:
    """Every scroll area shown inside ``root`` that scrolls sideways (its horizontal bar shown)."""
    from PySide6.QtWidgets import QAbstractScrollArea, QScrollArea

    return [f"{type(a).__name__} {a.objectName()!r} scrolls sideways"
            for a in root.findChildren(QScrollArea) if isinstance(a, QAbstractScrollArea)
            and a.isVisible() and a.horizontalScrollBar().isVisible()]


def off_screen(window, screen) -> str:
    """"" when ``window``'s frame lies inside ``screen`` (a QRect), else what sticks out."""
    frame = window.frameGeometry()
    return "" if screen.contains(frame) else f"window frame {frame} outside the screen {screen}"


@pytest.fixture
def start_app(qtbot, ui_settings):
    """``start_app(argv)`` → the window ``app.start_window`` shows; windows, locks and workspaces are closed
    (and leak-checked) afterwards."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication
    from shiboken6 import isValid

    from workbench.ui.app.launch import parse_args, start_window

    before = _live_top_levels()
    started = []

    def start(argv=()):
        result = start_window(parse_args(list(argv)), ui_settings)
        assert not isinstance(result, int), f"the app did not start (exit code {result})"
        started.append(result)
        qtbot.waitExposed(result[0])
        return result[0]

    def stop():
        while started:
            window, lock = started.pop()
            ws = window.ws
            if isValid(window):
                window.close()
                window.deleteLater()
            del window
            QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            lock.release()
            ws.close()

    start.stop = stop
    yield start
    stop()
    QApplication.processEvents()
    gc.collect()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    leaks = {k: v for k, v in _live_top_levels().items() if k not in before}
    assert not leaks, f"top-level widgets left over: {sorted(leaks.values())}"
