"""The results column's height on a laptop: the passages keep half the window's height while nothing else needs
room, give way to open knobs' four rows and to an answer's six lines (issue 50), the answer pane is sized to its
content (stats and sources in view), a divider the person moved stays where they put it, and a new Ask after
*Show prompt* shows the answer."""

from __future__ import annotations

from ui_support import WAIT_MS, on_screen, search

from workbench.ui.basics.settings import LLMChoice
from workbench.ui.explore.heights import KNOB_FLOOR, share_heights

pytest_plugins = ["ui_support"]


def test_the_passages_come_first_then_the_bottom_minimum_then_the_knobs():
    # 600 px: 60 fixed, 360 for the passages, 180 to share
    closed = share_heights(600, 60, 360, 0, 110, 400)
    assert closed.bottom == 180 and closed.knobs == 0, "a long answer gets what the passages leave"
    short = share_heights(600, 60, 360, 0, 110, 130)
    assert short.bottom == 130, "a short answer gets its own height, the passages the rest"
    opened = share_heights(600, 60, 360, 236, 110, 400)
    assert opened.bottom == 110 and opened.knobs == 70, "open knobs take what the bottom minimum leaves"
    roomy = share_heights(900, 60, 360, 236, 110, 200)
    assert roomy.knobs == 236 and roomy.bottom == 200
    tight = share_heights(500, 60, 360, 236, 110, 400)
    assert tight.knobs == KNOB_FLOOR and tight.bottom == 80, "the knobs keep a floor, scrolling"
    hidden = share_heights(600, 60, 360, 0, 0, 0)
    assert hidden.bottom == 0


def _settle():
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QApplication.processEvents()


def test_a_laptop_window_keeps_half_its_height_for_the_passages(qtbot, monkeypatch, make_window, hash_sample_ws):
    from PySide6.QtCore import QPoint

    screen = on_screen(monkeypatch, 1280, 720)
    window = make_window(hash_sample_ws)
    window.setGeometry(screen)
    search(qtbot, window)
    window.model.set_llm(LLMChoice("extractive"))
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        window.ask()
    _settle()
    compare, column, page = window.compare, window.answer.columns["A"], window.answer_page
    assert compare.a.results.height() >= window.height() // 3, "the passages give way to the answer's least"
    assert window.answer.columns["A"].answer.height() >= 6 * window.answer.fontMetrics().lineSpacing(), \
        "the answer's six lines (issue 50)"
    bottom = compare.split.sizes()[1]
    assert bottom <= window.answer.content_height() + 40, "the answer pane is no taller than its answer"
    for part in (column.stats, column.sources):
        top = part.mapTo(page.viewport(), QPoint(0, 0)).y()
        assert top >= 0 and top + part.height() <= page.viewport().height(), "stats and sources in view"
    compare.set_knobs_shown(True)
    _settle()
    assert compare.a.knob_area.isVisible() and compare.a.results.height() >= window.height() // 4, "knobs open too"
    assert compare.a.knob_area.height() >= compare.knob_floor(), "open knobs show their declared rows (issue 50)"
    assert compare.a.knob_area.height() < compare.a.knob_need(), "the knobs scroll in what is left"
    compare.set_knobs_shown(False)
    _settle()

    total = sum(compare.split.sizes())
    compare.split.setSizes([total - 300, 300])  # the person drags the divider up
    compare.split.splitterMoved.emit(total - 300, 1)
    compare.refit()
    _settle()
    assert compare.split.sizes()[1] == 300, "a divider moved by hand stays"

    window.answer.show_prompt.setChecked(True)
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        window.answer.ask.click()
    assert not window.answer.show_prompt.isChecked() and window.answer.prompt_box.isHidden(), \
        "a new Ask shows the answer, not the last prompt"
