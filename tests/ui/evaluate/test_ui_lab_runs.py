"""The evaluation lab's runs (pytest-qt, offscreen, hashed embedder): the welcome's benchmark path does not
depend on the lab's fields and never meets a storage constraint; a storage error is one line and keeps the
previous tables; each configuration has one colour, the same in the table, both plots and the flips, and a
name that says what it is; the plots' axes read in their units from 0; GUI messages name the lab's fields."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
from ui_support import run_lab, sample_set

from workbench.core.retrieve.strategy.presets import PRESETS

pytest_plugins = ["ui_support"]


def _customs():
    """Two strategies the knobs would call "custom": neighbours at 100 tokens, and at ±2."""
    base = PRESETS["neighbours"]
    return replace(base.with_size(120), name="custom"), replace(base.with_expansion(window=2), name="custom")


def test_the_benchmark_path_after_a_lab_run_with_budgets_ignores_the_lab_fields(qtbot, make_window, hash_ws,
                                                                                tmp_path):
    from workbench.ui.window.benchmark_tour import BenchmarkTour

    root = sample_set(tmp_path)
    window = make_window(hash_ws)
    view = window.eval_view
    a, b = _customs()
    window.model.set_strategy("A", a)
    window.model.set_strategy("B", b)
    assert view.load_question_set(root)
    view.set_checked(["plain"])
    view.budgets.setText("100,200")  # the researcher's last lab run had budgets and a limit
    view.grid.setText("top_k=3,5")
    view.limit.setValue(2)
    run_lab(qtbot, view)
    assert len(view.results) == 4
    corpus = view.model.question_set.questions[0].corpus_id
    tour = BenchmarkTour(window, str(root), corpus)
    outcome: list[str] = []
    tour.finished.connect(outcome.append)
    tour.failed.connect(lambda msg: outcome.append(f"failed: {msg}"))
    assert tour.start()
    qtbot.waitUntil(lambda: bool(outcome), timeout=180_000)
    assert not outcome[0].startswith("failed"), outcome
    assert [r.config.params for r in view.results] == [{}, {}], "A and B as they are: no grid, no budgets"
    assert all(len(r.rows) == len(view.model.question_set.questions) for r in view.results), "every question, no limit"
    keys = [r.config.key for r in view.results]
    assert len(set(keys)) == 2 and not any("custom" in k for k in keys), keys
    assert (view.budgets.text(), view.grid.text(), view.limit.value()) == ("100,200", "top_k=3,5", 2), \
        "the lab's own fields are the researcher's"


def test_two_custom_strategies_at_budgets_are_recorded_under_distinct_descriptive_names(qtbot, make_window,
                                                                                       hash_ws, tmp_path):
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.limit.setValue(3)
    with qtbot.waitSignal(view.runFinished, timeout=180_000):
        assert view.start(list(_customs()), grid="", budgets="150,300")
    keys = [r.config.key for r in view.results]
    assert len(keys) == len(set(keys)) == 4, keys
    assert all("custom" not in k and "#" not in k for k in keys), keys
    assert any("120 tok" in k for k in keys) and any("±2" in k for k in keys), "the names say what differs"


def test_a_storage_error_is_one_line_and_the_previous_tables_stay(qtbot, make_window, hash_ws, tmp_path,
                                                                  monkeypatch):
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.limit.setValue(2)
    run_lab(qtbot, view)
    before, rows = view.run_id, view.summary.rowCount()

    def refuse(*_args, **_kwargs):
        raise sqlite3.IntegrityError("UNIQUE constraint failed: run_questions.run_id, run_questions.config_key")

    monkeypatch.setattr(type(hash_ws.records), "record_run", refuse)
    view.set_checked(["plain", "neighbours"])
    assert view.start()
    qtbot.waitUntil(lambda: not view.running, timeout=180_000)
    status = view.status.text()
    assert "\n" not in status and "IntegrityError" not in status and "Traceback" not in status, status
    assert "could not be recorded" in status and before in status, status
    assert view.run_id == before and view.summary.rowCount() == rows, "the previous run's tables stay"


def test_each_configuration_has_one_colour_in_the_table_both_plots_and_the_flips(qtbot, make_window, hash_ws,
                                                                                 tmp_path):
    from PySide6.QtCore import Qt

    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.limit.setValue(3)
    a, b = _customs()
    with qtbot.waitSignal(view.runFinished, timeout=180_000):
        assert view.start([a, b, PRESETS["plain"]], grid="window=0,1", budgets="150,300")
    colours = window.model.colours
    lines = {}  # a configuration without its budget is one line of both plots
    for r in view.results:
        line = " ".join([r.config.base, *(f"{k}={v}" for k, v in r.config.params.items() if k != "budget")])
        lines.setdefault(line, set()).add(colours[r.config.key])
    assert all(len(c) == 1 for c in lines.values()), "one colour per line"
    assert len({next(iter(c)) for c in lines.values()}) == len(lines) == 6, "distinct lines, distinct colours"
    for i, r in enumerate(view.results):  # the summary table's swatch
        assert view.summary.item(i, 0).data(Qt.ItemDataRole.DecorationRole).name() == colours[r.config.key]
    for item in view.recall_plot.listDataItems() + view.iou_plot.listDataItems():  # the trade-off lines
        keys = list(item.scatter.data["data"])
        assert {colours[k] for k in keys} == {item.opts["pen"].color().name()}
    curves = view.curve_plot
    for curve, colour in zip(curves.curves, curves.colours, strict=True):  # the curves by budget
        assert {colours[p["key"]] for p in curve["points"]} == {colour}
    flips = view.flip_browser  # the flips' pickers
    for combo in (flips.config_a, flips.config_b):
        for i in range(combo.count()):
            assert combo.itemData(i, Qt.ItemDataRole.DecorationRole).name() == colours[combo.itemData(i)]


def test_the_plots_read_in_percent_from_zero_recall_to_a_hundred_iou_fitted(qtbot, make_window, hash_ws, tmp_path):
    window = make_window(hash_ws)
    view = window.eval_view
    for plot in (view.recall_plot, view.iou_plot):  # empty: the axes already read 0–100 %
        (_x0, _x1), (y0, y1) = plot.viewRange()
        assert y0 <= 0 and y1 >= 100 and y1 <= 105 and "%" in plot.getAxis("left").labelText
    assert view.load_question_set(sample_set(tmp_path))
    view.limit.setValue(3)
    run_lab(qtbot, view)
    best_iou = max(100 * float(r["iou"] or 0.0) for r in view.plot.rows)
    for plot in (view.recall_plot, view.iou_plot):
        (x0, _x1), (y0, y1) = plot.viewRange()
        top = 100 if plot is view.recall_plot else min(100.0, max(1.0, best_iou * 1.15))
        assert y0 <= 0 and top <= y1 <= top * 1.05, "recall reads 0–100, IoU from 0 to just above its largest"
        assert x0 <= 0, "tokens from 0"
        for item in plot.listDataItems():
            _xs, ys = item.getData()
            assert all(0 <= y <= 100 for y in ys), "the values are percent, as the axis says"
    legend = view.plot.legend.sceneBoundingRect()
    for plot in (view.recall_plot, view.iou_plot):  # the legend sits outside the data
        assert not legend.intersects(plot.vb.sceneBoundingRect())


@pytest.mark.parametrize(("field", "text", "name"), [("budgets", "250,x", "Budgets"), ("grid", "window", "grid")])
def test_lab_messages_name_the_labs_fields_not_command_line_options(qtbot, make_window, hash_ws, tmp_path, field,
                                                                    text, name):
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    getattr(view, field).setText(text)
    assert not view.start()
    assert name in view.status.text() and "--" not in view.status.text(), view.status.text()
