"""Question sets in Chroma's format: reading, reference checks, mapping to stored documents, writing."""

import csv
import json
import shutil

import pytest
from conftest import CHROMA
from eval_support import SOTU, sample_questions, sotu_set

from workbench.core.evaluate.datasets import (
    DatasetError,
    add_question_from_spans,
    corpus_documents,
    index_corpora,
    load_question_set,
    save_question_set,
)
from workbench.core.spans import Span


def test_chroma_general_set_loads_and_every_reference_matches():
    qs = load_question_set(CHROMA)
    assert len(qs.questions) == 472
    assert sorted(qs.corpora) == ["chatlogs", "finance", "pubmed", SOTU, "wikitexts"]
    assert not qs.mismatches
    text = (CHROMA / "corpora" / f"{SOTU}.md").read_text(encoding="utf-8")
    q = next(q for q in qs.questions if q.corpus_id == SOTU)
    assert q.covered and all(text[r.start : r.end] == r.content for r in q.references)
    sub = qs.subset(limit=10, corpus=SOTU)
    assert len(sub.questions) == 10 and sub.needed_corpora() == [SOTU]
    assert [q.index for q in sub.questions] == [q.index for q in qs.questions if q.corpus_id == SOTU][:10]
    with pytest.raises(DatasetError, match="unknown corpus"):
        qs.subset(corpus="nope")


