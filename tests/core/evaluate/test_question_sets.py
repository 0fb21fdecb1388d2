"""Question sets stored in the data folder (``ws.questions``): created, renamed, duplicated, deleted, edited;
references checked against the stored text and re-located (or flagged) when a document is indexed again; a stored
set evaluated like a folder."""

from __future__ import annotations

import sqlite3

import pytest

from workbench.core.evaluate.question_set import DatasetError
from workbench.core.evaluate.sweep import SweepConfig, run_sweep
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.spans import Span
from workbench.core.store.question_sets import NEEDS_REVIEW, OK, Provenance

TEXT_A = "# Alpha\n\nThe river floods in spring. Farmers plant rice after the flood.\n\nOther text here.\n"
TEXT_B = "# Beta\n\nThe mountain pass closes in winter. Snow blocks the road for months.\n"


@pytest.fixture
def two_docs(hash_ws, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "alpha.md").write_text(TEXT_A, encoding="utf-8")
    (folder / "beta.md").write_text(TEXT_B, encoding="utf-8")
    hash_ws.add_documents([str(folder / "alpha.md"), str(folder / "beta.md")])
    ids = {r["path"].rsplit("/", 1)[-1]: int(r["id"]) for r in hash_ws.records.documents()}
    return hash_ws, folder, ids["alpha.md"], ids["beta.md"]


def span_of(ws, doc_id, quote):
    text = ws.store.documents.document(doc_id).text
    start = text.index(quote)
    return Span(doc_id, start, start + len(quote))


def test_sets_created_renamed_duplicated_deleted(two_docs):
    ws, _, a, _ = two_docs
    bank = ws.questions
    bank.create("mine")
    bank.add("mine", "When does the river flood?", [span_of(ws, a, "The river floods in spring.")],
             notes="easy", tags=["seasons"])
    with pytest.raises(DatasetError, match="exists already"):
        bank.create("mine")
    with pytest.raises(ValueError, match="cannot name"):
        bank.create("../x")
    bank.rename("mine", "ours")
    copy = bank.duplicate("ours", "copy")
    assert copy.questions == 1 and bank.names() == ["copy", "ours"]
    bank.edit("copy", 1, text="When do rivers flood?")
    assert bank.question("ours", 1).text == "When does the river flood?"  # the copy is its own
    q = bank.question("copy", 1)
    assert q.text == "When do rivers flood?" and q.tags == ("seasons",) and q.notes == "easy"
    bank.delete("copy")
    assert bank.names() == ["ours"]
    with pytest.raises(KeyError, match="stored sets: ours"):
        bank.info("copy")


def test_a_span_outside_or_empty_is_refused_and_nothing_written(two_docs):
    ws, _, a, _ = two_docs
    ws.questions.create("s")
    with pytest.raises(DatasetError, match="outside"):
        ws.questions.add("s", "Q?", [Span(a, 0, 10_000)])
    with pytest.raises(DatasetError, match="empty"):
        ws.questions.add("s", "Q?", [Span(a, 5, 5)])
    with pytest.raises(DatasetError, match="not stored"):
        ws.questions.add("s", "Q?", [Span(999, 0, 1)])
    assert ws.questions.info("s").questions == 0


def test_quote_located_exactly_or_refused_with_candidates(two_docs):
    ws, _, a, b = two_docs
    span = ws.questions.locate("Snow blocks the road", [a, b])
    assert ws.store.documents.document(b).text[span.start:span.end] == "Snow blocks the road"
    with pytest.raises(DatasetError, match="appears 2 times"):
        ws.questions.locate("The ", [a, b])
    with pytest.raises(DatasetError, match="is not in"):
        ws.questions.locate("volcano", [a, b])


def test_reindexed_document_relocates_unchanged_text_and_flags_changed(two_docs):
    ws, folder, a, _ = two_docs
    bank = ws.questions
    bank.create("s")
    bank.add("s", "When does the river flood?", [span_of(ws, a, "The river floods in spring.")])
    bank.add("s", "What do farmers plant?", [span_of(ws, a, "Farmers plant rice after the flood.")])
    # the document gains a paragraph before both spans, and the second sentence is reworded
    (folder / "alpha.md").write_text("# Alpha\n\nA new opening paragraph.\n\n" + TEXT_A[9:].replace(
        "Farmers plant rice", "Farmers sow rice"), encoding="utf-8")
    ws.add_documents([str(folder / "alpha.md")])
    moved, changed = bank.read("s").questions
    text = ws.store.documents.document(a).text
    ref = moved.references[0]
    assert ref.status == OK and text[ref.start:ref.end] == "The river floods in spring." and ref.start > 9
    assert changed.references[0].status == NEEDS_REVIEW and changed.needs_review
    view = bank.question_set("s")
    assert [q.question for q in view.qset.questions] == ["When does the river flood?"]
    assert "1 question(s) left out" in view.left_out[0]


def test_stored_set_evaluates_like_a_folder_and_reviewed_only_leaves_drafts_out(two_docs):
    ws, _, a, b = two_docs
    bank = ws.questions
    bank.create("s")
    bank.add("s", "When does the river flood?", [span_of(ws, a, "The river floods in spring.")])
    bank.add("s", "When does the pass close?", [span_of(ws, b, "The mountain pass closes in winter.")],
             provenance=Provenance("drafted", model="m", passage=(b, 0, 40), reviewed=False))
    view = bank.question_set("s")
    assert view.unreviewed == 1 and len(view.qset.questions) == 2
    assert view.provenance[1]["origin"] == "drafted" and view.provenance[1]["passage"] == [b, 0, 40]
    sweep = run_sweep(ws, view.qset, [SweepConfig("base", resolve(None), "base")])
    assert set(sweep.doc_ids.values()) == {a, b}
    assert len(sweep.results[0].rows) == 2
    only = bank.question_set("s", reviewed_only=True)
    assert [q.question for q in only.qset.questions] == ["When does the river flood?"]
    assert "1 unreviewed draft(s) left out" in only.left_out[0]


def test_a_damaged_row_is_named_and_skipped(two_docs):
    ws, _, a, _ = two_docs
    bank = ws.questions
    bank.create("s")
    bank.add("s", "Q one?", [span_of(ws, a, "The river floods in spring.")])
    bank.add("s", "Q two?", [span_of(ws, a, "Other text here.")])
    conn = sqlite3.connect(ws.db_path)
    conn.execute("UPDATE questions SET reviewed = 'x' WHERE text = 'Q two?'")
    conn.commit()
    conn.close()
    read = bank.read("s")
    assert [q.text for q in read.questions] == ["Q one?"]
    assert "could not be read" in read.skipped[0]


def test_a_bad_set_name_is_one_short_line_whatever_its_length(two_docs):
    from workbench.core.evaluate.stored_question_sets import check_set_name

    ws = two_docs[0]
    for bad in ("a:b", "a/b", "", " x", "x" * 81, "y" * 100_000):
        with pytest.raises(ValueError, match="cannot name a question set") as said:
            ws.questions.create(bad)
        assert len(str(said.value)) < 250 and "\n" not in str(said.value)
    with pytest.raises(ValueError, match="100,000 characters"):
        check_set_name("y" * 100_000)
    assert ws.questions.names() == []
