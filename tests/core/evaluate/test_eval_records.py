"""Experiment records: stored, listed, reopened, re-run with the same numbers, exported (on the hashed
embedder: the records, not the ranking, are the point)."""

import csv
import json
import shutil

import pytest
from eval_support import copy_workspace, sotu_workspace

from workbench.core.evaluate.datasets import DatasetError, load_question_set
from workbench.core.evaluate.export import export_results, plot_lines, summary_rows
from workbench.core.evaluate.records import (
    code_version,
    delete_run,
    find_run,
    list_runs,
    load_run,
    model_file_hash,
    rerun,
    save_run,
)
from workbench.core.evaluate.sweep import expand_grid, run_sweep


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, hash_embedder):
    """One recorded sweep shared by the tests of this module (in file order; the last one changes the set)."""
    root, data = sotu_workspace(tmp_path_factory, hash_embedder)
    tmp = tmp_path_factory.mktemp("records")
    qs_root = tmp / "qs"
    shutil.copytree(root, qs_root)
    ws = copy_workspace(data, tmp, hash_embedder)
    qset = load_question_set(qs_root).subset(limit=20)
    sweep = run_sweep(ws, qset, expand_grid(["plain", "neighbours"], "window=0,1"))
    run_id = save_run(ws, qset, sweep, label="sotu", seed=7, selection={"limit": 20})
    yield ws, qset, sweep, run_id
    ws.close()


def test_run_is_recorded_with_everything_needed_to_reproduce_it(recorded, hash_embedder):
    ws, qset, sweep, run_id = recorded
    info = find_run(ws, run_id)
    assert [r.id for r in list_runs(ws)] == [run_id]
    assert info.id == run_id and info.label == "sotu" and info.kind == "retrieval"
    assert find_run(ws, run_id[:12]).id == run_id and find_run(ws, "last").id == run_id
    cfg = info.config
    assert cfg["dataset"]["corpora"] == qset.corpus_hashes and cfg["dataset"]["questions"] == 20
    assert info.dataset_hash == qset.dataset_hash
    assert cfg["embedding"]["model_id"] == hash_embedder.model_id
    assert cfg["embedding"]["file_sha256"] == model_file_hash(hash_embedder.model_path) and len(
        cfg["embedding"]["file_sha256"]) == 64
    assert cfg["seed"] == 7 and cfg["llm"] is None
    assert info.code_version == code_version() and info.code_version.startswith("0.")
    assert [c["key"] for c in cfg["configs"]] == [cr.config.key for cr in sweep.results]
    assert cfg["configs"][1]["strategy"]["expansion"] == "neighbours"
    assert info.started <= info.finished
    assert set(info.summary["configs"]) == set(info.config_keys)

    info2, results = load_run(ws, run_id)
    assert [r.config.key for r in results] == [r.config.key for r in sweep.results]
    for fresh, loaded in zip(sweep.results, results):
        assert loaded.config.strategy == fresh.config.strategy
        assert [(r.q_index, r.spans, r.metrics) for r in loaded.rows] == [
            (r.q_index, r.spans, r.metrics) for r in fresh.rows]
        assert loaded.summary == fresh.summary


def test_export_writes_csv_json_and_plots(recorded, tmp_path):
    ws, qset, sweep, run_id = recorded
    files = export_results(tmp_path / "out", sweep.results, {sweep.doc_ids["state_of_the_union"]: "sotu"},
                           title="test")
    with open(files["summary_csv"], encoding="utf-8") as fh:
        summary = list(csv.DictReader(fh))
    assert [r["key"] for r in summary] == [cr.config.key for cr in sweep.results]
    assert float(summary[0]["recall"]) == pytest.approx(sweep.results[0].summary["recall"].mean)
    data = json.loads(files["summary_json"].read_text())
    assert {"recall", "precision", "iou", "hit_rate", "mrr", "context_tokens", "strategy", "window"} <= set(
        data["configs"][0])
    questions = json.loads(files["questions_json"].read_text())
    assert len(questions) == 20 * len(sweep.results) and questions[0]["spans"].startswith("sotu:")
    with open(files["questions_csv"], encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == len(questions)
    assert files["plot_png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in files["plot_svg"].read_text()[:2000]
    lines = plot_lines(summary_rows(sweep.results))
    assert [label for label, _ in lines] == ["plain", "neighbours"], "one line per strategy along the window"
    assert all(len(points) == 2 for _, points in lines)


def test_same_inputs_give_the_same_numbers_and_rerun_reproduces(recorded):
    ws, qset, sweep, run_id = recorded
    again = run_sweep(ws, qset, [cr.config for cr in sweep.results])
    assert summary_rows(again.results) == summary_rows(sweep.results)
    new_id, redo = rerun(ws, run_id)
    assert new_id != run_id
    _, old = load_run(ws, run_id)
    _, new = load_run(ws, new_id)
    for a, b in zip(old, new):
        assert [(r.q_index, r.spans, r.metrics) for r in a.rows] == [(r.q_index, r.spans, r.metrics) for r in b.rows]
    assert find_run(ws, new_id).label == f"re-run of {run_id}"
    assert len(new[0].rows) == 20, "the recorded selection (first 20 questions) is re-applied"
    # A changed question file is detected.
    qfile = qset.root / "questions.csv"
    qfile.write_text(qfile.read_text(encoding="utf-8").replace("Biden", "Lincoln", 1), encoding="utf-8")
    with pytest.raises(DatasetError, match="changed since"):
        rerun(ws, run_id)
    delete_run(ws, new_id)
    assert [r.id for r in list_runs(ws)] == [run_id]
    with pytest.raises(KeyError):
        find_run(ws, new_id)
