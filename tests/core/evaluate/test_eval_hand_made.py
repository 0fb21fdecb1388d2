"""``workbench eval`` over a hand-made chunking (``edited:NAME``): each row is named by the chunking it ran, never
by the preset it started from alone."""

import json

import pytest
from cli_support import run_cli
from eval_support import sample_questions

from workbench.core.evaluate.datasets import save_question_set


@pytest.fixture
def hand_made(tmp_path, capsys, hash_cli):
    """(question set folder, data folder) where the hand-made chunking ``h`` splits one of the set's documents."""
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    data = tmp_path / "data"
    assert run_cli(capsys, "index", tmp_path / "qs" / "corpora", "--data-dir", data)[0] == 0
    first = sorted((tmp_path / "qs" / "corpora").glob("*.md"))[0].name
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", f"{first}:50", "--data-dir", data)
    assert code == 0, err
    return tmp_path / "qs", data


def test_an_eval_row_of_a_hand_made_chunking_names_it(capsys, hand_made):
    dataset, data = hand_made
    code, out, err = run_cli(capsys, "eval", dataset, "--chunker", "edited:h", "--data-dir", data, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["strategy"], r["key"]) for r in rows] == [("plain · edited:h", "plain · edited:h")]
    assert "edited:h" in rows[0]["description"]
    code, out, err = run_cli(capsys, "eval", dataset, "--chunker", "edited:h", "--data-dir", data)
    assert code == 0 and "plain · edited:h" in out, err  # the table's row too


def test_a_grid_over_chunkers_names_the_hand_made_one(capsys, hand_made):
    dataset, data = hand_made
    code, out, err = run_cli(capsys, "eval", dataset, "--grid", "chunker=fixed,edited:h", "--data-dir", data,
                             "--json")
    assert code == 0, err
    assert [(r["key"], r["chunker"]) for r in json.loads(out)] == [("plain chunker=fixed", "fixed"),
                                                                     ("plain chunker=edited:h", "edited:h")]
