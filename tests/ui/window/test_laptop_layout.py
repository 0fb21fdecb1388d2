"""Laptop-first layout: the window opens inside the screen, the passages get at least half the height at
1366×768 and 1280×720 in both modes, no button text is elided, and the collapsible parts remember their
state."""

from __future__ import annotations

import pytest
from ui_support import WAIT_MS, search

pytest_plugins = ["ui_support"]

LAPTOPS = [(1366, 768), (1280, 720)]


def test_fit_rect_keeps_a_fitting_geometry_and_centres_a_fraction_otherwise():
    from PySide6.QtCore import QRect

    from workbench.ui.window.layout import fit_rect

    screen = QRect(0, 0, 1366, 728)  # a laptop with a task bar
    inside = QRect(50, 40, 1000, 600)
    assert fit_rect(inside, screen) == inside
    for stored in (QRect(0, 0, 1600, 1000), QRect(900, 100, 600, 500), None):
        rect = fit_rect(stored, screen)
        assert screen.contains(rect)
        assert rect.width() == int(1366 * 0.9) and rect.height() == int(728 * 0.9)
        assert abs(rect.center().x() - screen.center().x()) <= 1
        assert abs(rect.center().y() - screen.center().y()) <= 1


def _small_screen(monkeypatch, width: int, height: int):
    from PySide6.QtCore import QRect

    from workbench.ui.window import layout

    rect = QRect(0, 0, width, height)
    monkeypatch.setattr(layout, "available_rect", lambda _window: QRect(rect))
    return rect


def test_initial_geometry_fits_a_small_screen_even_after_a_big_one(monkeypatch, qtbot, make_window, hash_sample_ws,
                                                                   ui_settings):
    from PySide6.QtCore import QRect

    big = make_window(hash_sample_ws)
    big.setGeometry(QRect(0, 0, 1900, 1150))
    big.close()  # stores the big geometry
    screen = _small_screen(monkeypatch, 1024, 600)
    window = make_window(hash_sample_ws, ui_settings)
    assert screen.contains(window.geometry()), window.geometry()
    assert window.width() >= 0.8 * screen.width() and window.height() >= 0.8 * screen.height()


def test_a_stored_geometry_that_fits_is_kept(monkeypatch, qtbot, make_window, hash_sample_ws, ui_settings):
    from PySide6.QtCore import QRect

    _small_screen(monkeypatch, 1366, 768)
    first = make_window(hash_sample_ws)
    first.setGeometry(QRect(40, 30, 700, 520))  # inside the real offscreen screen too
    kept = first.geometry()
    first.close()
    again = make_window(hash_sample_ws, ui_settings)
    assert again.geometry().size() == kept.size()


