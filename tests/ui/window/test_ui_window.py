"""Desktop manners: persisted layout and strategies, shortcuts, tooltips, the About box, errors in the UI,
the background worker's signals, and the answer panel streaming from a generative model (the stand-in LLM).
The sample corpus is embedded with the hashed embedder: none of this depends on the real model's ranking."""

from __future__ import annotations

import pytest
from ui_support import WAIT_MS, search

from workbench.core.retrieve.strategy.presets import PRESETS

pytest_plugins = ["ui_support"]


def test_layout_strategies_and_mode_persist(qtbot, make_window, hash_sample_ws, ui_settings):
    window = make_window(hash_sample_ws)
    side = window.compare.a
    side.strategy_panel.preset.setCurrentText("sentence-window")
    qtbot.waitUntil(lambda: not side.controller.building, timeout=WAIT_MS)
    window.side_by_side.click()
    window.compare.b.strategy_panel.top_k.setValue(7)
    window.main_split.setSizes([420, 1180])
    sizes = window.main_split.sizes()
    window.close()
    assert ui_settings.value("window/rect") is not None
    ui_settings.remove("window/rect")  # start at the default window size
    again = make_window(hash_sample_ws, ui_settings)
    assert again.compare.a.strategy() == PRESETS["sentence-window"]
    assert again.compare.a.strategy_panel.preset.currentText() == "sentence-window"
    assert again.compare.b.strategy().top_k == 7 and again.compare.b.strategy_panel.preset.currentText() == "custom"
    assert again.side_by_side.isChecked() and again.compare.b.isVisible()
    assert again.main_split.sizes() == sizes


def test_shortcuts_focus_and_switch_sides(qtbot, make_window, hash_sample_ws):
    from PySide6.QtCore import Qt

    window = make_window(hash_sample_ws)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    window.compare.a.results.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.question.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert window.side_by_side.isChecked() and window.compare.b.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.compare.b.results.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.compare.a.results.hasFocus()
    a, b = window.compare.a.strategy(), window.compare.b.strategy()
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert (window.compare.a.strategy(), window.compare.b.strategy()) == (b, a)
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not window.side_by_side.isChecked()
    for action in window.menu_actions.values():
        assert action.toolTip()


def test_every_knob_says_what_it_does(make_window, hash_sample_ws):
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QDoubleSpinBox, QSlider, QSpinBox

    window = make_window(hash_sample_ws)
    for side in (window.compare.a, window.compare.b):
        panel = side.strategy_panel
        knobs = panel.findChildren(QSlider) + panel.findChildren(QSpinBox) + panel.findChildren(QComboBox) \
            + panel.findChildren(QDoubleSpinBox) + panel.findChildren(QAbstractButton)
        assert len(panel.findChildren(QSlider)) == 5
        for knob in knobs:
            assert len(knob.toolTip()) > 30, f"{knob!r} needs a tooltip"
    assert "re-chunks" in window.compare.a.strategy_panel.size_knob.slider.toolTip()
    assert "nothing is re-embedded" in window.compare.a.strategy_panel.window_knob.slider.toolTip()


def test_about_box_and_errors_show_in_the_window(qtbot, make_window, hash_ws):
    from PySide6.QtWidgets import QLabel

    window = make_window(hash_ws)
    window.menu_actions["about"].trigger()
    dialogs = [w for w in window.children() if type(w).__name__ == "AboutDialog"]
    assert len(dialogs) == 1 and dialogs[0].isVisible()
    text = dialogs[0].findChild(QLabel).text()
    for name in ("Chunk Workbench", "PySide6", "Qt", "Embedding model", "faiss-cpu"):
        assert name in text
    dialogs[0].close()
    window.question.setText("anything")
    window.run_search()
    assert "library is empty" in window.statusBar().currentMessage()
    with qtbot.waitSignal(window.errorShown, timeout=WAIT_MS):
        window.library.indexingFailed.emit("disk full")
    assert "disk full" in window.statusBar().currentMessage()


