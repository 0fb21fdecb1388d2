"""The ``workbench`` CLI end to end on the sample corpus (in-process on the hashed embedder, and as a real
console script for its exit status)."""

import json
import subprocess
import sys

from cli_support import run_cli
from conftest import ROOT, SAMPLE


def test_index_search_docs_json(capsys, tmp_path, hash_cli):
    data = str(tmp_path / "data")
    code, out, _ = run_cli(capsys, "index", str(SAMPLE), "--data-dir", data, "--json", "--quiet")
    assert code == 0
    report = json.loads(out)
    assert report["added"] == 6 and report["chunks_total"] > 0 and not report["failed"]

    code, out, _ = run_cli(capsys, "search", "How do I flush the cache?", "--data-dir", data, "--json", "--window", "0")
    assert code == 0
    hits = json.loads(out)
    assert hits and hits[0]["rank"] == 1
    docs = {d["id"]: d for d in json.loads(_docs(capsys, data))["documents"]}
    for h in hits:
        text = ((SAMPLE / h["doc_path"].split("/")[-1]).read_text(encoding="utf-8")
                if h["doc_path"].endswith(".md") else None)
        assert {"rank", "score", "doc_path", "chunk_start", "chunk_end", "start", "end", "text"} <= set(h)
        assert (h["start"], h["end"]) == (h["chunk_start"], h["chunk_end"]), "window 0 returns the chunk itself"
        if text is not None:
            assert text[h["start"] : h["end"]] == h["text"]
        assert h["doc_id"] in docs

    code, out, _ = run_cli(capsys, "search", "How do I flush the cache?", "--data-dir", data, "--json", "--window", "1")
    wide = json.loads(out)
    assert wide[0]["end"] - wide[0]["start"] > hits[0]["end"] - hits[0]["start"]
    assert wide[0]["chunk_start"] >= wide[0]["start"] and wide[0]["chunk_end"] <= wide[0]["end"]


def _docs(capsys, data):
    code, out, _ = run_cli(capsys, "docs", "--data-dir", data, "--json")
    assert code == 0
    return out


def test_errors_are_one_line_and_non_zero(capsys, tmp_path, hash_cli):
    data = str(tmp_path / "empty")
    for args, needle in [
        (["index", str(tmp_path / "nope")], "no such file or folder"),
        (["search", "anything", "--data-dir", data], "is no such folder; this command only reads"),
        (["search", "q", "--data-dir", data, "--chunk-size", "10", "--overlap", "20"], "overlap"),
        (["search", "q", "--strategy", "no-such-strategy", "--data-dir", data], "unknown strategy"),
        (["search", "q", "--strategy", "{bad json", "--data-dir", data], "JSON"),
    ]:
        code, out, err = run_cli(capsys, *args)
        assert code != 0
        assert needle in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "empty").exists(), "a search creates no data folder"


def test_console_script_runs_as_a_process(tmp_path):
    """The installed entry point, as a user runs it: a bad option exits non-zero with usage, no traceback."""
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "search"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "strategies", "--json"], capture_output=True,
                          text=True, cwd=ROOT)
    names = [s["name"] for s in json.loads(proc.stdout)]
    assert "plain" in names and "sentence-window" in names


def test_search_per_doc_cap_returns_top_k_documents(capsys, hash_sample_data_dir, tmp_path, hash_cli):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(hash_sample_data_dir, data)
    code, out, _ = run_cli(capsys, "search", "How do I flush the cache?", "--data-dir", str(data), "--json",
                           "--quiet", "--per-doc-cap", "1", "--top-k", "5")
    assert code == 0
    records = json.loads(out)
    assert len(records) == 5 and len({r["doc_id"] for r in records}) == 5
