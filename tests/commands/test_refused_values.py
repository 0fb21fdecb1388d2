"""Issue #35 items 2, 3 and 9: no empty, negative or out-of-range value reaches an action (exit 2, one line,
nothing changed); read-only commands on a folder that holds no store say so and create nothing; ``verify``
tells "cannot open" (4) from "inconsistent" (3); every message is a sentence, not an exception's name."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.commands.common import exception_sentence

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "sample"


@pytest.fixture
def data(tmp_path, hash_sample_data_dir) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(hash_sample_data_dir, folder)
    return folder


def _paths(data: Path) -> list[str]:
    with sqlite3.connect(data / "workbench.sqlite3") as db:
        return sorted(r[0] for r in db.execute("SELECT path FROM documents"))


@pytest.mark.parametrize("args", [
    ["remove", ""], ["remove", " "], ["index", ""], ["docs", "--data-dir", ""], ["search", "q", "--model", ""],
    ["index", str(SAMPLE), "--max-file-mb", "-1"], ["index", str(SAMPLE), "--max-file-mb", "nan"],
    ["index", str(SAMPLE), "--chunk-size", "0"], ["index", str(SAMPLE), "--chunk-size", "1e400"],
    ["index", str(SAMPLE), "--overlap", "-5"], ["search", "q", "--top-k", "-3"], ["search", "q", "--top-k", "0"],
    ["search", "q", "--window", "99999999999999999999"], ["search", "q", "--budget", "-1"],
    ["eval", "sample", "--limit", "0"], ["advise", "sample", "--seed", "-1"], ["search", "q", "--strategy", ""],
    ["search", "q", "--chunker", ""], ["runs", "--show", ""], ["strategies", "--delete", ""],
])
def test_an_empty_or_out_of_range_value_is_refused_with_exit_2_and_nothing_changes(capsys, tmp_path, data,
                                                                                    hash_cli, monkeypatch, args):
    """``remove ""`` removed every document under the current folder; ``--max-file-mb -1`` dropped every
    file's earlier version; ``--data-dir ""`` wrote to the per-user folder."""
    monkeypatch.chdir(SAMPLE)  # an empty path would mean this folder
    monkeypatch.setenv("WORKBENCH_DATA", str(tmp_path / "default"))  # and an empty --data-dir this one
    before = _paths(data)
    extra = [] if "--data-dir" in args else ["--data-dir", str(data)]
    code, out, err = run_cli(capsys, *args, *extra, "--quiet")
    assert code == 2, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert _paths(data) == before
    assert not (tmp_path / "default").exists()


def test_remove_names_what_it_removed_and_refuses_a_path_that_matches_nothing(capsys, data, hash_cli):
    code, _, err = run_cli(capsys, "remove", str(SAMPLE / "nothing-here"), "--data-dir", data)
    assert code == 1 and "no indexed document" in err
    code, out, _ = run_cli(capsys, "remove", str(SAMPLE / "lab-safety.md"), "--data-dir", data)
    assert code == 0 and "removed 1 document(s)" in out and "lab-safety.md" in out


@pytest.mark.parametrize("command", [["docs"], ["verify"], ["runs"], ["strategies"], ["search", "q"],
                                     ["ask", "q", "--llm", "extractive"], ["remove", "x"], ["chunk-stats"],
                                     ["cuts", "diff", "plain", "neighbours"],
                                     ["chunks", "export", "plain", "--out", "exported.jsonl"],
                                     ["runs", "--show", "last"], ["eval", "--rerun", "last"]])
@pytest.mark.parametrize("kind", ["empty folder", "missing folder", "corpus folder"])
def test_a_read_only_command_on_a_folder_without_a_store_creates_nothing(capsys, tmp_path, command, kind):
    """``docs --data-dir /etc`` created /etc/workbench.sqlite3; ``verify --data-dir /nonexistent/x`` made the
    folder and said "consistent"."""
    folder = {"empty folder": tmp_path / "empty", "missing folder": tmp_path / "no" / "such",
              "corpus folder": tmp_path / "corpus"}[kind]
    if kind == "empty folder":
        folder.mkdir()
    if kind == "corpus folder":
        shutil.copytree(SAMPLE, folder)
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run_cli(capsys, *command, "--data-dir", folder)
    assert code == 1, (code, out, err)
    assert "holds no workbench store" in err or "is no such folder" in err, err
    assert len(err.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == before, "nothing was created"


def test_verify_tells_a_store_it_cannot_open_from_an_inconsistent_one(capsys, tmp_path, data):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "workbench.sqlite3").write_bytes(b"this is not a database" * 100)
    code, out, _ = run_cli(capsys, "verify", "--data-dir", bad)
    assert code == 4 and "CANNOT OPEN" in out
    code, out, _ = run_cli(capsys, "verify", "--data-dir", bad, "--json")
    assert code == 4 and json.loads(out)["opened"] is False
    code, out, _ = run_cli(capsys, "verify", "--data-dir", data)
    assert code == 0 and out.startswith("consistent")


@pytest.mark.parametrize("exc, bad", [
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "utf-8"),
    (KeyError("fit"), "fit"), (KeyError("advice"), "advice"), (ValueError("number"), "number"),
    (RecursionError("maximum recursion depth exceeded"), None), (OverflowError("int too large"), None),
])
def test_every_exception_shown_is_a_sentence_not_its_name(exc, bad):
    """Issue #35 item 9: "error: utf-8", "error: fit", "error: advice", "error: number"."""
    text = exception_sentence(exc)
    assert text != bad and len(text.split()) >= 5, text


def test_strategies_lists_the_presets_when_the_default_folder_cannot_be_read(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "default"
    folder.mkdir()
    (folder / "workbench.sqlite3").write_bytes(b"not a database" * 100)
    monkeypatch.setenv("WORKBENCH_DATA", str(folder))
    code, out, err = run_cli(capsys, "strategies", "--json")
    assert code == 0 and "sentence-window" in out and err.startswith("warning: saved strategies not listed")
    code, _, err = run_cli(capsys, "strategies", "--data-dir", folder)
    assert code == 1 and "not a SQLite database" in err
