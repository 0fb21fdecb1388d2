"""Nothing stale reaches the researcher (pytest-qt, offscreen, hashed embedder): what each view shows belongs
to the current question and strategy, or says in words that it does not.

The model (``ui/model.py``) owns the question and its reference spans, each side's strategy, result and
answer and the lab's run; these tests drive the window as a researcher does and read what is on screen.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from ui_support import QUESTION, WAIT_MS, run_lab, sample_set, search, shown_texts

from workbench.core.spans import Span
from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]
TYPED = "How do I flush the cache?"


def _stale_words(widget) -> list[str]:
    return [t for t in shown_texts(widget) if "earlier question" in t or "previous strategy" in t]


def _open_set_question(qtbot, window, question, reference):
    """A double click in the lab: the question opens side by side with its reference spans."""
    compare = window.compare
    with qtbot.waitSignals([compare.a.resultShown, compare.b.resultShown], timeout=WAIT_MS):
        window.eval_view.questionActivated.emit(question, reference)
    qtbot.waitUntil(lambda: all(_current(window, s) for s in "AB"), timeout=WAIT_MS)


def _current(window, side: str) -> bool:
    result = window.model.result(side) if hasattr(window.model, "result") else None
    if result is None:  # (the views before the model owned results)
        panel = window.compare.a if side == "A" else window.compare.b
        result = panel.controller.result
    return result is not None and result.question == window.model.question


def test_a_typed_question_after_a_question_set_one_shows_no_scores_noise_or_old_document(qtbot, make_window,
                                                                                        hash_sample_ws):
    ws = hash_sample_ws
    window = make_window(ws)
    strategy = window.model.strategy("A")
    ws.sets.ensure_chunk_set(strategy.chunk)
    typed_top = ws.search(TYPED, strategy).passages[0].span.doc_id
    other = next(d["id"] for d in ws.records.documents() if d["id"] != typed_top)
    reference = [Span(other, 0, 80)]
    _open_set_question(qtbot, window, QUESTION, reference)
    a, pane = window.compare.a, window.compare.doc_pane
    assert a.metrics.isVisible() and a.metrics.text().startswith("recall")

    search(qtbot, window, TYPED, sides=("a", "b"))
    qtbot.waitUntil(lambda: _current(window, "A") and _current(window, "B"), timeout=WAIT_MS)
    pane.flush()
    for side in (window.compare.a, window.compare.b):
        assert not side.metrics.isVisible(), side.metrics.text()
        assert not [t for t in shown_texts(side) if "recall" in t or "precision" in t]
        assert not side.results.rendered("noise") and not side.results.rendered("evidence")
        assert side.results.rendered("hit"), "hits in their windows, as for any typed question"
    assert pane.doc_id == typed_top, "the document view follows the new question's first passage"
    assert not pane.view.rendered("reference") and "reference" not in pane.legend.kinds


def test_answers_of_an_earlier_question_or_strategy_are_marked_stale(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    window.model.set_llm(LLMChoice("extractive"))
    panel = window.answer
    search(qtbot, window)
    window.compare.show_bottom_tab(panel)
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS):
        panel.ask.click()
    column = panel.columns["A"]
    assert column.answer.toPlainText() and not _stale_words(panel)
    panel.show_prompt.setChecked(True)

    window.question.setText(TYPED)  # typing another question
    stale = _stale_words(panel)
    assert stale and QUESTION in " ".join(stale), shown_texts(panel)

    window.question.setText(QUESTION)  # back to the question answered: current again
    assert not _stale_words(panel)

    strategy = window.model.strategy("A")  # A's strategy changes: its answer is from the previous one
    window.model.set_strategy("A", replace(strategy, top_k=strategy.top_k + 2))
    assert [t for t in shown_texts(panel) if "previous strategy" in t]

    # a question opened from the lab (double click) makes the answer stale too
    doc_id = hash_sample_ws.records.documents()[0]["id"]
    _open_set_question(qtbot, window, TYPED, [Span(doc_id, 0, 40)])
    assert _stale_words(panel)
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS):
        panel.ask.click()
    assert not _stale_words(panel)


def test_a_new_lab_run_shows_its_own_questions_at_once(qtbot, make_window, hash_ws, tmp_path):
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.set_checked(["plain"])
    view.limit.setValue(2)
    run_lab(qtbot, view)
    assert view.questions.rowCount() == 2
    view.limit.setValue(3)
    run_lab(qtbot, view)
    shown = sorted(view.questions.item(i, 1).text() for i in range(view.questions.rowCount()))
    assert shown == sorted(r.question for r in view.results[0].rows) and len(shown) == 3


def test_a_drill_down_after_a_run_on_part_of_a_set_scores_colours_and_shows_the_reference(qtbot, make_window,
                                                                                         hash_ws, tmp_path):
    from workbench.core.evaluate.datasets import load_question_set

    root = sample_set(tmp_path)
    qset = load_question_set(root)
    first = qset.questions[0].corpus_id
    limit = next(i for i, q in enumerate(qset.questions) if q.corpus_id != first)  # one corpus of several
    assert len({q.corpus_id for q in qset.questions}) > 1 and limit >= 2
    window = make_window(hash_ws)
    window.resize(1366, 768)
    view = window.eval_view
    assert view.load_question_set(root)
    view.set_checked(["plain", "neighbours"])
    view.limit.setValue(limit)
    run_lab(qtbot, view)
    compare, pane = window.compare, window.compare.doc_pane

    def open_row(row: int) -> None:
        item = view.questions.item(row, 1)
        question = item.text()
        with qtbot.waitSignals([compare.a.resultShown, compare.b.resultShown], timeout=WAIT_MS):
            view.questions.itemActivated.emit(item)
        qtbot.waitUntil(lambda: all(_current(window, s) for s in "AB"), timeout=WAIT_MS)
        assert window.model.question == question

    open_row(0)
    bar = compare.b.results.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    bar.setValue(bar.maximum())  # the researcher scrolled B down to its last passage
    open_row(1)
    reference = window.model.reference
    assert reference, "the question's reference spans are found though other corpora are not indexed"
    for side in (compare.a, compare.b):
        assert side.metrics.isVisible() and side.metrics.text().startswith("recall"), side.metrics.text()
        assert side.results.rendered("evidence") or side.results.rendered("noise")
    assert compare.b.results.verticalScrollBar().value() == 0, "a new question opens at passage #1"
    pane.flush()
    first_ref = min(reference, key=lambda s: (s.doc_id, s.start))
    assert pane.doc_id == first_ref.doc_id
    position = pane.view.pmap.position_of(first_ref.doc_id, first_ref.start)
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(pane.view.document())
    cursor.setPosition(position)
    assert pane.view.viewport().rect().contains(pane.view.cursorRect(cursor).center()), "scrolled to the reference"


@pytest.mark.parametrize("side", ["A", "B"])
def test_a_result_is_drawn_only_with_the_reference_of_its_own_question(qtbot, make_window, hash_sample_ws, side):
    window = make_window(hash_sample_ws)
    doc_id = hash_sample_ws.records.documents()[0]["id"]
    _open_set_question(qtbot, window, QUESTION, [Span(doc_id, 0, 40)])
    panel = window.compare.a if side == "A" else window.compare.b
    assert panel.metrics.isVisible()
    window.question.setText(TYPED)  # typed, not searched yet: the passages are the earlier question's
    assert not panel.metrics.isVisible()
    assert [t for t in shown_texts(panel) if "earlier question" in t and QUESTION in t]
    assert not panel.results.rendered("evidence") and not panel.results.rendered("noise")