def test_worker_signals_in_order(qtbot):
    from workbench.core.jobs import Cancelled, ProgressEvent
    from workbench.ui.jobs.workers import JobRunner, Worker

    runner = JobRunner(2)
    seen: list[tuple] = []

    def watch(worker: Worker, name: str) -> Worker:
        s = worker.signals
        s.started.connect(lambda: seen.append((name, "started")))
        s.progress.connect(lambda ev: seen.append((name, "progress", ev.done)))
        s.result.connect(lambda v: seen.append((name, "result", v)))
        s.error.connect(lambda msg, _tb: seen.append((name, "error", msg)))
        s.cancelled.connect(lambda: seen.append((name, "cancelled")))
        s.finished.connect(lambda: seen.append((name, "finished")))
        return worker

    def ok(progress, cancel):
        progress(ProgressEvent("embedding", 1, 2))
        return 42

    def stop(progress, cancel):
        cancel.check()
        raise Cancelled()

    jobs = [watch(Worker(ok), "ok"), watch(Worker(lambda p, c: 1 / 0), "bad"), watch(Worker(stop), "stop")]
    jobs[2].cancel()
    with qtbot.waitSignals([j.signals.finished for j in jobs], timeout=WAIT_MS):
        for job in jobs:
            runner.start(job)
    assert [e for e in seen if e[0] == "ok"] == [("ok", "started"), ("ok", "progress", 1), ("ok", "result", 42),
                                                 ("ok", "finished")]
    assert ("bad", "error", "ZeroDivisionError: division by zero") in seen
    assert [e[1] for e in seen if e[0] == "stop"] == ["started", "cancelled", "finished"]
    assert runner.shutdown()


def test_answer_streams_and_stops(qtbot, make_window, hash_sample_ws, standin_llm):
    from workbench.ui.basics.settings import LLMChoice

    window = make_window(hash_sample_ws)
    panel = window.answer
    if not panel.available:
        assert panel.status.text() == "answering backend not installed" and not panel.ask.isEnabled()
        pytest.skip("workbench.core.llm is not installed")
    panel.set_backend(LLMChoice("embedded"))  # a generated, streamed answer (auto without Ollama quotes instead)
    standin_llm.reply = lambda messages: "The migration adds the columns first [1]. " * 40
    search(qtbot, window)
    with qtbot.waitSignal(panel.answered, timeout=120_000) as done:
        panel.ask.click()
        assert panel.stop.isEnabled() and not panel.ask.isEnabled()
    job = done.args[0]
    assert panel.answer.toPlainText() == job.text and job.text.strip()
    assert "tokens/s" in panel.stats.text()
    panel.show_prompt.click()
    assert panel.prompt.isVisibleTo(panel) and "Passages:" in panel.prompt.toPlainText()
    assert "Question: Why must the database migration" in panel.prompt.toPlainText()
    assert standin_llm.requests[-1][-1]["content"] in panel.prompt.toPlainText(), "the prompt shown is the one sent"
    standin_llm.delay = 0.05  # 400 words: 20 s unless the stop stops it
    with qtbot.waitSignal(panel.relay.token, timeout=WAIT_MS):
        panel.ask.click()
    with qtbot.waitSignal(panel.stopped, timeout=WAIT_MS):
        panel.stop.click()
    assert panel.ask.isEnabled() and "stopped" in panel.status.text()
    assert panel.answer.toPlainText().count("[1]") < 40, "the answer stopped part-way"


def test_window_shortcuts_work_while_a_text_field_has_the_focus(qtbot, make_window, hash_ws):
    """Under X11 key bindings a line edit claims Ctrl+E (end of line) and Ctrl+K (cut to its end) before any
    shortcut; the offscreen platform's bindings do not, so the field here claims them as an X11 one does."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QLineEdit

    class X11LineEdit(QLineEdit):
        def event(self, event: QEvent) -> bool:
            if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and \
                    event.modifiers() == Qt.KeyboardModifier.ControlModifier and event.key() in (Qt.Key.Key_E,
                                                                                                 Qt.Key.Key_K):
                event.accept()  # "this key is mine"
                return True
            return super().event(event)

    window = make_window(hash_ws)
    field = X11LineEdit()
    window.eval_view.inputs.layout().addWidget(field)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    window.set_mode("evaluate")
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert window.mode() == "explore", "Ctrl+E went to the text field"
    window.set_mode("explore")
    knobs = window.compare.knobs_shown()
    window.question.setFocus()
    qtbot.keyClick(window.question, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.compare.knobs_shown() is not knobs