@pytest.mark.parametrize("size", LAPTOPS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", ["single", "side-by-side"])
def test_passages_get_half_the_height_and_no_button_is_elided(monkeypatch, qtbot, make_window, hash_sample_ws,
                                                              size, mode):
    from PySide6.QtWidgets import QApplication, QPushButton

    screen = _small_screen(monkeypatch, *size)
    window = make_window(hash_sample_ws)
    window.resize(*size)
    qtbot.waitExposed(window)
    sides = ("a",)
    if mode == "side-by-side":
        window.side_by_side.setChecked(True)
        sides = ("a", "b")
    search(qtbot, window, sides=sides)
    QApplication.processEvents()
    assert screen.contains(window.frameGeometry()), "nothing forces the window wider or taller than the screen"
    assert window.frameGeometry().size().toTuple() == size, "the window fills the screen it was sized to"
    for name in sides:
        results = getattr(window.compare, name).results
        assert results.isVisible()
        assert results.height() >= window.height() / 2, (name, results.height(), window.height())
    for button in window.findChildren(QPushButton):
        if button.isVisible():
            assert button.width() >= button.sizeHint().width(), (button.text(), button.width())


def test_knobs_library_and_document_collapse_and_are_remembered(qtbot, make_window, hash_sample_ws, ui_settings):
    from PySide6.QtCore import Qt

    window = make_window(hash_sample_ws)
    side = window.compare.a
    assert not side.strategy_panel.isVisible()  # knobs start collapsed to the summary line
    summary = side.describe.text()
    for chip in ("neighbours", "tok", "±1", "top-5", "no budget"):
        assert chip in summary, summary
    qtbot.mouseClick(side.describe, Qt.MouseButton.LeftButton)
    assert side.strategy_panel.isVisible()
    side.strategy_panel.top_k.setValue(7)
    qtbot.waitUntil(lambda: "top-7" in side.describe.text(), timeout=WAIT_MS)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert not side.strategy_panel.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert side.strategy_panel.isVisible() and window.compare.knobs_shown()
    shown = window.left_tabs.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.left_tabs.isVisible() is not shown
    qtbot.mouseClick(window.library_strip, Qt.MouseButton.LeftButton)
    assert window.left_tabs.isVisible() is shown
    qtbot.mouseClick(window.library_strip, Qt.MouseButton.LeftButton)
    assert window.compare.bottom_tabs.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not window.compare.bottom_tabs.isVisible()
    window.close()
    again = make_window(hash_sample_ws, ui_settings)
    assert again.compare.a.strategy_panel.isVisible() and not again.compare.b.strategy_panel.isHidden()
    assert again.left_tabs.isVisible() is not shown
    assert not again.compare.bottom_tabs.isVisible()
    again.activateWindow()
    qtbot.waitUntil(again.isActiveWindow, timeout=WAIT_MS)
    qtbot.keyClick(again, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)  # focusing the document shows it
    assert again.compare.bottom_tabs.isVisible()


def test_splitter_sizes_are_remembered_per_screen_size(monkeypatch, qtbot, make_window, hash_sample_ws, ui_settings):
    _small_screen(monkeypatch, 1366, 768)
    window = make_window(hash_sample_ws)
    window.resize(1200, 680)
    window.set_library_shown(True)
    window.main_split.setSizes([440, 740])
    laptop = window.main_split.sizes()[0]
    assert laptop >= 430
    window.close()
    keys = [k for k in ui_settings.allKeys() if k.startswith("splitters/")]
    assert any("1366x768" in k for k in keys), keys
    _small_screen(monkeypatch, 1900, 1150)
    other = make_window(hash_sample_ws, ui_settings)  # another screen: its own defaults, not the laptop's sizes
    assert other.main_split.sizes()[0] < laptop
    other.close()
    _small_screen(monkeypatch, 1366, 768)
    back = make_window(hash_sample_ws, ui_settings)
    assert back.main_split.sizes()[0] == laptop


def test_the_lab_is_its_own_mode_shows_every_summary_column_and_drills_down(monkeypatch, qtbot, make_window,
                                                                         hash_ws, tmp_path):
    from eval_support import sample_questions
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor

    from workbench.core.evaluate.datasets import save_question_set
    from workbench.ui.basics.theme import CARD

    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    _small_screen(monkeypatch, 1366, 768)
    window = make_window(hash_ws)
    window.resize(1366, 768)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    view = window.eval_view
    assert window.mode() == "explore" and not view.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.mode() == "evaluate" and view.isVisible() and not window.compare.isVisible()
    assert view.width() >= 1300, "the lab gets the whole window"
    assert view.load_question_set(tmp_path / "qs")
    view.set_checked(["plain", "neighbours"])
    view.grid.setText("window=0,1")
    with qtbot.waitSignal(view.runFinished, timeout=120000):
        view.run_button.click()
    qtbot.wait(50)
    table = view.summary
    columns = sum(table.columnWidth(i) for i in range(table.columnCount()))
    assert table.viewport().width() >= columns and not table.horizontalScrollBar().isVisible()
    assert view.plot.view.backgroundBrush().color() == QColor(CARD)
    for plot in (view.recall_plot, view.iou_plot):
        assert "tokens" in plot.getAxis("bottom").labelText and "%" in plot.getAxis("left").labelText

    view.summary.selectRow(1)
    item = view.questions.item(2, 1)
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        view.questions.itemActivated.emit(item)
    assert window.mode() == "explore" and window.side_by_side.isChecked()
    assert window.question.text() == item.text() and window.compare.reference
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.mode() == "evaluate"
    assert [i.row() for i in view.summary.selectionModel().selectedRows()] == [1], "back where it was"
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert window.mode() == "explore" and window.compare.isVisible()


def test_benchmark_tour_keeps_the_window_on_a_laptop_screen(monkeypatch, qtbot, make_window, hash_ws, tmp_path):
    from eval_support import sample_questions

    from workbench.core.evaluate.datasets import save_question_set
    from workbench.ui.window.benchmark_tour import BenchmarkTour

    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    screen = _small_screen(monkeypatch, 1366, 768)
    window = make_window(hash_ws)
    assert screen.contains(window.frameGeometry())
    tour = BenchmarkTour(window, str(tmp_path / "qs"), "lab-safety")
    outcome = []
    tour.finished.connect(lambda q: outcome.append(("finished", q)))
    tour.failed.connect(lambda msg: outcome.append(("failed", msg)))
    widths = []
    window.compare.b.resultShown.connect(lambda _r: widths.append(window.frameGeometry().width()))
    assert tour.start()
    qtbot.waitUntil(lambda: bool(outcome), timeout=180_000)
    qtbot.wait(50)
    assert outcome[0][0] == "finished", outcome
    assert window.side_by_side.isChecked() and window.compare.b.isVisible()
    assert window.frameGeometry().width() <= 1366 and all(w <= 1366 for w in widths), widths
    assert screen.contains(window.frameGeometry()), window.frameGeometry()
    assert not window.left_tabs.isVisible(), "the library collapsed to its strip for side by side"


def test_side_by_side_sides_share_the_width_until_the_divider_is_dragged(monkeypatch, qtbot, make_window,
                                                                         hash_sample_ws):
    from PySide6.QtWidgets import QApplication

    _small_screen(monkeypatch, 1366, 768)
    window = make_window(hash_sample_ws)
    window.resize(1366, 768)
    qtbot.waitExposed(window)
    window.side_by_side.setChecked(True)
    window.compare.set_knobs_shown(True)
    search(qtbot, window, sides=("a", "b"))
    QApplication.processEvents()
    a, b = window.compare.a.width(), window.compare.b.width()
    assert abs(a - b) <= 0.02 * (a + b), (a, b)
    window.compare.sides.moveSplitter(int((a + b) * 0.6), 1)  # a drag: A wider
    dragged = window.compare.sides.sizes()
    window.side_by_side.setChecked(False)
    window.side_by_side.setChecked(True)
    QApplication.processEvents()
    assert abs(window.compare.sides.sizes()[0] - dragged[0]) <= 0.02 * sum(dragged), "the drag is kept"
