"""The lab's Advise tab (pytest-qt, offscreen) on the hashed embedder with a small space: a run fills the Pareto
plot, the confirm table and the verdict, saves the pick into both sides' strategy lists and the lab's; *Use on
side B* and a click on a plot point put strategies on the sides; a recorded run reopens."""

from dataclasses import replace

import pytest
from advise_support import SMALL, topic_set
from PySide6.QtCore import Qt

from workbench.core.evaluate.advise.space import Space

pytest_plugins = ["ui_support"]


@pytest.mark.slow
def test_advise_tab_runs_saves_and_opens_strategies(qtbot, make_window, hash_ws, tmp_path):
    topic_set(tmp_path / "set", documents=9)
    window = make_window(hash_ws)
    lab = window.eval_view
    assert lab.load_question_set(tmp_path / "set")
    window.set_mode("evaluate")
    lab.lab_tabs.setCurrentWidget(lab.advise)
    view = lab.advise
    view.space_for = lambda budget: Space(SMALL.chunkers, SMALL.sizes, SMALL.searches, SMALL.expansions,
                                          SMALL.top_ks, budget)
    view.budget.setValue(300)
    view.folds.setValue(2)  # the fit/confirm split: a confirm table of three candidates
    view.name.setText("tab-pick")
    with qtbot.waitSignal(view.strategySaved, timeout=180_000) as saved:
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
        assert view.running and view.cancel_button.isEnabled()
    assert saved.args == ["tab-pick"] and not view.running
    assert view.table.rowCount() == 6 and view.table.item(0, 1).text().startswith("pick")
    assert view.table.item(0, 6).text(), "the pick's difference from hybrid, with its interval"
    assert "Verdict:" in view.verdict.toPlainText() and "tab-pick" in view.verdict.toPlainText()
    assert view.plot.trials and view.log.toPlainText().count("trial ") >= SMALL.size
    # the pick is listed on both sides and in the lab
    for side in (window.compare.a, window.compare.b):
        assert side.strategy_panel.preset.findText("tab-pick") >= 0
    assert "tab-pick" in [lab.strategies.item(i).text() for i in range(lab.strategies.count())]

    view.table.selectRow(1)
    qtbot.mouseClick(view.use_b, Qt.MouseButton.LeftButton)
    assert replace(window.model.strategy("B"), name="") == replace(view.row_strategy(1), name="")

    trial = view.plot.trials[0]
    view.open_trial(trial)
    assert window.mode() == "explore"
    assert window.compare.a.strategy_panel.strategy().search_config.mode == "hybrid"
    assert window.compare.b.strategy_panel.strategy().chunk == view.space_for(300).strategy(trial.params).chunk
    confirm_questions = {q.question for q in lab.model.question_set.questions if q.index in set(view.confirm_indexes)}
    assert window.question.text() in confirm_questions

    run_id = view.recorded.currentData()
    view.table.setRowCount(0)
    assert view.open_record(run_id) and view.table.rowCount() == 6

    # Resume continues the recorded run in place: its trials are given back, none is run again
    runs_before = view.recorded.count()
    view.limit.setValue(1)
    with qtbot.waitSignal(view.strategySaved, timeout=180_000):
        qtbot.mouseClick(view.resume_button, Qt.MouseButton.LeftButton)
        assert view.running and not view.resume_button.isEnabled() and not view.run_button.isEnabled()
    assert f"resuming advice run {run_id}" in view.log.toPlainText()
    assert view.recorded.count() == runs_before, "the same run, not a new one"
    assert view.progress.value() == view.progress.maximum(), "a finished run's bar is full"
    assert "--" not in view.status.text(), "the window names no command-line option"


def test_the_advise_tabs_hint_follows_its_state_and_its_empty_plot_says_so(qtbot, make_window, hash_ws, tmp_path):
    from workbench.ui.evaluate.advise_view import NO_TRIALS

    topic_set(tmp_path / "set", documents=9)
    window = make_window(hash_ws)
    lab = window.eval_view
    view = lab.advise
    assert "Load a question set" in view.status.text()
    assert lab.load_question_set(tmp_path / "set")
    assert "Load a question set" not in view.status.text() and "Press Advise" in view.status.text()
    assert window.model.question_set.name in view.status.text()
    plot = view.plot
    assert plot.empty_note in plot.view.getPlotItem().items and plot.empty_note.toPlainText() == NO_TRIALS
    (_x0, _x1), (y0, y1) = plot.view.getPlotItem().vb.viewRange()
    assert y0 <= 0 and 100 <= y1 <= 105, "an empty plot reads recall 0–100 %"


def test_a_very_long_advice_run_asks_before_it_starts(qtbot, make_window, hash_ws, tmp_path):
    """The window's ``--yes``: a time limit over four hours asks first; No starts nothing."""
    topic_set(tmp_path / "set", documents=9)
    window = make_window(hash_ws)
    lab = window.eval_view
    view = lab.advise
    assert lab.load_question_set(tmp_path / "set")
    asked: list[str] = []
    view.confirm = lambda question: asked.append(question) or False
    view.limit.setValue(300)
    assert view.start() is False and view._task is None
    assert len(asked) == 1 and "5 h" in asked[0] and "Not started" in view.status.text(), (asked, view.status.text())
