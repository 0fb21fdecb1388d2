"""No clipped or overlapping text where the review found it (pytest-qt, offscreen, hashed embedder, a
1280 × 720 screen): the welcome's Answers and Your data texts, each side's legend and summary line, the
document's colour picker, a coarse-sets error, the answers with the prompt shown. "Clipped" is measured
(``ui_support.clipped_texts``): a label, button or combo box narrower or lower than its text needs, unless it
elides the text with the whole of it in its tooltip."""

from __future__ import annotations

from ui_support import WAIT_MS, clipped_texts, on_screen, search

from workbench.core.spans import Span
from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]


def _laptop(qtbot, monkeypatch, make_window, ws):
    screen = on_screen(monkeypatch, 1280, 720)
    window = make_window(ws)
    window.setGeometry(screen)
    qtbot.wait(20)
    return window


def test_the_welcomes_texts_get_the_lines_they_need(qtbot, monkeypatch, make_window, hash_ws):
    from PySide6.QtWidgets import QDialog

    window = _laptop(qtbot, monkeypatch, make_window, hash_ws)
    window.menu_actions["welcome"].trigger()
    dialog = next(w for w in window.findChildren(QDialog) if type(w).__name__ == "WelcomeDialog")
    qtbot.waitUntil(lambda: "Looking for" not in dialog.ollama_status.text(), timeout=WAIT_MS)  # the probe's answer
    qtbot.wait(20)
    assert not clipped_texts(dialog), clipped_texts(dialog)


def test_side_by_side_legends_summary_and_colour_picker_show_their_text(qtbot, monkeypatch, make_window,
                                                                          hash_sample_ws):
    window = _laptop(qtbot, monkeypatch, make_window, hash_sample_ws)
    window.set_library_shown(True)
    window.side_by_side.setChecked(True)
    doc_id = hash_sample_ws.records.documents()[0]["id"]
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        window.eval_view.questionActivated.emit("Why must the database migration run before the rollout?",
                                                [Span(doc_id, 0, 60)])
    compare = window.compare
    compare.set_knobs_shown(True)
    compare.doc_pane.flush()
    qtbot.wait(30)
    assert "returned by A / B" in [compare.doc_pane.colour.itemText(i) for i in range(compare.doc_pane.colour.count())]
    assert not clipped_texts(window), clipped_texts(window)
    summary = compare.summary
    assert summary.text().startswith("A: ") and "B: " in summary.text()


def test_a_coarse_sets_error_shows_whole_lines(qtbot, monkeypatch, make_window, hash_sample_ws):
    window = _laptop(qtbot, monkeypatch, make_window, hash_sample_ws)
    window.side_by_side.setChecked(True)
    side = window.compare.b
    side.set_knobs_shown(True)
    side.strategy_panel.coarse.setText("nonsense, then more nonsense")
    side.strategy_panel.coarse.editingFinished.emit()
    qtbot.wait(30)
    errors = [t for t in (side.strategy_panel.error.text(),) if t]
    assert errors and "100:2+200:2" in errors[0]
    assert not clipped_texts(side), clipped_texts(side)


def test_answers_and_the_prompt_never_overlap(qtbot, monkeypatch, make_window, hash_sample_ws):
    window = _laptop(qtbot, monkeypatch, make_window, hash_sample_ws)
    window.model.set_llm(LLMChoice("extractive"))
    window.side_by_side.setChecked(True)
    search(qtbot, window, sides=("a", "b"))
    panel = window.answer
    panel.set_sides("A and B")
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS):
        panel.ask.click()
    window.compare.show_bottom_tab(window.answer_page)
    panel.show_prompt.setChecked(True)
    qtbot.wait(30)
    assert not clipped_texts(panel), clipped_texts(panel)
    for column in panel.columns.values():
        parts = [w for w in (column.title, column.answer, column.stats, column.verdict, column.sources)
                 if w.isVisible()]
        for first, second in zip(parts, parts[1:]):
            assert first.geometry().bottom() < second.geometry().top(), (first, second, "overlap")


def test_a_spin_box_narrower_than_its_widest_value_is_found(qtbot):
    """The measure the walk uses: a chunk-size box that shows "10" of "100" reads wrong, and is found."""
    from PySide6.QtWidgets import QSpinBox, QVBoxLayout, QWidget
    from ui_support import narrow_inputs

    root = QWidget()
    qtbot.addWidget(root)
    lay = QVBoxLayout(root)
    box = QSpinBox()
    box.setRange(16, 4096)
    box.setValue(100)
    lay.addWidget(box)
    root.show()
    qtbot.waitExposed(root)
    assert not narrow_inputs(root)
    box.setFixedWidth(box.fontMetrics().horizontalAdvance("40") + 30)  # arrows and frame take the rest
    assert narrow_inputs(root) and "4096" in narrow_inputs(root)[0]


def test_a_legend_fits_one_line_and_names_every_swatch(qtbot):
    from workbench.ui.explore.legend import Legend

    legend = Legend(["evidence", "noise", "missed", "reference"])
    qtbot.addWidget(legend)
    legend.resize(legend.sizeHint())
    legend.show()
    assert not legend.is_compact() and legend.shown_width() <= legend.width()
    legend.resize(legend.minimumSizeHint().width() + 20, legend.height())
    assert legend.is_compact() and legend.shown_width() <= legend.width()
    assert not legend.wordWrap(), "one line, never wrapped"
    assert all(word in legend.toolTip() for word in legend.plain_text().split(", "))
