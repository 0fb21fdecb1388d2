"""After *Show prompt*, a new Ask brings the answers back into view: the answer page scrolls to its top and
the Answer tab comes to the front (before, the view stayed on the prompt)."""

from __future__ import annotations

from ui_support import WAIT_MS, on_screen, search

from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]


def test_a_new_ask_after_show_prompt_shows_the_answers(qtbot, monkeypatch, make_window, hash_sample_ws):
    from PySide6.QtCore import Qt

    screen = on_screen(monkeypatch, 1280, 720)
    window = make_window(hash_sample_ws)
    window.setGeometry(screen)
    search(qtbot, window)
    window.model.set_llm(LLMChoice("extractive"))
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        window.ask()
    window.answer.show_prompt.setChecked(True)
    qtbot.wait(20)
    bar = window.answer_page.verticalScrollBar()
    assert bar.maximum() > 0, "the prompt makes the answer page scroll at 1280 × 720"
    bar.setValue(bar.maximum())  # the researcher reads the prompt
    window.compare.show_bottom_tab(window.compare.doc_pane)
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        qtbot.mouseClick(window.answer.ask, Qt.MouseButton.LeftButton)
    assert window.compare.bottom_tabs.currentWidget() is window.answer_page
    assert bar.value() == 0, "the answers, not the prompt, are in view"
