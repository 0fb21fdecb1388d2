"""Issue #48 item 15: one rule for a question's text at every door. Import, ``questions add``, ``questions edit
--text``, ``questions review`` and ``eval`` refuse the same questions (empty, or longer than a search may be);
``questions check`` names a stored question ``eval`` would refuse, and ``eval`` names it too instead of failing the
whole set without saying which."""

from __future__ import annotations

import io
import json

import pytest
from cli_support import run_cli

from workbench.core.evaluate.question_rule import MAX_QUESTION_CHARS, question_text
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.spans import Span
from workbench.core.store.question_sets import NewQuestion, Provenance

TEXT = "# Alpha\n\nThe river floods in spring. Farmers plant rice after the flood.\n"
LONG = "why " * (MAX_QUESTION_CHARS // 4 + 1)


@pytest.fixture
def data(tmp_path, capsys, hash_cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text(TEXT, encoding="utf-8")
    d = tmp_path / "data"
    assert run_cli(capsys, "index", docs, "--data-dir", d, "--quiet")[0] == 0
    assert run_cli(capsys, "questions", "new", "s", "--data-dir", d)[0] == 0
    assert run_cli(capsys, "questions", "add", "s", "When does the river flood?", "--quote", "The river floods",
                   "--data-dir", d)[0] == 0
    return d


def _questions(capsys, data) -> list[dict[str, object]]:
    code, out, _ = run_cli(capsys, "questions", "show", "s", "--json", "--data-dir", data)
    assert code == 0
    return list(json.loads(out)["questions"])


def test_the_rule():
    assert question_text("  why\n\tnot?  ") == "why not?"
    for bad in ("", " \n ", "x" * (MAX_QUESTION_CHARS + 1)):
        with pytest.raises(DatasetError):
            question_text(bad)


def test_add_and_edit_refuse_what_eval_refuses(data, capsys):
    before = _questions(capsys, data)
    for args in (("add", "s", LONG, "--quote", "Farmers plant rice"), ("add", "s", "   ", "--quote", "Farmers"),
                 ("edit", "s", "1", "--text", "x" * 5000)):
        code, _, err = run_cli(capsys, "questions", *args, "--data-dir", data)
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        assert "the question is" in err, err
    assert _questions(capsys, data) == before


def test_review_refuses_a_too_long_edit_and_keeps_the_draft(data, capsys, monkeypatch, hash_ws):
    from workbench.core.workspace import Workspace

    ws = Workspace(data, embedder=hash_ws.embedder)
    ws.questions.add("s", "Draft?", [Span(1, 9, 25)],
                     provenance=Provenance("drafted", model="m", passage=(1, 0, 60), reviewed=False))
    ws.close()
    monkeypatch.setattr("sys.stdin", io.StringIO("e\n" + "y" * 3_000_000 + "\n"))
    code, out, _ = run_cli(capsys, "questions", "review", "s", "--data-dir", data)
    assert code == 0 and "not changed: the question is 3,000,000 characters long" in out
    assert [(q["question"], q["provenance"]["reviewed"]) for q in _questions(capsys, data)][1] == ("Draft?", False)


def test_an_import_skips_the_questions_eval_would_refuse(tmp_path, capsys, hash_cli):
    rows = tmp_path / "rows.jsonl"
    context = "The sky is blue. Grass is green. Snow is white."
    rows.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "empty", "input": "", "evidences": ["The sky is blue."], "context": context},
        {"id": "long", "input": "w" * 19_999, "evidences": ["Grass is green."], "context": context},
        {"id": "fine", "input": "What colour is snow?", "evidences": ["Snow is white."], "context": context},
    ]), encoding="utf-8")
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "import-questions", "hicbench", rows, "--set", "h", "--data-dir", data, "--json",
                             "--quiet")
    assert code == 0, err
    report = json.loads(out)
    assert report["questions"] == 1
    assert report["skipped"] == {"the question is empty": 1,
                                 f"the question is over {MAX_QUESTION_CHARS:,} characters long": 1}
    assert run_cli(capsys, "questions", "check", "h", "--data-dir", data)[0] == 0
    # nothing but refused questions: nothing imported, and the reason is said
    rows.write_text(json.dumps({"id": "e", "input": " ", "evidences": ["Snow is white."], "context": context}),
                    encoding="utf-8")
    code, _, err = run_cli(capsys, "import-questions", "hicbench", rows, "--set", "h2", "--data-dir", data,
                           "--quiet")
    assert code == 1 and "the question is empty" in err, err


def test_check_and_eval_name_a_stored_question_eval_refuses(data, capsys, hash_ws):
    from workbench.core.workspace import Workspace

    ws = Workspace(data, embedder=hash_ws.embedder)  # a question kept by an older version, past today's doors
    refs = ws.questions.references([Span(1, 9, 25)])
    ws.store.question_sets.add_questions(ws.questions.info("s").id, [NewQuestion("x" * 19_999, refs)])
    ws.close()
    code, out, _ = run_cli(capsys, "questions", "check", "s", "--data-dir", data)
    assert code == 3 and "question 2: the question is 19,999 characters long" in out and "eval refuses it" in out
    code, _, err = run_cli(capsys, "eval", "s", "--data-dir", data, "--quiet")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "question 2 cannot be asked" in err and "questions edit s 2" in err, err
