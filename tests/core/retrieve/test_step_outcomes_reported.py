"""Issue #29 item 5, "say what happened": a strategy step that cannot run is never labelled as done, and
passages dropped as duplicate text are reported.

Plumbing only: the hashed embedder stands in for MiniLM (``hash_cli``, ``hash_ws``)."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli
from eval_support import sample_questions

from workbench.core.evaluate.datasets import load_question_set, save_question_set
from workbench.core.evaluate.records import list_runs, load_run, save_run
from workbench.core.evaluate.sweep import expand_grid, run_sweep
from workbench.core.llm.base import BackendBase


@pytest.fixture
def dataset(tmp_path):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    return tmp_path / "qs"


class BrokenLLM(BackendBase):
    """A generative backend whose every call fails (a server that went away mid-run)."""

    name = "broken"
    label = "broken test LLM"
    model = "broken"

    def complete(self, messages, max_tokens=256, temperature=0.0, cancel=None):
        raise RuntimeError("connection reset")


def _extractive():
    from workbench.core.llm.no_model import ExtractiveBackend

    return ExtractiveBackend()


# ----- a step that cannot run at all: refused before any work ----------------------------------------------
@pytest.mark.parametrize("strategy", ["llm-rerank", "summary-to-detail"])
def test_eval_of_an_llm_step_without_an_llm_is_refused_before_any_work(capsys, tmp_path, dataset, hash_cli,
                                                                       strategy):
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--strategy", strategy,
                             "--llm", "extractive", "--data-dir", data, "--quiet")
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench: error:"), err
    assert strategy in err and "ollama serve" in err and "--llm embedded" in err
    assert "Traceback" not in err
    assert not (data / "workbench.sqlite3").exists() or not list_runs_at(data), "no run may be recorded"


def list_runs_at(data):
    from workbench.core.workspace import Workspace

    ws = Workspace(data)
    try:
        return list_runs(ws)
    finally:
        ws.close()


def test_sweep_refuses_an_llm_step_without_an_llm_before_indexing(hash_ws, dataset):
    hash_ws.use_llm(_extractive)  # 'auto' without Ollama: no language model
    qset = load_question_set(dataset)
    with pytest.raises(ValueError, match=r"llm-rerank.*needs a generative LLM"):
        run_sweep(hash_ws, qset, expand_grid(["plain", "llm-rerank"]))
    assert hash_ws.store.documents.rows() == [], "refused before the corpora were indexed"


# ----- a step that fails on some questions: recorded and shown --------------------------------------------
def test_a_step_that_failed_during_the_sweep_is_recorded_per_configuration(hash_ws, dataset):
    hash_ws.use_llm(BrokenLLM)
    qset = load_question_set(dataset)
    sweep = run_sweep(hash_ws, qset, expand_grid(["plain", "llm-rerank"]))
    plain, rerank = sweep.results
    assert plain.notes == {}
    n = len(qset.questions)
    assert sum(rerank.notes.values()) == n and any("LLM rerank failed" in m for m in rerank.notes)
    run_id = save_run(hash_ws, qset, sweep)
    info, results = load_run(hash_ws, run_id)
    assert any(w.startswith("llm-rerank: LLM rerank failed") and f"{n} of {n} questions" in w
               for w in info.summary["warnings"]), info.summary["warnings"]
    assert results[1].notes == rerank.notes, "the notes come back with the run"


def test_eval_table_marks_a_configuration_whose_step_failed(capsys, tmp_path, dataset, hash_cli, monkeypatch):
    import workbench.core.llm as llm

    monkeypatch.setattr(llm, "opener_for", lambda choice: BrokenLLM)
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--strategy", "llm-rerank",
                             "--data-dir", data, "--quiet")
    assert code == 0, err
    table = out.split("\n\n")[0].splitlines()
    rerank_row = next(line for line in table if line.startswith("llm-rerank"))
    plain_row = next(line for line in table if line.startswith("plain"))
    assert "[!]" in rerank_row and "[!]" not in plain_row
    assert "[!] llm-rerank: LLM rerank failed" in out and "5 of 5 questions" in out

    code, out, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--strategy", "llm-rerank",
                             "--data-dir", data, "--quiet", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert "warnings" not in rows[0]
    assert any("LLM rerank failed" in w and "5 of 5 questions" in w for w in rows[1]["warnings"])

    code, out, err = run_cli(capsys, "runs", "--show", "last", "--data-dir", data)  # reopened, still marked
    assert code == 0 and "llm-rerank [!]" in out and "[!] llm-rerank: LLM rerank failed" in out, out


# ----- search: duplicates and warnings --------------------------------------------------------------------
@pytest.fixture
def duplicated(tmp_path, capsys, hash_cli):
    """Five notes files sharing the same sentences: most passages repeat another's text."""
    folder = tmp_path / "dup"
    folder.mkdir()
    for i in range(1, 6):
        (folder / f"n{i}.md").write_text(f"# Notes {i}\n\nThe cache is flushed nightly.\n\n"
                                         "The cache is flushed nightly.\n\nThe cache is flushed nightly.\n",
                                         encoding="utf-8")
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", folder, "--data-dir", data, "--quiet", "--chunk-size", "10",
                           "--unit", "words")
    assert code == 0, err
    return data


def test_search_reports_passages_dropped_as_duplicate_text(capsys, duplicated):
    args = ["search", "cache flushed", "--data-dir", duplicated, "--quiet", "--chunk-size", "10", "--unit", "words",
            "--top-k", "50"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    shown = out.count("\n[")
    assert shown == 6
    assert "4 passage(s) dropped as duplicate text" in out

    code, out, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    records = json.loads(out)
    assert len(records) == 6 and all(r["duplicates_dropped"] == 4 for r in records)


def test_search_json_still_says_a_step_was_skipped(capsys, duplicated):
    code, out, err = run_cli(capsys, "search", "cache flushed", "--data-dir", duplicated, "--quiet", "--chunk-size",
                             "10", "--unit", "words", "--strategy", "llm-rerank", "--llm", "extractive", "--json")
    assert code == 0, err
    json.loads(out)
    assert "warning: LLM rerank skipped" in err
