"""``workbench questions``: a stored set made, shown, checked, exported and evaluated by name from the command
line; bad input is one line and changes nothing."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli

from workbench.core.evaluate.datasets import load_question_set

TEXT_A = "# Alpha\n\nThe river floods in spring. Farmers plant rice after the flood.\n"
TEXT_B = "# Beta\n\nThe mountain pass closes in winter. Snow blocks the road.\n"


@pytest.fixture
def data(tmp_path, capsys, hash_cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text(TEXT_A, encoding="utf-8")
    (docs / "beta.md").write_text(TEXT_B, encoding="utf-8")
    d = tmp_path / "data"
    assert run_cli(capsys, "index", docs, "--data-dir", d, "--quiet")[0] == 0
    return d


def q(capsys, data, *args):
    return run_cli(capsys, "questions", *args, "--data-dir", data)


def test_a_set_made_shown_checked_exported_and_evaluated_by_name(data, capsys, tmp_path):
    assert q(capsys, data, "new", "mine")[0] == 0
    code, out, _ = q(capsys, data, "add", "mine", "When does the river flood?", "--quote", "The river floods")
    assert code == 0 and "question 1 added" in out
    assert q(capsys, data, "add", "mine", "When does the pass close?", "--ref", "beta.md:8:43",
             "--tag", "seasons")[0] == 0
    code, out, _ = q(capsys, data, "show", "mine")
    assert "2 questions over 2 documents (2 by hand" in out and "look like noise" in out
    code, out, _ = q(capsys, data, "show", "mine", "--json")
    shown = json.loads(out)
    assert shown["questions"][1]["references"][0]["text"] == "The mountain pass closes in winter."
    assert shown["questions"][1]["tags"] == ["seasons"]
    assert q(capsys, data, "check", "mine")[0] == 0
    out_dir = tmp_path / "exported"
    assert q(capsys, data, "export", "mine", "--out", out_dir)[0] == 0
    qset = load_question_set(out_dir)  # Chroma's format, checked on reading: the same spans
    assert [(r.start, r.end, r.content) for x in qset.questions for r in x.references] == [
        (9, 25, "The river floods"), (8, 43, "The mountain pass closes in winter.")]
    assert q(capsys, data, "export", "mine", "--format", "jsonl", "--out", tmp_path / "j")[0] == 0
    lines = (tmp_path / "j" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["provenance"]["origin"] == "hand"
    code, out, err = run_cli(capsys, "eval", "mine", "--data-dir", data, "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out)[0]["questions"] == 2
    code, out, err = run_cli(capsys, "eval", "--rerun", "last", "--data-dir", data, "--json", "--quiet")
    assert code == 0, err  # a stored set is found again by its name
    assert json.loads(out)[0]["questions"] == 2


def test_bad_input_is_one_line_and_changes_nothing(data, capsys):
    q(capsys, data, "new", "mine")
    for args, says in [
        (("add", "mine", "Q?", "--quote", "The "), "appears 2 times"),
        (("add", "mine", "Q?", "--quote", "volcano"), "is not in"),
        (("add", "mine", "Q?", "--ref", "alpha.md:5:9999"), "lies outside"),
        (("add", "mine", "Q?", "--ref", "alpha.md:five:9"), "write DOC:START:END"),
        (("add", "mine", "Q?", "--ref", "nosuch.md:1:5"), "no stored document"),
        (("add", "mine", "Q?"), "give the reference"),
        (("add", "other", "Q?", "--ref", "alpha.md:9:25"), "no question set 'other'"),
        (("new", "mine"), "exists already"),
        (("new", "../up"), "cannot name"),
        (("remove", "mine", "3"), "no questions yet"),
    ]:
        code, out, err = q(capsys, data, *args)
        assert code != 0 and says in err and len(err.strip().splitlines()) == 1, (args, err)
    code, out, _ = q(capsys, data, "show", "mine", "--json")
    assert json.loads(out)["questions"] == []


def test_a_new_set_searches_the_data_folder_unless_told_to_search_only_its_references(data, capsys):
    code, out, _ = q(capsys, data, "new", "wide")
    assert code == 0 and "it searches the 2 document(s) of this data folder" in out
    code, out, _ = q(capsys, data, "new", "narrow", "--searched", "referenced")
    assert code == 0 and "only the documents its references point into" in out
    for name in ("wide", "narrow"):
        q(capsys, data, "add", name, "When does the river flood?", "--quote", "The river floods")
    shown = {name: json.loads(q(capsys, data, "show", name, "--json")[1]) for name in ("wide", "narrow")}
    assert len(shown["wide"]["documents"]) == 2 and len(shown["narrow"]["documents"]) == 1


def test_rename_duplicate_delete_and_check_reports_duplicates(data, capsys):
    q(capsys, data, "new", "a")
    q(capsys, data, "add", "a", "When does the river flood?", "--quote", "The river floods")
    q(capsys, data, "add", "a", "when does the  river flood?", "--quote", "The river floods")
    code, out, _ = q(capsys, data, "check", "a")
    assert code == 3 and "question 2 asks the same as question 1" in out
    assert q(capsys, data, "rename", "a", "b")[0] == 0
    assert q(capsys, data, "duplicate", "b", "c")[0] == 0
    assert q(capsys, data, "remove", "c", "2")[0] == 0
    code, out, _ = q(capsys, data, "delete", "b")
    assert code == 0 and "question set 'b' (2 questions; its 2 documents stay in the data folder) deleted" in out
    assert "workbench remove PATH" in out
    code, out, _ = q(capsys, data, "list", "--json")
    assert [(s["name"], s["questions"]) for s in json.loads(out)] == [("c", 1)]


def test_review_accepts_rejects_and_edits_drafts_one_key_each(data, capsys, monkeypatch, hash_ws):
    import io

    from workbench.core.spans import Span
    from workbench.core.store.question_sets import Provenance
    from workbench.core.workspace import Workspace

    ws = Workspace(data, embedder=hash_ws.embedder)
    ws.questions.create("drafts")
    for text in ("Draft one?", "Draft two?", "Draft three?"):
        ws.questions.add("drafts", text, [Span(1, 9, 25)],
                         provenance=Provenance("drafted", model="m", passage=(1, 0, 60), reviewed=False))
    ws.close()
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nr\ne\nWhat floods in spring?\n"))
    code, out, _ = q(capsys, data, "review", "drafts")
    assert code == 0 and "0 of 3 reviewed" in out and "2 of 2 drafts reviewed" in out
    code, out, _ = q(capsys, data, "show", "drafts", "--json")
    got = [(x["question"], x["provenance"]["reviewed"]) for x in json.loads(out)["questions"]]
    assert got == [("Draft one?", True), ("What floods in spring?", True)]


def test_advise_plans_on_a_stored_set_by_name(data, capsys):
    q(capsys, data, "new", "mine")
    q(capsys, data, "add", "mine", "When does the river flood?", "--quote", "The river floods")
    q(capsys, data, "add", "mine", "When does the pass close?", "--quote", "The mountain pass closes")
    code, out, err = run_cli(capsys, "advise", "mine", "--plan-only", "--time-limit", "60", "--chunkers", "fixed",
                             "--sizes", "64", "--data-dir", data)
    assert code == 0, err
    assert "advice for mine: 1 fit / 1 confirm questions" in out  # one each: both halves hold a question
    code, _, err = run_cli(capsys, "advise", "nosuch", "--plan-only", "--data-dir", data)
    assert code == 1 and "no such question set folder" in err
