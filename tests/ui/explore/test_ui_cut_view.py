"""*Cuts of A and B* in the document view: both sides' cuts drawn on one text as markers of their own, the
agreement marked, references underlined, and the figures in one line (pytest-qt, offscreen, hashed embedder)."""

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


def test_both_sides_cuts_are_drawn_on_one_text_with_agreement_and_figures(qtbot, guide_ws):
    from workbench.core.ingest.cut_agreement import DEFAULT_WITHIN, chunk_cuts, compare_cuts, diff_line
    from workbench.core.inspect.cut_compare import set_cut_diff
    from workbench.ui.explore.cut_view import rendered_cuts
    from workbench.ui.explore.doc_view import DocumentPane

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
    assert not pane.cut_summary.isVisible()
    pane.set_chunk_map_side("AB")
    assert pane.colour.currentText() == "cuts of A and B" and pane.chunk_map_side() == "AB"
    view = pane.view

    def cuts(result):
        rt = guide_ws.sets.runtime(result.set_id)
        first, end = rt.doc_rows(doc_id)
        return rt, chunk_cuts(list(zip(rt.table.starts[first:end].tolist(), rt.table.ends[first:end].tolist(),
                                       strict=True)))

    (rt_a, a), (rt_b, b) = cuts(ra), cuts(rb)
    assert len(a) > 4 and len(b) > 3 and a != b
    expected = compare_cuts(a, b, [(s.start, s.end) for s in reference], DEFAULT_WITHIN)
    assert expected.pairs, "some cuts agree: the test shows the agreement marks"
    doc = view.document()
    assert rendered_cuts(doc, view.pmap, "cut_a") == a, "A's cuts, each one marker where its chunk begins"
    assert rendered_cuts(doc, view.pmap, "cut_b") == b
    assert sorted(rendered_cuts(doc, view.pmap, "cut_agree")) == sorted([x for p in expected.pairs for x in p])
    between = [Span(doc_id, min(p), max(p)) for p in expected.pairs if p[0] != p[1]]
    assert view.rendered("cut_agree") == merge_spans(between), "the text between two agreeing cuts is marked"
    assert view.rendered("reference") == merge_spans(reference), "references stay underlined"
    assert not view.rendered("chunk_odd") and not view.rendered("only_a") and not view.rendered("hit")
    assert view.toPlainText().count("¦") == len(a) + len(b), "no other boundary marker"
    # the two sides' marks look different: A's raised in A's colour, B's lowered in B's
    from workbench.ui.basics.theme import SIDE_COLOURS, cut_marker_format

    fa, fb = cut_marker_format("cut_a"), cut_marker_format("cut_b")
    assert fa.foreground().color().name() == SIDE_COLOURS["A"] and fb.foreground().color().name() == SIDE_COLOURS["B"]
    assert fa.baselineOffset() > 0 > fb.baselineOffset(), "A's raised above the line, B's lowered below"
    assert pane.legend.kinds == ["cut_a", "cut_b", "cut_agree", "heading", "reference"]
    # the figures in one line: this document's and every shared document's
    summary = pane.cut_summary
    assert summary.isVisible() and not pane.chunk_summary.isVisible()
    whole = set_cut_diff(rt_a, rt_b, references=reference).total
    assert summary.document == expected and summary.whole == whole
    assert summary.text().startswith(f"This document: {diff_line(expected.diff, DEFAULT_WITHIN)}")
    assert "references split by" in summary.text() and "\n" not in summary.text()
    pane.set_chunk_map_side("A")
    assert not summary.isVisible() and pane.chunk_summary.isVisible() and view.rendered("chunk_odd")
    assert not rendered_cuts(view.document(), view.pmap, "cut_a")


def test_one_side_offers_no_cuts_of_a_and_b(qtbot, guide_ws):
    from workbench.ui.explore.doc_view import DocumentPane

    result = guide_ws.search(QUESTION, override(Strategy(top_k=1), size=40))
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_results(result, None, [])
    assert "cuts of A and B" not in [pane.colour.itemText(i) for i in range(pane.colour.count())]


def test_export_chunks_from_the_chunk_map(qtbot, guide_ws, tmp_path):
    from workbench.core.inspect.chunk_export import (
        exported_chunks,
        parquet_available,
        read_exported_chunks,
        read_exported_vectors,
    )
    from workbench.ui.explore.doc_view import DocumentPane

    ra = guide_ws.search(QUESTION, override(Strategy(top_k=2), size=32))
    rb = guide_ws.search(QUESTION, override(Strategy(top_k=2), size=48, overlap=12))
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.resize(1300, 420)
    pane.show()
    pane.set_results(ra, rb, [])
    pane.show_doc(ra.passages[0].span.doc_id)
    assert not pane.export_button.isVisible() and pane.export_chunks() is None, "no chunk map, nothing to export"
    pane.set_chunk_map_side("B")
    assert pane.export_button.isVisible()
    dialog = pane.export_chunks()
    qtbot.addWidget(dialog)
    rt_b = guide_ws.sets.runtime(rb.set_id)
    assert dialog.rt is rt_b and f"{len(rt_b)} chunks" in dialog.status.text()
    assert dialog.format.model().item(2).isEnabled() == parquet_available()
    dialog.export()
    assert "Name the file" in dialog.status.text() and dialog.isVisible()
    out = tmp_path / "b.csv"
    dialog.format.setCurrentIndex(1)
    dialog.vectors.setChecked(True)
    dialog.path.setText(str(out))
    assert dialog.export() is not None and not dialog.isVisible()
    assert read_exported_chunks(out) == exported_chunks(rt_b, guide_ws.corpus.document)
    assert read_exported_vectors(out).shape[0] == len(rt_b)
    # an existing file: asked, and kept when the answer is no
    again = pane.export_chunks()
    qtbot.addWidget(again)
    asked = []
    again.ask_replace = lambda _parent, path: asked.append(path) or False
    again.format.setCurrentIndex(1)
    again.path.setText(str(out))
    before = out.read_bytes()
    assert again.export() is None and asked == [str(out)] and "exists" in again.status.text()
    assert out.read_bytes() == before and again.isVisible()
    again.ask_replace = lambda _parent, _path: True
    again.format.setCurrentIndex(0)
    assert again.path.text().endswith("b.jsonl"), "the suffix follows the format"
    again.path.setText(str(out))
    again.format.setCurrentIndex(1)
    assert again.export() is not None and read_exported_chunks(out) == exported_chunks(rt_b, guide_ws.corpus.document)
