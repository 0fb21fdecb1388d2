"""The window's shared model, its one action table and its one store writer."""

from __future__ import annotations

from ui_support import QUESTION, WAIT_MS

from workbench.core.retrieve.strategy.presets import PRESETS
from workbench.core.spans import Span
from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]


def test_model_setters_emit_only_changes(qtbot):
    from workbench.ui.model import WorkbenchModel

    a, b = PRESETS["plain"], PRESETS["neighbours"]
    model = WorkbenchModel(a, b)
    seen: list[tuple] = []
    model.questionChanged.connect(lambda q: seen.append(("question", q)))
    model.referenceChanged.connect(lambda spans: seen.append(("reference", spans)))
    model.strategyChanged.connect(lambda side, s: seen.append((side, s)))
    model.llmChanged.connect(lambda choice: seen.append(("llm", choice)))
    model.set_question("  why?  ")
    model.set_question("why?")
    model.open_question("why?", [Span(1, 0, 4)])
    model.open_question("why?", [Span(1, 0, 4)])
    model.set_strategy("A", a)
    model.swap_strategies()
    model.set_llm(LLMChoice())
    model.set_llm(LLMChoice("extractive"))
    assert seen == [("question", "why?"), ("reference", [Span(1, 0, 4)]), ("A", b), ("B", a),
                    ("llm", LLMChoice("extractive"))]
    assert model.chunk_configs() == list(dict.fromkeys([b.chunk, a.chunk]))
    model.reference.clear()
    assert model.reference == [Span(1, 0, 4)], "callers get a copy"
    assert model.from_question_set
    seen.clear()
    model.set_question("why not?")  # typed: another question is not the question set's
    assert seen == [("question", "why not?"), ("reference", [])] and not model.from_question_set


def test_explore_lab_and_saved_state_emit_only_changes(qtbot):
    import pytest

    from workbench.ui.model import WorkbenchModel

    model = WorkbenchModel()
    seen: list[tuple] = []
    model.modeChanged.connect(lambda mode: seen.append(("mode", mode)))
    model.sideBySideChanged.connect(lambda on: seen.append(("side by side", on)))
    model.searchedChanged.connect(lambda side: seen.append(("searched", side, model.searched(side))))
    model.savedChanged.connect(lambda: seen.append(("saved", sorted(model.saved))))
    for _twice in range(2):
        model.set_mode("evaluate")
        model.set_side_by_side(True)
        model.set_searched("B", " why? ")
        model.set_saved({"mine": PRESETS["plain"]})
    assert seen == [("mode", "evaluate"), ("side by side", True), ("searched", "B", "why?"), ("saved", ["mine"])]
    assert model.sides_shown() == ("A", "B") and model.searched("A") == ""
    model.saved.clear()
    assert list(model.saved) == ["mine"], "callers get a copy"
    with pytest.raises(ValueError):
        model.set_mode("lab")
    assert model.mode == "evaluate"


def test_results_and_answers_count_only_for_their_question_and_strategy(qtbot):
    from workbench.ui.answer.answer_backend import AnswerJob
    from workbench.ui.model import WorkbenchModel

    a, b = PRESETS["plain"], PRESETS["neighbours"]
    model = WorkbenchModel(a, b)
    changed: list[str] = []
    model.resultChanged.connect(changed.append)
    model.set_question("why?")
    answer = AnswerJob("why?", a)
    model.set_answer("A", answer)
    assert model.current_answer("A") is answer and model.stale_words("A", answer, "Answer") == ""
    model.set_question("how?")
    assert model.current_answer("A") is None and model.answer("A") is answer
    assert model.stale_words("A", answer, "Answer") == "Answer for the earlier question “why?”"
    model.set_question("why?")
    model.set_strategy("A", b)
    assert model.stale_words("A", answer, "Answer") == "Answer for A's previous strategy"
    model.set_result("B", None)
    assert changed == [], "a setter that changes nothing emits nothing"