def _write(root, rows, corpora):
    (root / "corpora").mkdir(parents=True, exist_ok=True)
    for cid, text in corpora.items():
        (root / "corpora" / f"{cid}.md").write_bytes(text.encode("utf-8"))
    with open(root / "questions.csv", "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "references", "corpus_id"])
        for q, refs, cid in rows:
            w.writerow([q, json.dumps(refs), cid])


def test_mismatched_references_are_reported_with_row_and_reference(tmp_path):
    text = "Alpha beta gamma.\nDelta epsilon.\n"
    good = {"content": "beta", "start_index": 6, "end_index": 10}
    bad = {"content": "gamma", "start_index": 12, "end_index": 17}  # off by one: text[12:17] == "amma."
    far = {"content": "x", "start_index": 500, "end_index": 501}
    _write(tmp_path, [("Q one?", [good], "c1"), ("Q two?", [good, bad], "c1"), ("Q three?", [far], "c1")],
           {"c1": text})
    with pytest.raises(DatasetError) as err:
        load_question_set(tmp_path)
    msg = str(err.value)
    assert "2 reference(s) do not match" in msg
    assert "row 3" in msg and "reference 2" in msg and "'amma.'" in msg and "'gamma'" in msg
    assert "row 4" in msg and "out of range" in msg
    lenient = load_question_set(tmp_path, strict=False)
    assert len(lenient.questions) == 3 and len(lenient.mismatches) == 2


def test_reference_corpus_id_overrides_the_row_and_missing_corpora_fail(tmp_path):
    corpora = {"a": "Text of corpus A.", "b": "Corpus B says hello."}
    refs = [{"content": "hello", "start_index": 14, "end_index": 19, "corpus_id": "b"}]
    _write(tmp_path, [("Who says hello?", refs, "a")], corpora)
    qs = load_question_set(tmp_path)
    assert qs.questions[0].references[0].corpus_id == "b" and qs.needed_corpora() == ["a", "b"]
    (tmp_path / "corpora" / "b.md").unlink()
    with pytest.raises(DatasetError, match="corpus 'b' not found"):
        load_question_set(tmp_path)
    with pytest.raises(DatasetError, match="questions.csv is missing"):
        load_question_set(tmp_path / "corpora")


def test_offsets_are_code_points_and_newlines_are_kept(tmp_path, hash_ws):
    # Non-ASCII characters and CRLF newlines: offsets must survive indexing unchanged.
    text = "# Café ☕ notes\r\n\r\nThe naïve résumé costs 3 € — paid in cash.\r\nNext line 🚀 here.\r\n"
    start = text.index("3 €")
    qset = save_question_set(tmp_path / "set", [{"question": "What does the résumé cost?", "corpus_id": "cafe",
                                                 "references": [{"start_index": start, "end_index": start + 3}]}],
                             {"cafe": text})
    assert qset.questions[0].references[0].content == "3 €"
    assert (tmp_path / "set" / "corpora" / "cafe.md").read_bytes() == text.encode("utf-8")
    doc_ids = index_corpora(hash_ws, qset)
    span = qset.questions[0].spans(doc_ids)[0]
    assert hash_ws.corpus.doc_text(span.doc_id)[span.start : span.end] == "3 €"
    assert hash_ws.corpus.doc_text(span.doc_id) == text


def test_save_question_set_round_trip_append_and_guards(tmp_path):
    questions, corpora = sample_questions(["deploy-guide"])
    root = tmp_path / "qs"
    qs = save_question_set(root, questions, corpora)
    assert [q.question for q in qs.questions] == [q["question"] for q in questions]
    for q, written in zip(qs.questions, questions):
        ref = written["references"][0]
        assert (q.references[0].start, q.references[0].end) == (ref["start_index"], ref["end_index"])
    # Append a question from a selection plus an uncovered one; the earlier questions stay.
    more = [{"question": "Is there a cafeteria?", "corpus_id": "deploy-guide", "references": []}]
    qs2 = save_question_set(root, [qs.questions[0], *more], {}, append=True)
    assert len(qs2.questions) == 4 and not qs2.questions[3].covered
    assert qs2.questions[2].references == qs.questions[0].references
    with pytest.raises(DatasetError, match="different text"):
        save_question_set(root, [], {"deploy-guide": "something else"})
    with pytest.raises(DatasetError, match="does not match"):
        save_question_set(tmp_path / "x", [{"question": "q", "corpus_id": "c", "references": [
            {"start_index": 0, "end_index": 3, "content": "abd"}]}], {"c": "abc def"})
    with pytest.raises(DatasetError, match="outside"):
        save_question_set(tmp_path / "y", [{"question": "q", "corpus_id": "c", "references": [
            {"start_index": 5, "end_index": 30}]}], {"c": "abc def"})


def test_corpus_documents_maps_by_path_and_by_content(tmp_path, hash_ws):
    root = sotu_set(tmp_path, limit=3)
    qset = load_question_set(root)
    with pytest.raises(DatasetError, match="not indexed"):
        corpus_documents(hash_ws, qset)
    doc_ids = index_corpora(hash_ws, qset)
    doc = next(d for d in hash_ws.store.documents.rows() if d["id"] == doc_ids[SOTU])
    assert doc["path"] == str((root / "corpora" / f"{SOTU}.md").resolve())
    for q in qset.questions:
        for ref, span in zip(q.references, q.spans(doc_ids)):
            assert span == Span(doc_ids[SOTU], ref.start, ref.end)
            assert hash_ws.corpus.doc_text(span.doc_id)[span.start : span.end] == ref.content
    copy = tmp_path / "moved"
    shutil.copytree(root, copy)
    assert corpus_documents(hash_ws, load_question_set(copy)) == doc_ids  # same content, other path


def test_question_from_a_selection_in_stored_documents(tmp_path, hash_sample_ws):
    docs = {d["path"].rsplit("/", 1)[-1]: d["id"] for d in hash_sample_ws.store.documents.rows()}
    html = docs["backup-howto.html"]  # stored text is extracted from HTML, so it differs from the file
    text = hash_sample_ws.corpus.doc_text(html)
    start = text.index("backup")
    sel = [Span(html, start, start + 40), Span(docs["lab-safety.md"], 0, 20)]
    qs = add_question_from_spans(tmp_path / "picked", hash_sample_ws, "Where are backups kept?", sel)
    add_question_from_spans(tmp_path / "picked", hash_sample_ws, "Unanswerable?", [])
    qs = load_question_set(tmp_path / "picked")
    assert [q.question for q in qs.questions] == ["Where are backups kept?", "Unanswerable?"]
    refs = qs.questions[0].references
    assert [r.corpus_id for r in refs] == ["backup-howto", "lab-safety"]
    assert refs[0].content == text[start : start + 40] and not qs.questions[1].covered


# ----- issue #29 item 6f: a BOM, fractional offsets, duplicate questions -------------------------------------
def test_a_questions_file_with_a_utf8_bom_is_read(tmp_path):
    text = "Alpha beta gamma.\n"
    _write(tmp_path, [("Q one?", [{"content": "beta", "start_index": 6, "end_index": 10}], "c1")], {"c1": text})
    qfile = tmp_path / "questions.csv"
    qfile.write_bytes(b"\xef\xbb\xbf" + qfile.read_bytes())  # as Excel saves "CSV UTF-8"
    qs = load_question_set(tmp_path)
    assert [q.question for q in qs.questions] == ["Q one?"] and qs.questions[0].references[0].content == "beta"


@pytest.mark.parametrize("start", [6.5, "6.5", True, "six"])
def test_offsets_that_are_not_whole_numbers_are_refused_naming_the_row(tmp_path, start):
    text = "Alpha beta gamma.\n"
    good = {"content": "beta", "start_index": 6, "end_index": 10}
    _write(tmp_path, [("Q one?", [good], "c1"), ("Q two?", [good, {"content": "beta", "start_index": start,
                                                                     "end_index": 10}], "c1")], {"c1": text})
    with pytest.raises(DatasetError, match=r"row 3, reference 2: start_index must be a whole number"):
        load_question_set(tmp_path)


def test_whole_offsets_written_as_floats_are_accepted(tmp_path):
    _write(tmp_path, [("Q?", [{"content": "beta", "start_index": 6.0, "end_index": 10.0}], "c1")],
           {"c1": "Alpha beta gamma.\n"})
    ref = load_question_set(tmp_path).questions[0].references[0]
    assert (ref.start, ref.end) == (6, 10) and isinstance(ref.start, int)


def test_duplicate_questions_are_reported_by_row(tmp_path):
    text = "Alpha beta gamma.\n"
    ref = [{"content": "beta", "start_index": 6, "end_index": 10}]
    _write(tmp_path, [("What is beta?", ref, "c1"), ("Other?", ref, "c1"), ("what is  BETA?", ref, "c1"),
                      ("What is beta?", ref, "c2")], {"c1": text, "c2": text})
    qs = load_question_set(tmp_path)
    assert len(qs.questions) == 4, "duplicates are kept (a warning, not a refusal)"
    note = qs.duplicate_note()
    assert "rows 2 and 4" in note and "What is beta?" in note and "row 5" not in note
    assert qs.subset(limit=2).duplicate_note() == ""


def test_eval_warns_about_duplicate_questions_once_and_records_it(capsys, tmp_path, hash_cli):
    from workbench.cli import main

    questions, corpora = sample_questions(["transit-prices"])
    save_question_set(tmp_path / "qs", questions + questions, corpora)
    data = tmp_path / "data"
    assert main(["eval", str(tmp_path / "qs"), "--data-dir", str(data), "--quiet"]) == 0
    _, err = capsys.readouterr()
    warned = [line for line in err.splitlines() if "ask the same question" in line]
    assert len(warned) == 1 and "rows 2 and 3" in warned[0], err
    assert main(["runs", "--show", "last", "--data-dir", str(data), "--json"]) == 0
    from workbench.core.evaluate.records import find_run
    from workbench.core.workspace import Workspace

    capsys.readouterr()
    ws = Workspace(data)
    try:
        assert any("rows 2 and 3" in w for w in find_run(ws, "last").summary["warnings"])
    finally:
        ws.close()


def test_a_corpus_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch, capsys):
    """One 1.5 MB corpus and a 1 MB limit: refused from its size alone (the file is never opened), by
    ``workbench eval --max-file-mb`` too; under a larger limit it loads and is indexed with that limit."""
    import os

    from workbench.cli import main

    text = "word " * 300_000
    _write(tmp_path, [("Which word?", [{"content": "word", "start_index": 0, "end_index": 4}], "big")], {"big": text})
    real_open = os.open

    def no_reading(path, *args, **kwargs):
        assert not str(path).endswith("big.md"), "the corpus was opened before its size was checked"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_reading)
    with pytest.raises(DatasetError, match=r"corpora/big.md: too large \(1.5 MB; the limit is 1 MB.*--max-file-mb"):
        load_question_set(tmp_path, max_file_mb=1)
    assert main(["eval", str(tmp_path), "--max-file-mb", "1", "--data-dir", str(tmp_path / "data")]) != 0
    assert "too large (1.5 MB; the limit is 1 MB" in capsys.readouterr().err
    monkeypatch.setattr(os, "open", real_open)
    qset = load_question_set(tmp_path, max_file_mb=2).subset(limit=1)
    assert qset.max_file_mb == 2

    class Records:
        def documents(self):
            return []

    class Workspace:  # what index_corpora asks of a workspace, recording the size limit it indexes with
        limits: list[float] = []
        records = Records()

        def add_documents(self, paths, progress, cancel, max_file_mb=None):
            self.limits.append(max_file_mb)
            raise DatasetError("stop here")

    with pytest.raises(DatasetError, match="stop here"):
        index_corpora(Workspace(), qset)
    assert Workspace.limits == [2]
