"""The evaluation lab's plot and summary open Explore: a clicked point or configuration shows its first
question that scores differently, side by side with the reference spans; the lab keeps its state; one
colour per strategy line in the table and the plots; exact values in the point tooltips; dark plots only
for a dark scheme."""

from __future__ import annotations

import pytest
from ui_support import WAIT_MS

pytest_plugins = ["ui_support"]


def _point_position(view, plot, key):
    """Viewport position of configuration ``key``'s point in ``plot``."""
    from PySide6.QtCore import QPointF

    for item in plot.listDataItems():
        for spot in item.scatter.points():
            if spot.data() == key:
                scene = plot.vb.mapViewToScene(QPointF(spot.pos().x(), spot.pos().y()))
                return view.mapFromScene(scene), spot
    raise AssertionError(f"no point for {key}")


def _first_differing(results, key):
    """Independent of the view: the first question of ``key`` scored differently by the run's first config."""
    mine = next(r for r in results if r.config.key == key)
    base = {r.q_index: r.metrics for r in results[0].rows}
    for r in mine.rows:
        theirs = base[r.q_index]
        if (r.metrics.recall, r.metrics.precision, r.metrics.iou) != (theirs.recall, theirs.precision, theirs.iou):
            return r
    return mine.rows[0]


def _same(a, b):
    """Equal strategies, whatever their names (the knobs name a strategy after the preset it equals)."""
    return {**a.to_dict(), "name": ""} == {**b.to_dict(), "name": ""}


@pytest.fixture
def lab(qtbot, make_window, hash_ws, tmp_path):
    from eval_support import sample_questions

    from workbench.core.evaluate.datasets import save_question_set

    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    window = make_window(hash_ws)
    window.resize(1366, 768)
    window.set_mode("evaluate")
    view = window.eval_view
    assert view.load_question_set(tmp_path / "qs")
    view.set_checked(["plain", "neighbours"])
    view.grid.setText("window=0,2")
    with qtbot.waitSignal(view.runFinished, timeout=120000):
        view.run_button.click()
    qtbot.wait(50)
    parts = [window, view]
    del window, view
    yield parts
    parts.clear()  # pytest keeps the fixture's value until after the window's leak check


def test_clicking_a_plot_point_opens_its_question_and_back_to_lab_keeps_the_lab(qtbot, lab):
    from PySide6.QtCore import Qt

    window, view = lab
    key = "neighbours window=2"
    expected = _first_differing(view.results, key)
    view.compare_to.setCurrentIndex(0)
    pos, _spot = _point_position(view.plot.view, view.recall_plot, key)
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        qtbot.mouseClick(view.plot.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert window.mode() == "explore" and window.side_by_side.isChecked()
    assert window.question.text() == expected.question
    reference = view.reference_spans(expected.q_index, expected.question)
    assert reference and window.compare.reference == reference
    assert _same(window.compare.b.strategy(), next(r for r in view.results if r.config.key == key).config.strategy)
    assert _same(window.compare.a.strategy(), view.results[0].config.strategy)
    for side in (window.compare.a, window.compare.b):
        assert side.results.rendered("reference"), "reference spans drawn"
    assert window.back_to_lab.isVisible()
    window.back_to_lab.click()
    assert window.mode() == "evaluate" and not window.back_to_lab.isVisible()
    selected = [i.row() for i in view.summary.selectionModel().selectedRows()]
    assert [view.results[r].config.key for r in selected] == [key], "the lab is where it was"


def test_a_configuration_row_opens_explore(qtbot, lab):
    window, view = lab
    row = 1
    key = view.results[row].config.key
    expected = _first_differing(view.results, key)
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        view.summary.itemActivated.emit(view.summary.item(row, 0))
    assert window.mode() == "explore" and window.question.text() == expected.question
    assert window.compare.reference


def test_swatches_match_plot_colours_and_tooltips_show_exact_values(qtbot, lab):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor

    from workbench.core.evaluate.export import summary_rows

    _window, view = lab
    rows = {r["key"]: r for r in summary_rows(view.results)}
    colours = set()
    for i, result in enumerate(view.results):
        key = result.config.key
        swatch = view.summary.item(i, 0).data(Qt.ItemDataRole.DecorationRole)
        _pos, spot = _point_position(view.plot.view, view.iou_plot, key)
        assert QColor(swatch) == spot.brush().color(), key
        colours.add(QColor(swatch).name())
    assert len(colours) == 2, "one colour per strategy line (plain, neighbours)"
    key = "plain window=2"
    pos, _spot = _point_position(view.plot.view, view.recall_plot, key)
    qtbot.mouseMove(view.plot.view.viewport(), pos)
    qtbot.waitUntil(lambda: view.recall_plot.vb.toolTip() != "", timeout=WAIT_MS)
    tip = view.recall_plot.vb.toolTip()
    r = rows[key]
    assert key in tip
    for label, value in (("recall", r["recall"]), ("precision", r["precision"]), ("IoU", r["iou"])):
        assert f"{label} {100 * value:.2f}%" in tip
    assert f"{r['context_tokens']:.1f} tokens" in tip


def test_dark_scheme_gives_dark_plots_and_light_stays_light(qtbot):
    from PySide6.QtCore import Qt

    from workbench.ui.basics.theme import DARK, LIGHT, palette_for, stylesheet
    from workbench.ui.evaluate.tradeoff_plot import TradeoffPlot

    assert palette_for(Qt.ColorScheme.Dark) is DARK
    assert palette_for(Qt.ColorScheme.Light) is LIGHT and palette_for(Qt.ColorScheme.Unknown) is LIGHT
    dark = TradeoffPlot(palette=palette_for(Qt.ColorScheme.Dark))
    light = TradeoffPlot(palette=palette_for(Qt.ColorScheme.Light))
    for plot in (dark, light):
        qtbot.addWidget(plot)
    assert dark.view.backgroundBrush().color().lightness() < 60 < 200 < light.view.backgroundBrush().color().lightness()
    assert dark.recall_plot.getAxis("bottom").textPen().color().lightness() > 150
    assert DARK.page in stylesheet(DARK) and LIGHT.text not in stylesheet(DARK).replace(DARK.ink, "")
    assert f"color: {DARK.ink}" in stylesheet(DARK), "document text stays dark ink on light paper"
