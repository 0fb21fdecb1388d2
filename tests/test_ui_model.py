"""The window's shared model, its one action table and its one store writer."""

from __future__ import annotations

from ui_support import QUESTION, WAIT_MS

from workbench.core.retrieve.strategy.presets import PRESETS
from workbench.core.spans import Span
from workbench.ui.app.settings import LLMChoice

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
    doc_id = hash_sample_ws.store.documents()[0]["id"]
    with qtbot.waitSignal(compare.a.resultShown, timeout=WAIT_MS):
        window.eval_view.questionActivated.emit(QUESTION, [Span(doc_id, 0, 40)])
    assert model.question == window.question.text() == compare.searched_question == QUESTION
    assert model.reference == compare.a.reference == [Span(doc_id, 0, 40)]
    model.set_llm(LLMChoice("extractive"))
    assert window.answer.choice == LLMChoice("extractive")
    idle = [s.controller for s in (compare.a, compare.b)]  # no build left to cancel when the window closes
    qtbot.waitUntil(lambda: not any(c.building or c.searching for c in idle), timeout=WAIT_MS)


def test_the_evaluation_lab_writes_on_the_window_store_queue(make_window, hash_ws):
    window = make_window(hash_ws)
    assert window.eval_view.jobs is window.store_jobs


def test_the_sample_corpus_is_where_the_app_looks():
    from conftest import SAMPLE

    from workbench.ui.app.qt_app import SAMPLE_DIR

    assert SAMPLE_DIR == SAMPLE and SAMPLE_DIR.is_dir()
