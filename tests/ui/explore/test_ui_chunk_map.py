"""The document view's chunk map: a side's chunks in alternating tints with overlaps marked, the hover card
of each chunk, and the summary beside the text (size histogram, boundary diagnostics of the document and of
the whole chunk set, reference splits)."""

from __future__ import annotations

import pytest
from guide_corpus import index_guides, section_reference

from workbench.core.retrieve.strategy.presets import Strategy, override
from workbench.core.spans import Span, merge_spans

pytest_plugins = ["ui_support"]

TOPICS = ["harbour", "glacier", "orchard", "lantern"]
QUESTION = "is the orchard checked daily"


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    """``hash_ws`` holding two guides of four topics each (no model)."""
    return index_guides(hash_ws, tmp_path, ("guide", "atlas"), TOPICS, 14)


def _chunks(ws, result, doc_id):
    rt = ws.sets.runtime(result.set_id)
    first, end = rt.doc_rows(doc_id)
    return rt, [rt.span(r) for r in range(first, end)]


def _hover_card(view, doc_id: int, offset: int) -> str:
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc_id, offset))
    return view.hover_text(view.cursorRect(cursor).center())


def test_chunk_map_of_each_side_alternates_tints_marks_overlaps_and_summarises(qtbot, guide_ws):
    from workbench.core.ingest.chunk_diagnostics import counts_in_bins
    from workbench.core.inspect.chunk_map import document_diagnostics, set_diagnostics
    from workbench.ui.explore.doc_view import DocumentPane
    from workbench.ui.explore.render import overlap_ranges

    ra = guide_ws.search(QUESTION, override(Strategy(top_k=2), size=32))
    rb = guide_ws.search(QUESTION, override(Strategy(top_k=2), size=48, overlap=12))
    doc_id = ra.passages[0].span.doc_id
    reference = section_reference(guide_ws, doc_id, "## Orchard", 600)
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.resize(1300, 420)
    pane.show()
    pane.set_results(ra, rb, reference)
    pane.show_doc(doc_id)
    entries = [pane.colour.itemText(i) for i in range(pane.colour.count())]
    assert entries[-3:] == ["chunks of A", "chunks of B", "cuts of A and B"] and pane.chunk_map_side() is None
    assert not pane.chunk_summary.isVisible(), "the summary shows with the chunk map only"
    view = pane.view
    for side, result in (("A", ra), ("B", rb)):
        pane.set_chunk_map_side(side)
        assert pane.chunk_map_side() == side and pane.evidence_side() is None
        rt, spans = _chunks(guide_ws, result, doc_id)
        assert view.runtime is rt and len(spans) > 4
        assert view.rendered("chunk_odd") == merge_spans(spans[0::2]), f"chunks 1, 3, 5 … of {side}"
        assert view.rendered("chunk_even") == merge_spans(spans[1::2]), f"chunks 2, 4, 6 … of {side}"
        overlaps = [Span(doc_id, a, b) for a, b in overlap_ranges(spans)]
        assert view.rendered("chunk_overlap") == merge_spans(overlaps)
        assert bool(overlaps) == (side == "B"), "overlap 12 on B only"
        assert not view.rendered("only_a") and not view.rendered("hit")
        assert pane.legend.kinds[:3] == ["chunk_odd", "chunk_even", "chunk_overlap"]
        third = spans[2]
        card = _hover_card(view, doc_id, (third.start + third.end) // 2)
        assert f"Chunk 3 of {len(spans)}" in card and f"{int(rt.table.tokens[rt.doc_rows(doc_id)[0] + 2])} tokens" \
            in card
        shown = card.split("Shown in the results")[1].split("<td")[2]
        assert "[" not in shown.split(">", 1)[1][:3], "the results show no [file.md] before a chunk's text"
        assert card.count(" tokens ·") == 1 and "chunking: " in card, "the chunk's length and the set's size apart"
        # the summary beside the text: the numbers of this document and of the whole set
        summary = pane.chunk_summary
        assert summary.isVisible() and summary.width() <= 260
        whole = set_diagnostics(rt, guide_ws.corpus.document, reference)
        doc = document_diagnostics(rt, doc_id, guide_ws.corpus.document(doc_id), reference)
        assert summary.whole == whole and summary.document == doc
        assert whole.chunks == len(rt) and doc.chunks == len(spans) and whole.references == 1
        assert summary.histogram.set_counts == whole.histogram.counts
        assert summary.histogram.doc_counts == counts_in_bins(rt.table.tokens[rt.doc_rows(doc_id)[0]:
                                                                             rt.doc_rows(doc_id)[1]].tolist(),
                                                             whole.histogram.edges)
        table = summary.table.text()
        assert f"<td align='right'>{doc.chunks}</td><td align='right'>{whole.chunks}</td>" in table
        assert "references split" in table and f"Chunk map of {side}" in summary.title.text()
        assert (f"mid-sentence ends: {doc.mid_sentence} of {doc.chunks} chunks here, {whole.mid_sentence} of "
                f"{whole.chunks} in the set") in summary.table.toolTip()
        assert f"references split: {doc.split_references} of 1 reference spans here" in summary.table.toolTip()
    pane.set_chunk_map_side(None)
    assert view.rendered("only_b") and not view.rendered("chunk_odd") and not pane.chunk_summary.isVisible()


def test_one_result_without_reference_offers_the_chunk_map_of_a(qtbot, guide_ws):
    from workbench.ui.explore.doc_view import DocumentPane

    result = guide_ws.search(QUESTION, override(Strategy(top_k=1), size=40))
    doc_id = result.passages[0].span.doc_id
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_results(result, None, [])
    pane.show_doc(doc_id)
    assert [pane.colour.itemText(i) for i in range(pane.colour.count())] == ["returned text", "chunks of A"]
    assert pane.colour.isVisibleTo(pane) and pane.view.rendered("window")
    pane.set_chunk_map_side("A")
    _rt, spans = _chunks(guide_ws, result, doc_id)
    assert pane.view.rendered("chunk_odd") == merge_spans(spans[0::2]) and not pane.view.rendered("chunk_overlap")
    assert "references split" not in pane.chunk_summary.table.text(), "no reference spans: no split share"
    assert "reference" not in pane.legend.kinds
