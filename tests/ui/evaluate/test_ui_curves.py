"""The evaluation lab's recall-per-context-token curves: a sweep with budgets draws one curve per strategy with
a point per budget at the core's figures, lists recall @ 1,000 and AUC ≤ 2,000, tells a point's values on
hover, and a clicked point selects its configuration's questions; the run reopens with its curves."""

import pytest
from eval_support import sample_questions
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from workbench.core.evaluate.curves import budget_curves
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.records import find_run
from workbench.ui.evaluate.eval_view import EvalView

BUDGETS = [80, 240]
STRATEGIES = ["plain", "segments-balanced"]
GRID = "chunk_size=40 top_k=8"


@pytest.fixture
def lab(qtbot, hash_ws, tmp_path):
    """The lab after a sweep of two strategies at two budgets over five sample questions (fake embedder)."""
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    view = EvalView(hash_ws)
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    assert view.load_question_set(tmp_path / "qs")
    view.set_checked(STRATEGIES)
    view.grid.setText(GRID)
    view.budgets.setText(", ".join(map(str, BUDGETS)))
    with qtbot.waitSignal(view.runFinished, timeout=120000) as finished:
        assert view.start(), view.status.text()
    qtbot.wait(20)
    yield view, finished.args[0]
    view.cancel()
    view.pool.waitForDone(30000)


def test_one_curve_per_strategy_at_the_cores_figures(lab):
    view, _run_id = lab
    assert [r.config.key for r in view.results] == [f"{s} {GRID} budget={b}" for s in STRATEGIES for b in BUDGETS]
    core = budget_curves(view.results)
    plot = view.curve_plot
    assert view.plot_tabs.currentWidget() is view.curves
    assert [c["key"] for c in plot.curves] == [f"{s} {GRID}" for s in STRATEGIES]
    assert plot.curves == core
    assert len(set(plot.colours)) == len(STRATEGIES)
    for curve in plot.curves:
        assert sorted(p["budget"] for p in curve["points"]) == BUDGETS
        for p in curve["points"]:  # each point drawn where its mean tokens and recall put it
            pos, area = plot.point_position(p["key"]), plot.plot_rect()
            assert abs(area.left() + area.width() * p["context_tokens"] / plot.x_max - pos.x()) <= 1
            assert abs(area.bottom() - area.height() * p["recall"] - pos.y()) <= 1
    table = view.curves.figures
    assert table.rowCount() == len(core)
    for i, c in enumerate(core):
        assert [table.item(i, j).text() for j in range(3)] == [
            c["key"], f"{100 * c['recall_at_1000']:.1f}", f"{100 * c['auc_2000']:.1f}"]


def test_hover_tells_a_point_and_a_click_selects_its_configuration(qtbot, lab):
    view, _run_id = lab
    plot = view.curve_plot
    key = f"plain {GRID} budget={BUDGETS[-1]}"
    point = next(p for c in plot.curves for p in c["points"] if p["key"] == key)
    pos = plot.point_position(key)
    QApplication.sendEvent(plot, QHelpEvent(QEvent.Type.ToolTip, pos, plot.mapToGlobal(pos)))
    tip = QToolTip.text()
    assert tip.startswith(f"plain {GRID} ·") and f"budget {BUDGETS[-1]} tokens" in tip
    assert f"recall {100 * point['recall']:.1f}%" in tip and f"IoU {100 * point['iou']:.1f}%" in tip
    assert f"{point['context_tokens']:.0f} tokens" in tip
    QToolTip.hideText()

    assert f"budget {BUDGETS[0]}" not in tip  # one point here
    view.lower_tabs.setCurrentIndex(2)
    assert view.selected_result().config.key != key
    with qtbot.waitSignal(plot.pointClicked) as clicked:
        qtbot.mouseClick(plot, Qt.MouseButton.LeftButton, pos=pos)
    assert clicked.args == [key]
    chosen = view.selected_result()
    assert chosen.config.key == key and plot.selected == key
    assert view.lower_tabs.currentIndex() == 0  # the Questions tab: the drill-down of this configuration
    rows = {r.q_index: r for r in chosen.rows}
    assert view.questions.rowCount() == len(rows) == 5
    for i in range(view.questions.rowCount()):
        q = rows[view.questions.item(i, 0).data(Qt.ItemDataRole.DisplayRole) - 1]  # numbered from 1
        assert view.questions.item(i, 6).text() == str(q.metrics.context_tokens)
    with qtbot.assertNotEmitted(plot.pointClicked):
        qtbot.mouseClick(plot, Qt.MouseButton.LeftButton, pos=QPoint(plot.width() - 3, 3))  # no point there


def test_the_run_records_its_budgets_and_reopens_with_its_curves(lab, hash_ws):
    view, run_id = lab
    assert find_run(hash_ws, run_id).config["dataset"]["selection"]["budgets"] == "80, 240"
    core = budget_curves(view.results)
    view.curves.show_curves([])
    view.plot_tabs.setCurrentWidget(view.plot)
    view.open_run(run_id)
    assert view.curve_plot.curves == core and view.plot_tabs.currentWidget() is view.curves


def test_a_run_without_budgets_has_no_curves_and_bad_budgets_are_refused(qtbot, lab):
    view, _run_id = lab
    view.budgets.setText("250,x")
    assert not view.start() and view.status.text().startswith("Budgets ") and "--" not in view.status.text(), \
        "the refusal names the lab's field, not the command line's option"
    view.budgets.setText("")
    view.set_checked(["plain"])
    with qtbot.waitSignal(view.runFinished, timeout=120000):
        assert view.start()
    assert [r.config.key for r in view.results] == [f"plain {GRID}"]
    assert view.curve_plot.curves == [] and view.plot_tabs.currentWidget() is view.plot
    assert not view.curves.figures.isVisibleTo(view.curves)


def test_coinciding_points_share_a_tooltip_and_curves_get_distinct_colours(qtbot):
    from workbench.ui.evaluate.curve_plot import CurvePlot, curve_colours

    def curve(key, *points):
        return {"key": key, "recall_at_1000": 0.5, "auc_2000": 0.4, "corpora": {},
                "points": [{"budget": b, "key": f"{key} budget={b}", "recall": r, "iou": 0.1, "context_tokens": t}
                           for b, r, t in points]}

    curves = [curve("a", (500, 0.5, 480), (1000, 0.7, 900)), curve("b", (500, 0.5, 480), (2500, 0.9, 2400))]
    assert curve_colours(curves, {"a budget=500": "#111111", "b budget=500": "#222222"}) == ["#111111", "#222222"]
    assert len(set(curve_colours(curves, {}))) == 2, "curves without colours of their own still get two"
    plot = CurvePlot()
    qtbot.addWidget(plot)
    plot.resize(500, 300)
    plot.set_curves(curves)
    assert plot.x_max >= 2400  # the axis reaches the last point
    pos = plot.point_position("a budget=500")
    assert pos == plot.point_position("b budget=500")
    assert [p["key"] for _s, p in plot.points_at(pos)] == ["b budget=500", "a budget=500"]  # the top one first
    QApplication.sendEvent(plot, QHelpEvent(QEvent.Type.ToolTip, pos, plot.mapToGlobal(pos)))
    assert QToolTip.text().startswith("b · budget 500") and "\n\na · budget 500" in QToolTip.text()
    QToolTip.hideText()
    with qtbot.waitSignal(plot.pointClicked) as clicked:
        qtbot.mouseClick(plot, Qt.MouseButton.LeftButton, pos=pos)
    assert clicked.args == ["b budget=500"]
    plot.grab()  # paints (legend, 1,000-token line) without error
