"""``workbench eval`` / ``workbench runs`` end to end on a small question set over the sample corpus."""

import csv
import json
import time

import pytest
from cli_support import run_cli
from eval_support import mask_metrics, sample_questions

from workbench.core.evaluate.datasets import save_question_set


@pytest.fixture
def dataset(tmp_path):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    return tmp_path / "qs"


def test_eval_json_table_out_runs_compare_rerun(capsys, tmp_path, dataset, hash_cli):
    data = tmp_path / "data"
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--grid", "window=0,1 chunk_size=60",
                                "--top-k", "2", "--data-dir", data, "--json", "--out", out)
    assert code == 0, err
    rows = json.loads(stdout)
    assert [(r["strategy"], r["chunk_size"], r["window"]) for r in rows] == [("plain · top-2", 60, 0),
                                                                              ("plain · top-2", 60, 1)]
    for r in rows:
        assert {"recall", "precision", "iou", "hit_rate", "mrr", "context_tokens"} <= set(r)
        assert all(0 <= r[k] <= 1 for k in ("recall", "precision", "iou", "hit_rate", "mrr"))
        assert r["questions"] == 5 and r["context_tokens"] > 0
    assert rows[1]["context_tokens"] > rows[0]["context_tokens"] and rows[1]["recall"] >= rows[0]["recall"]
    assert "[evaluating]" in err, "progress goes to stderr"

    # per-question rows: metrics agree with the character-mask implementation on the real spans
    per_q = json.loads((out / "questions.json").read_text())
    assert len(per_q) == 10
    corpus_text = {p.stem: p.read_text(encoding="utf-8") for p in (dataset / "corpora").glob("*.md")}
    with open(dataset / "questions.csv", encoding="utf-8", newline="") as fh:
        refs = [json.loads(r["references"]) for r in csv.DictReader(fh)]
    for row in per_q:
        spans = [(name, *map(int, se.split("-"))) for name, se in (s.split(":") for s in row["spans"].split(";"))]
        assert all(corpus_text.get(name) is not None for name, _, _ in spans), "spans name the corpus"
        ref = [(row["corpus_id"], r["start_index"], r["end_index"]) for r in refs[row["q_index"]]]
        names = {n: i for i, n in enumerate(sorted(corpus_text))}
        expect = mask_metrics([(names[d], s, e) for d, s, e in spans], [(names[d], s, e) for d, s, e in ref])
        assert row["recall"] == pytest.approx(expect["recall"], abs=1e-4)
        assert row["iou"] == pytest.approx(expect["iou"], abs=1e-4)
    assert (out / "tradeoff.png").stat().st_size > 1000 and (out / "tradeoff.svg").exists()
    assert (out / "summary.csv").exists() and (out / "questions.csv").exists()

    time.sleep(1.0 - time.time() % 1.0 + 0.01)  # runs are listed by start time to the second: the next starts later
    code, stdout, _ = run_cli(capsys, "eval", dataset, "--strategy", "neighbours", "--data-dir", data, "--quiet")
    assert code == 0 and "neighbours" in stdout and "recall %" in stdout and "recorded in" in stdout

    code, stdout, _ = run_cli(capsys, "runs", "--data-dir", data, "--json")
    runs = json.loads(stdout)
    assert len(runs) == 2 and runs[1]["configs"] == ["plain · top-2 window=0 chunk_size=60",
                                                          "plain · top-2 window=1 chunk_size=60"]
    first = runs[1]["id"]

    code, stdout, _ = run_cli(capsys, "eval", "--compare", f"{first}:1", f"{first}:2", "--threshold", "0.05",
                              "--data-dir", data, "--json")
    [comp] = json.loads(stdout)
    assert code == 0 and "window=0" in comp["a"]["key"] and "window=1" in comp["b"]["key"]
    assert not comp["broke"] and comp["unchanged"] + len(comp["fixed"]) == 5

    code, stdout, _ = run_cli(capsys, "eval", "--rerun", first, "--data-dir", data, "--json", "--quiet")
    again = json.loads(stdout)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "run_id"} for r in rs]  # noqa: E731
    assert code == 0 and strip(again) == strip(rows), "a re-run gives the same numbers"

    code, stdout, _ = run_cli(capsys, "runs", "--show", first, "--out", tmp_path / "shown", "--data-dir", data,
                              "--json")
    assert code == 0 and strip(json.loads(stdout)) == strip(rows), "a reopened run shows the recorded numbers"
    shown = json.loads((tmp_path / "shown" / "questions.json").read_text())
    assert ([(r["q_index"], r["spans"], r["recall"]) for r in shown]
            == [(r["q_index"], r["spans"], r["recall"]) for r in per_q])

    code, _, err = run_cli(capsys, "eval", "--compare", first, runs[0]["id"], "--data-dir", data)
    assert code == 1 and "RUN:N" in err


def test_eval_errors_are_one_line(capsys, tmp_path, dataset):
    data = tmp_path / "data"
    for args, msg in [
        (["eval", tmp_path / "missing"], "no such question set folder"),
        (["eval", tmp_path], "questions.csv is missing"),
        (["eval", dataset, "--grid", "colour=1"], "unknown grid parameter"),
        (["eval", dataset, "--strategy", "nope"], "unknown strategy"),
        (["eval", dataset, "--corpus", "nope"], "unknown corpus"),
        (["eval"], "DATASET_DIR"),
        (["eval", "--rerun", "nothing"], "is no such folder"),
    ]:
        code, _, err = run_cli(capsys, *args, "--data-dir", data, "--quiet")
        assert code == 1, args
        assert err.startswith("workbench: error:") and msg in err and "Traceback" not in err
