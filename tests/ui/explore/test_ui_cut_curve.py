"""The curve of why a semantic chunker cut here, under the chunk map: shown for a semantic side and hidden
for another chunker, its cuts the chunk set's, a click on a boundary scrolls the document there, and a curve
computed for an earlier chunk set or document is never drawn (hashed embedder, offscreen)."""

from __future__ import annotations

import pytest
from guide_corpus import index_guides

from workbench.core.retrieve.strategy.presets import Strategy, override, resolve

pytest_plugins = ["ui_support"]

TOPICS = ["harbour", "glacier", "orchard", "lantern"]
QUESTION = "is the orchard checked daily"


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    return index_guides(hash_ws, tmp_path, ("guide", "atlas"), TOPICS, 8)


def _pane(qtbot, ws, ra, rb):
    from workbench.ui.explore.doc_view import DocumentPane

    pane = DocumentPane(ws)
    qtbot.addWidget(pane)
    pane.resize(1300, 520)
    pane.show()
    pane.set_results(ra, rb)
    return pane


def test_curve_shows_for_a_semantic_side_and_hides_for_another(qtbot, guide_ws):
    semantic = resolve({"chunker": {"name": "semantic", "percentile": 80}, "top_k": 2})
    ra = guide_ws.search(QUESTION, semantic)
    rb = guide_ws.search(QUESTION, override(Strategy(top_k=2), size=32))
    doc_id = ra.passages[0].span.doc_id
    pane = _pane(qtbot, guide_ws, ra, rb)
    pane.show_doc(doc_id)
    curve = pane.cut_curve
    assert not curve.isVisible(), "no chunk map, no curve"
    with qtbot.waitSignal(curve.drawn, timeout=10_000):
        pane.set_chunk_map_side("A")
    assert curve.isVisible() and curve.height() > 100
    why = curve.explanation
    rt = guide_ws.sets.runtime(ra.set_id)
    stored = [(rt.span(r).start, rt.span(r).end) for r in range(*rt.doc_rows(doc_id))]
    assert list(why.cuts) == stored, "the curve's cuts are the chunk set's"
    assert why.threshold is not None and len(why.similarity) == len(why.units) - 1
    assert "Why semantic cut here" in curve.title.text()
    tip = curve._tip(0, 0, 0)
    first, second = why.units[0], why.units[1]
    text = guide_ws.corpus.doc_text(doc_id)
    assert f"similarity {why.similarity[0]:.3f}" in tip
    assert " ".join(text[first[0]:first[1]].split())[-40:] in tip and text[second[0]:second[1]][:30] in tip
    pane.set_chunk_map_side("B")
    assert not curve.isVisible() and curve.key is None, "a fixed-size chunker has no curve: hidden, not empty"
    pane.set_chunk_map_side(None)
    assert not curve.isVisible()


def test_clicking_a_boundary_scrolls_the_document_there(qtbot, guide_ws):
    from PySide6.QtCore import Qt

    semantic = resolve({"chunker": {"name": "semantic", "percentile": 60}, "top_k": 2})
    ra = guide_ws.search(QUESTION, semantic)
    doc_id = ra.passages[0].span.doc_id
    pane = _pane(qtbot, guide_ws, ra, None)
    pane.show_doc(doc_id)
    curve = pane.cut_curve
    with qtbot.waitSignal(curve.drawn, timeout=10_000):
        pane.set_chunk_map_side("A")
    why = curve.explanation
    i = why.cut_indices()[-1]
    pane.view.verticalScrollBar().setValue(0)
    with qtbot.waitSignal(curve.boundaryClicked, timeout=2_000) as clicked:
        qtbot.mouseClick(curve.plot.viewport(), Qt.MouseButton.LeftButton,
                         pos=curve.point_position(i).toPoint())
    assert clicked.args == [doc_id, why.boundaries[i]]
    assert pane.view.verticalScrollBar().value() > 0, "the view scrolled to the cut"


def test_a_curve_of_an_earlier_set_is_never_drawn(qtbot, guide_ws):
    first = resolve({"chunker": {"name": "semantic", "percentile": 80}, "top_k": 2})
    second = resolve({"chunker": {"name": "semantic", "percentile": 50}, "top_k": 2})
    ra, rb = guide_ws.search(QUESTION, first), guide_ws.search(QUESTION, second)
    doc_id = ra.passages[0].span.doc_id
    pane = _pane(qtbot, guide_ws, ra, None)
    pane.show_doc(doc_id)
    curve = pane.cut_curve
    old = guide_ws.sets.explain_cuts(ra.strategy.chunk, guide_ws.corpus.document(doc_id))
    with qtbot.waitSignal(curve.drawn, timeout=10_000):
        pane.set_chunk_map_side("A")
    with qtbot.waitSignal(curve.drawn, timeout=10_000):
        pane.set_results(rb, None)  # the side's chunk set changed: the curve follows
        pane.flush()
    assert curve.key == (rb.set_id, doc_id)
    new = curve.explanation
    assert new.threshold != old.threshold
    curve._explained((ra.set_id, doc_id), doc_id, guide_ws.corpus.doc_text(doc_id), old)  # a late answer
    assert curve.explanation is new, "the earlier set's curve is dropped"
