"""The embedding-space tab: the side's current chunk set in 2-D with the question and the hits, a click on a
point shows that chunk, a rectangle lists the chunks inside it, a sample beyond the limit says so, and a
projection made for an earlier chunk set or question is never drawn (hashed embedder, offscreen)."""

from __future__ import annotations

import numpy as np
import pytest
from guide_corpus import index_guides

from workbench.core.retrieve.strategy.presets import Strategy, override

pytest_plugins = ["ui_support"]

TOPICS = ["harbour", "glacier", "orchard", "lantern"]
QUESTION = "is the orchard checked daily"


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    return index_guides(hash_ws, tmp_path, ("guide", "atlas", "manual"), TOPICS, 10)


def _view(qtbot, ws, strategy_a, strategy_b=None):
    from workbench.ui.explore.embedding_space import EmbeddingSpaceView
    from workbench.ui.model import WorkbenchModel

    model = WorkbenchModel(strategy_a, strategy_b or strategy_a)
    model.set_question(QUESTION)
    view = EmbeddingSpaceView(ws, model)
    qtbot.addWidget(view)
    view.resize(1200, 360)
    return model, view


def test_the_sides_chunk_set_is_drawn_with_question_and_hits_and_a_click_shows_a_chunk(qtbot, guide_ws):
    from PySide6.QtCore import Qt

    strategy = override(Strategy(top_k=3), size=32)
    model, view = _view(qtbot, guide_ws, strategy)
    view.show()
    assert "No current result for A" in view.status.text(), "nothing searched: said, not an empty plot"
    result = guide_ws.search(QUESTION, strategy)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("A", result)
    rt = guide_ws.sets.runtime(result.set_id)
    data = view.data
    assert data.key[:3] == ("A", result.set_id, QUESTION)
    assert len(data.projection.rows) == len(rt) and data.projection.query is not None
    shown = {c for p in result.passages for c in p.hit_chunk_ids}  # the hits A's passages show (issue 50)
    assert data.hits == {"A": sorted({h.row for h in result.hits if h.chunk_id in shown})}
    assert f"all {len(rt):,} chunks shown" in view.status.text() and QUESTION in view.status.text()
    assert "the question" in view.legend.text() and f"A&#x27;s hits ({len(data.hits['A'])})" in view.legend.text()
    assert "guide" in view.legend.text().lower()
    p = data.projection.points
    gaps = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)) + np.eye(len(p)) * 1e9
    i = int(np.argmax(gaps.min(axis=1)))  # the point farthest from any other (the guides repeat their text)
    with qtbot.waitSignal(view.chunkActivated, timeout=2_000) as clicked:
        qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=view.point_position(i).toPoint())
    row = int(data.projection.rows[i])
    assert clicked.args[0] == rt.span(row), "the clicked point's chunk"


def test_a_rectangle_lists_the_chunks_inside_it(qtbot, guide_ws):
    from PySide6.QtCore import QRectF

    strategy = override(Strategy(top_k=3), size=32)
    model, view = _view(qtbot, guide_ws, strategy)
    view.show()
    result = guide_ws.search(QUESTION, strategy)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("A", result)
    p = view.data.projection.points
    rect = QRectF(float(np.median(p[:, 0])), float(p[:, 1].min()), float(p[:, 0].max() - np.median(p[:, 0])),
                  float(p[:, 1].max() - p[:, 1].min()))
    spans = view.select_rect(rect)
    rt = guide_ws.sets.runtime(result.set_id)
    expected = [rt.span(int(r)) for r, (x, _y) in zip(view.data.projection.rows, p, strict=True)
                if x >= rect.left()]
    assert spans == expected and view.listed.count() == len(expected) > 0


def test_a_sample_beyond_the_limit_says_so_and_keeps_the_hits(qtbot, guide_ws):
    strategy = override(Strategy(top_k=3), size=32)
    model, view = _view(qtbot, guide_ws, strategy)
    view.limit = 12
    view.show()
    result = guide_ws.search(QUESTION, strategy)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("A", result)
    total = len(guide_ws.sets.runtime(result.set_id))
    assert total > 12
    assert f"12 of {total:,} chunks shown, sampled" in view.status.text()
    assert {h.row for h in result.hits} <= set(view.data.projection.rows.tolist())


def test_a_projection_of_an_earlier_set_or_question_is_never_drawn(qtbot, guide_ws):
    first = override(Strategy(top_k=3), size=32)
    second = override(Strategy(top_k=3), size=64)
    model, view = _view(qtbot, guide_ws, first)
    view.show()
    old = guide_ws.search(QUESTION, first)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("A", old)
    stale = view.data
    model.set_strategy("A", second)  # the side's chunk set changes: the old points go at once
    assert view.data is None and view.key is None and "No current result for A" in view.status.text()
    new = guide_ws.search(QUESTION, second)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("A", new)
    drawn = view.data
    assert drawn.key[1] == new.set_id != stale.key[1]
    view._projected(stale)  # a late answer for the earlier set
    assert view.data is drawn, "dropped"
    model.set_question("another question entirely")
    assert view.data is None, "a new question: the points of the old one go"
    assert "No current result" in view.status.text()


def test_b_is_shown_with_both_sides_hits_when_they_search_one_set(qtbot, guide_ws):
    a = override(Strategy(top_k=2), size=32)
    b = override(Strategy(top_k=4), size=32)
    model, view = _view(qtbot, guide_ws, a, b)
    model.set_side_by_side(True)
    view.side.setCurrentText("B")
    view.show()
    ra, rb = guide_ws.search(QUESTION, a), guide_ws.search(QUESTION, b)
    model.set_result("A", ra)
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        model.set_result("B", rb)
    assert view.data.key[0] == "B" and set(view.data.hits) == {"A", "B"}
    shown = {c for p in rb.passages for c in p.hit_chunk_ids}
    assert view.data.hits["B"] == sorted({h.row for h in rb.hits if h.chunk_id in shown})
    model.set_side_by_side(False)
    assert view.side.currentText() == "A" and view.key[0] == "A", "B hidden: its space is not offered"


def test_a_clicked_chunk_opens_in_the_document_tab_selected(qtbot, guide_ws):
    from workbench.ui.explore.compare_view import CompareView
    from workbench.ui.jobs.workers import JobRunner
    from workbench.ui.model import WorkbenchModel

    strategy = override(Strategy(top_k=3), size=32)
    model = WorkbenchModel(strategy, strategy)
    store_jobs, search_jobs = JobRunner(1), JobRunner(1)
    compare = CompareView(guide_ws, model, store_jobs, search_jobs)
    qtbot.addWidget(compare)
    compare.resize(1300, 700)
    compare.show()
    model.set_question(QUESTION)
    result = guide_ws.search(QUESTION, strategy)
    model.set_result("A", result)
    compare.bottom_tabs.setCurrentWidget(compare.space)
    qtbot.waitUntil(lambda: compare.space.data is not None, timeout=10_000)
    rt = guide_ws.sets.runtime(result.set_id)
    span = rt.span(len(rt) - 1)  # a chunk of another document than the first passage's, maybe
    compare.space.chunkActivated.emit(span)
    assert compare.bottom_tabs.currentWidget() is compare.doc_pane and compare.doc_pane.doc_id == span.doc_id
    selected = compare.doc_pane.view.textCursor().selectedText().replace("\u00a6", "")
    assert " ".join(selected.split()) == " ".join(guide_ws.corpus.doc_text(span.doc_id)[span.start:span.end].split())
    for runner in (store_jobs, search_jobs):
        runner.shutdown()
