"""Side by side: A and B on the same question, the summary line, the A-only / B-only / both colouring of
the document view, and evaluation questions with reference spans (drawn and scored per side)."""

from __future__ import annotations

import pytest
from ui_support import QUESTION, WAIT_MS, search, wait_settled

from workbench.core.evaluate.metrics import span_scores
from workbench.core.spans import Span, intersect_spans, merge_spans, overlap_length, subtract_spans

pytest_plugins = ["ui_support"]


def _in_doc(spans, doc_id):
    return [s for s in spans if s.doc_id == doc_id]


def test_side_by_side_summary_and_diff_colouring(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    window.side_by_side.click()
    assert window.compare.b.isVisible()
    ra, rb = search(qtbot, window, sides=("a", "b"))
    assert ra.strategy != rb.strategy and ra.question == rb.question == QUESTION
    a_spans, b_spans = ra.spans(), rb.spans()
    shared = overlap_length(a_spans, b_spans)
    summary = window.compare.summary.text().replace(",", "")
    assert f"shared text: {shared} of" in summary
    assert f"A: {len(ra.passages)} passage" in summary and f"B: {len(rb.passages)} passage" in summary
    pane = window.compare.doc_pane
    entries = [(pane.picker.itemData(i), pane.picker.itemText(i)) for i in range(pane.picker.count())]
    docs = {d for d, text in entries if text.endswith("passage(s))")}
    assert docs == {s.doc_id for s in a_spans + b_spans}
    rest = {d for d, text in entries if text.endswith("(no passages)")}  # after them: the library's other ones
    assert rest == {int(r["id"]) for r in hash_sample_ws.records.documents()} - docs and rest
    for doc_id in docs:
        pane.picker.setCurrentIndex(pane.picker.findData(doc_id))
        pane.picker.activated.emit(pane.picker.currentIndex())
        a, b = _in_doc(a_spans, doc_id), _in_doc(b_spans, doc_id)
        view = pane.view
        assert view.rendered("only_a") == subtract_spans(a, b)
        assert view.rendered("only_b") == subtract_spans(b, a)
        assert view.rendered("both") == intersect_spans(a, b)
        hits = [s for r in (ra, rb) for p in r.passages for s in p.hit_spans if s.doc_id == doc_id]
        assert view.rendered("hit") == merge_spans(hits)
        runtime = hash_sample_ws.sets.runtime(ra.set_id)
        first, end = runtime.doc_rows(doc_id)
        assert view.document().toPlainText().count("\u00a6") >= end - first - 1, "every chunk boundary marked"
    assert pane.legend.kinds[:3] == ["only_a", "only_b", "both"]


def test_clicking_a_passage_opens_its_document_scrolled_to_it(qtbot, make_window, hash_sample_ws):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextCursor

    window = make_window(hash_sample_ws)
    (result,) = search(qtbot, window)
    view = window.compare.a.results
    passage = result.passages[-1]
    window.compare.split.setSizes([300, 300])
    pos = view.pmap.position_of(passage.span.doc_id, passage.span.start, tag=len(result.passages) - 1)
    cursor = QTextCursor(view.document())
    cursor.setPosition(pos)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    point = view.cursorRect(cursor).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    pane = window.compare.doc_pane
    assert pane.doc_id == passage.span.doc_id
    assert window.compare.bottom_tabs.currentWidget() is pane
    doc_pos = pane.view.pmap.position_of(passage.span.doc_id, passage.span.start)
    cursor = QTextCursor(pane.view.document())
    cursor.setPosition(doc_pos)
    assert pane.view.viewport().rect().contains(pane.view.cursorRect(cursor).center()), "scrolled to it"
    assert pane.view.rendered("window") == merge_spans(_in_doc(result.spans(), passage.span.doc_id))


def test_evaluation_question_draws_and_scores_reference_spans(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    window.side_by_side.click()
    deploy = next(d for d in hash_sample_ws.store.documents.rows() if d["path"].endswith("deploy-guide.md"))
    text = hash_sample_ws.corpus.doc_text(deploy["id"])
    start = text.index("The database schema must be migrated")
    end = text.index("stall halfway.") + len("stall halfway.")
    reference = [Span(deploy["id"], start, end)]
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        window.compare.show_question(QUESTION, [{"doc_path": deploy["path"], "start": start, "end": end}])
    assert window.question.text() == QUESTION
    for side in (window.compare.a, window.compare.b):
        result = side.controller.result
        recall, precision, iou, *_ = span_scores(result.spans(), reference)
        assert side.metrics.isVisible()
        assert side.metrics.text() == f"recall {recall:.2f} · precision {precision:.2f} · IoU {iou:.2f}"
        assert side.results.rendered("reference") == intersect_spans(result.spans(), reference)
    pane = window.compare.doc_pane
    pane.show_doc(deploy["id"])
    assert pane.view.rendered("reference") == reference
    assert "reference" in pane.legend.kinds


def test_evaluation_view_tab_sends_its_questions_to_the_comparison(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    if window.eval_view is None:
        pytest.skip("workbench.ui.evaluate.eval_view is not installed")
    doc_id = hash_sample_ws.store.documents.rows()[0]["id"]
    with qtbot.waitSignal(window.compare.a.resultShown, timeout=WAIT_MS):
        window.eval_view.questionActivated.emit(QUESTION, [Span(doc_id, 0, 40)])
    assert window.question.text() == QUESTION
    assert window.compare.reference == [Span(doc_id, 0, 40)]


def test_side_b_detail_knobs_reach_the_strategy_it_runs(qtbot, make_window, hash_sample_ws):
    from workbench.core.retrieve.strategy.presets import PRESETS

    window = make_window(hash_sample_ws)
    window.side_by_side.click()
    side = window.compare.b
    search(qtbot, window, sides=("a", "b"))
    side_a = window.compare.a.strategy()
    knobs = side.strategy_panel.details
    steps = side.strategy_panel.steps
    side.set_strategy(PRESETS["token-window"])
    wait_settled(qtbot, side, lambda r: r.strategy.expander.kind == "tokens")
    knobs.edge.setCurrentText("clip")
    clipped = wait_settled(qtbot, side, lambda r: r.strategy.expander.window_edge == "clip")
    assert side.strategy().expander.window_edge == "clip" == clipped.strategy.expander.window_edge
    steps.controls["whole_doc_tokens"].setValue(100_000)
    whole = wait_settled(qtbot, side, lambda r: r.strategy.setting("whole_doc_tokens") == 100_000)
    assert side.strategy().setting("whole_doc_tokens") == 100_000 == whole.strategy.setting("whole_doc_tokens")
    assert all(p.span.start == 0 for p in whole.passages), "small documents come back whole"
    steps.controls["per_doc_cap"].setValue(1)
    capped = wait_settled(qtbot, side, lambda r: r.strategy.setting("per_doc_cap") == 1)
    assert len({p.span.doc_id for p in capped.passages}) == len(capped.passages)
    side.set_strategy(PRESETS["parent-child"])
    wait_settled(qtbot, side, lambda r: r.strategy.expander.kind == "parent")
    knobs.merge.setChecked(True)
    merged = wait_settled(qtbot, side, lambda r: r.strategy.expander.parent_merge)
    assert side.strategy().expander.parent_merge and merged.strategy.expander.parent_merge
    steps.controls["rerank"].setChecked(True)
    steps.controls["rerank_parents"].setChecked(True)
    assert side.strategy().setting("rerank") == "llm" and side.strategy().reranks_parents
    assert window.compare.a.strategy() == side_a, "side A is untouched"
    wait_settled(qtbot, side, lambda r: r.strategy.reranks_parents)  # no search left running at teardown


def test_the_structure_chunker_rechunks_side_b(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    window.side_by_side.click()
    side = window.compare.b
    _, before = search(qtbot, window, sides=("a", "b"))
    assert not before.strategy.chunk.structure_aware
    combo = side.strategy_panel.chunker.combo
    with qtbot.waitSignal(side.controller.buildStarted, timeout=WAIT_MS) as started:
        combo.setCurrentIndex(combo.findData("structure"))
    assert started.args[0].structure_aware and started.args[0].size == before.strategy.chunk.size
    with qtbot.waitSignal(side.resultShown, timeout=WAIT_MS) as done:
        pass
    after = done.args[0]
    assert after.strategy.chunk.structure_aware and side.strategy().chunk.structure_aware
    assert after.set_id != before.set_id, "a new chunk set"


def test_a_side_runs_multi_granularity_search(qtbot, make_window, hash_sample_ws):
    """The preset from the picker: its coarse chunk sets are built, coarse hits join as windows, and the
    budget holds (hashed vectors: plumbing, not ranking)."""
    from workbench.core.retrieve.strategy.presets import PRESETS

    window = make_window(hash_sample_ws)
    side = window.compare.a
    search(qtbot, window, sides=("a",))
    side.strategy_panel.preset.setCurrentText("multi-granularity")
    result = wait_settled(qtbot, side, lambda r: r.strategy.search_config.coarse == ((100, 1), (200, 1)))
    assert side.strategy().to_dict() == PRESETS["multi-granularity"].to_dict()
    assert result.context.tokens <= 1000 and "coarse 100-unit top-1" in result.strategy.describe()
    side.strategy_panel.top_k.setValue(2)  # fewer fine hits: the coarse ones are not all inside them
    result = wait_settled(qtbot, side, lambda r: r.strategy.top_k == 2)
    coarse = [h for h in result.hits if h.cover is not None]
    assert coarse and all(h.cover[0] <= h.row <= h.cover[1] for h in coarse)
