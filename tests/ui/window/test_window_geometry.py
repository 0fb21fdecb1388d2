"""Laptop geometry as a rule (pytest-qt, offscreen, hashed embedder): the window never grows past the available
screen whatever is toggled or loaded, A and B split evenly until the divider is dragged, and no label is
squeezed below its text."""

from __future__ import annotations

import pytest
from conftest import SAMPLE
from ui_support import WAIT_MS, clipped_texts, on_screen, search

pytest_plugins = ["ui_support"]


def test_the_geometry_rule_keeps_any_frame_inside_any_screen():
    from PySide6.QtCore import QRect

    from workbench.ui.window.layout import fitted_frame

    screen = QRect(0, 28, 1366, 740)  # a laptop with a top bar
    inside = QRect(100, 100, 800, 500)
    assert fitted_frame(inside, screen) == inside
    for frame in (QRect(0, 0, 1624, 800), QRect(900, 500, 700, 400), QRect(-50, -50, 200, 200),
                  QRect(1300, 700, 1519, 900)):
        fitted = fitted_frame(frame, screen)
        assert screen.contains(fitted), (frame, fitted)
        assert fitted.width() == min(frame.width(), screen.width())
        assert fitted.height() == min(frame.height(), screen.height())


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_nothing_toggled_or_loaded_widens_the_window_past_its_screen(qtbot, monkeypatch, make_window,
                                                                     hash_sample_ws, size):
    from PySide6.QtCore import Qt

    screen = on_screen(monkeypatch, *size)
    window = make_window(hash_sample_ws)
    window.setGeometry(screen)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    widths = []

    def inside(step: str) -> None:
        qtbot.wait(30)
        frame = window.frameGeometry()
        widths.append(frame.width())
        assert screen.contains(frame), f"after {step}: the window's frame {frame} is past the screen {screen}"

    window.set_library_shown(True)
    search(qtbot, window)
    inside("a search")
    qtbot.keyClick(window.question, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    inside("Ctrl+K")
    window.side_by_side.setChecked(True)
    qtbot.waitUntil(lambda: window.model.current_result("B") is not None, timeout=WAIT_MS)
    inside("side B")
    with qtbot.waitSignal(window.library.indexingFinished, timeout=WAIT_MS):
        window.library.index_paths([str(SAMPLE)], "Indexing a folder with a long title that names every "
                                                  "document of the sample corpus, one after the other")
        inside("indexing a folder")
    inside("indexing done")
    qtbot.keyClick(window.question, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    inside("collapsing the library")
    window.set_library_shown(True)
    inside("the library again")
    assert not clipped_texts(window), clipped_texts(window)


def test_a_and_b_share_the_width_with_only_one_sides_knobs_open(qtbot, monkeypatch, make_window, hash_sample_ws):
    from PySide6.QtCore import Qt

    screen = on_screen(monkeypatch, 1366, 768)
    window = make_window(hash_sample_ws)
    window.setGeometry(screen)
    window.side_by_side.setChecked(True)
    search(qtbot, window, sides=("a", "b"))
    window.compare.set_knobs_shown(False)
    qtbot.mouseClick(window.compare.a.describe, Qt.MouseButton.LeftButton)  # A's knobs only
    qtbot.wait(30)
    assert window.compare.a.strategy_panel.isVisible() and not window.compare.b.strategy_panel.isVisible()
    a, b = window.compare.a.width(), window.compare.b.width()
    assert abs(a - b) <= 0.05 * (a + b), f"A {a} px, B {b} px"
    assert not clipped_texts(window.compare), clipped_texts(window.compare)