def test_menus_and_shortcuts_come_from_the_action_table(make_window, hash_ws):
    from PySide6.QtGui import QKeySequence

    from workbench.ui.window.actions import ACTIONS, MENUS

    window = make_window(hash_ws)
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == list(MENUS)
    for menu_action in window.menuBar().actions():
        entries = [a for a in menu_action.menu().actions() if not a.isSeparator()]
        assert [a.text() for a in entries] == [s.text for s in ACTIONS if s.menu == menu_action.text()]
    assert set(window.menu_actions) == {s.id for s in ACTIONS}
    keys = [window.menu_actions[s.id].shortcut().toString() for s in ACTIONS if s.shortcut is not None]
    keys = [k for k in keys if k]  # a standard key the platform lacks (Quit offscreen) reads ""
    assert len(keys) == len(set(keys)), "one action per shortcut"
    assert window.menu_actions["focus_doc"].shortcut() == QKeySequence("Ctrl+D")
    assert "Ctrl+Shift+E" in window.mode_buttons["evaluate"].toolTip()


def test_panels_follow_the_model(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    model, compare = window.model, window.compare
    a, b = model.strategy("A"), model.strategy("B")
    window.menu_actions["swap"].trigger()
    assert (compare.a.strategy(), compare.b.strategy()) == (b, a) == (model.strategy("A"), model.strategy("B"))
    top_k = compare.a.strategy_panel.top_k.spin  # a knob moved by hand reaches the model
    top_k.setValue(top_k.value() + 1)
    assert model.strategy("A") == compare.a.strategy() and model.strategy("A").top_k == top_k.value()
    window.question.setText("  typed  ")
    assert model.question == "typed"
    doc_id = hash_sample_ws.store.documents.rows()[0]["id"]
    with qtbot.waitSignal(compare.a.resultShown, timeout=WAIT_MS):
        window.eval_view.questionActivated.emit(QUESTION, [Span(doc_id, 0, 40)])
    assert model.question == window.question.text() == model.searched("A") == QUESTION
    assert model.reference == compare.a.reference == [Span(doc_id, 0, 40)]
    model.set_llm(LLMChoice("extractive"))
    assert window.answer.choice == LLMChoice("extractive")
    idle = [s.controller for s in (compare.a, compare.b)]  # no build left to cancel when the window closes
    qtbot.waitUntil(lambda: not any(c.building or c.searching for c in idle), timeout=WAIT_MS)


def test_what_the_window_shows_is_the_model_s_and_controls_write_back_through_it(qtbot, make_window, hash_ws,
                                                                                  tmp_path):
    from dataclasses import replace

    from eval_support import sotu_set

    window = make_window(hash_ws)
    model, action, button = window.model, window.menu_actions["compare"], window.side_by_side
    model.set_side_by_side(True)  # the button, the menu action and side B follow the model
    assert button.isChecked() and action.isChecked() and not window.compare.b.isHidden()
    action.trigger()  # the menu action writes through the model; the button follows
    assert not model.side_by_side and not button.isChecked() and window.compare.b.isHidden()
    button.click()
    assert model.side_by_side and action.isChecked() and window.compare.sides_shown()[-1] is window.compare.b
    model.set_mode("evaluate")
    assert window.mode() == "evaluate" and window.modes.currentIndex() == 1
    assert window.mode_buttons["evaluate"].isChecked()
    window.mode_buttons["explore"].click()
    assert model.mode == "explore" and window.modes.currentIndex() == 0
    mine = replace(model.strategy("B"), name="mine", top_k=11)
    model.set_saved({"mine": mine})  # both sides and the lab list the model's saved strategies
    for side in (window.compare.a, window.compare.b):
        assert side.strategy_panel.preset.findText("mine") >= 0
    lab = window.eval_view
    assert "mine" in [lab.strategies.item(i).text() for i in range(lab.strategies.count())]
    assert window.load_in_lab(str(sotu_set(tmp_path, limit=2))) and model.mode == "evaluate"
    assert model.question_set is not None and lab.set_label.text().startswith(f"{model.question_set.name}:")


def test_the_evaluation_lab_writes_on_the_window_store_queue(make_window, hash_ws):
    window = make_window(hash_ws)
    assert window.eval_view.jobs is window.store_jobs


def test_the_sample_corpus_is_where_the_app_looks():
    from conftest import SAMPLE

    from workbench.ui.basics.bundled import SAMPLE_DIR

    assert SAMPLE_DIR == SAMPLE and SAMPLE_DIR.is_dir()
