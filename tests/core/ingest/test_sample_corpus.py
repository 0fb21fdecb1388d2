"""The bundled sample corpus and its question set: long enough that windows matter, references exact."""

from pathlib import Path

import pytest
from conftest import SAMPLE
from pdfgen import make_pdf
from sample_pdf import PAGES

from workbench.core.evaluate.bundled import bundled_path
from workbench.core.evaluate.datasets import corpus_documents, load_question_set
from workbench.core.evaluate.metrics import span_scores
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.documents import load_file
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import PRESETS, override

SHORT_ON_PURPOSE = {"transit-prices.md"}  # a one-screen price list: the heading-path tests rank its sections


def test_sample_pdf_is_written_from_its_source_lines(tmp_path):
    assert make_pdf(PAGES, tmp_path / "g.pdf").read_bytes() == (SAMPLE / "greenhouse-sensors.pdf").read_bytes()


def test_question_set_corpora_are_byte_identical_to_the_sample_files():
    corpora = sorted((bundled_path("sample") / "corpora").glob("*.md"))
    assert corpora
    by_stem = {p.stem: p for p in SAMPLE.iterdir()}
    for corpus in corpora:
        assert corpus.stem in by_stem, f"{corpus.name} has no document in resources/sample"
        assert corpus.read_bytes() == by_stem[corpus.stem].read_bytes(), f"{corpus.name} drifted from the sample"


def test_every_sample_document_spans_several_default_chunks(counter):
    for path in sorted(SAMPLE.iterdir()):
        doc = load_file(path).document
        pieces = chunk_document(doc.text, doc.headings, ChunkConfig(), counter)
        if path.name in SHORT_ON_PURPOSE:
            assert len(pieces) < 8
        else:
            assert len(pieces) >= 8, f"{path.name}: {len(pieces)} chunks of {ChunkConfig().size} tokens"


def test_sample_question_set_loads_and_maps_onto_the_indexed_sample(hash_sample_ws):
    qset = load_question_set("sample")
    assert not qset.mismatches and qset.name == "sample"
    uncovered = [q for q in qset.questions if not q.covered]
    assert len(uncovered) == 2 and len(qset.questions) >= 12
    doc_ids = corpus_documents(hash_sample_ws, qset)
    assert set(doc_ids) == set(qset.needed_corpora())
    paths = {d["id"]: Path(d["path"]) for d in hash_sample_ws.store.documents.rows()}
    for cid, doc_id in doc_ids.items():
        assert paths[doc_id].parent == SAMPLE and paths[doc_id].stem == cid
        text = hash_sample_ws.corpus.doc_text(doc_id)
        for q in qset.questions:
            assert all(text[r.start:r.end] == r.content for r in q.references if r.corpus_id == cid)


@pytest.fixture
def suggested(sample_ws):
    """The welcome's suggested question (the set's first) and its references as stored spans (on the real
    model: the sample corpus is written so that its ranking shows what windows add)."""
    qset = load_question_set("sample")
    first = qset.questions[0]
    return first.question, first.spans(corpus_documents(sample_ws, qset))


def test_window_brings_the_answer_of_the_suggested_question(sample_ws, suggested):
    question, references = suggested
    expanded = PRESETS["neighbours"]  # the GUI's default side A
    hits_only = override(expanded, window=0)  # the same chunks with the window slider at 0
    wide = sample_ws.search(question, expanded)
    narrow = sample_ws.search(question, hits_only)
    wide_recall = span_scores(wide.spans(), references)[0]
    narrow_recall = span_scores(narrow.spans(), references)[0]
    assert wide_recall > narrow_recall, (wide_recall, narrow_recall)
    assert wide.context.tokens > narrow.context.tokens
    top = wide.passages[0]
    doc_length = len(sample_ws.corpus.doc_text(top.span.doc_id))
    assert top.span.length < doc_length, "the window is not the whole document"
    assert any(top.span.length > h.length for h in top.hit_spans), "the window adds text around the hit"


def test_suggested_question_differs_between_the_default_sides(sample_ws, suggested):
    question, references = suggested
    side_a = sample_ws.search(question, PRESETS["neighbours"])
    side_b = sample_ws.search(question, PRESETS["plain"])
    a, b = span_scores(side_a.spans(), references), span_scores(side_b.spans(), references)
    assert a[0] >= b[0], "side A's windows cover at least what side B's bigger chunks cover"
    assert side_a.spans() != side_b.spans() and a[2] != b[2], "the two sides show different text and IoU"
