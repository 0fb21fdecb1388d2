"""Issue #29 item 6e: one line, never a traceback, and before the work where the problem is knowable up front:
an ``--out`` folder that cannot be written, a full disk while exporting (nothing half-written), references
nested 100,000 deep, a missing embedding model folder in a grid or a strategy."""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path

import pytest
from cli_support import run_cli
from eval_support import sample_questions

import workbench.core.evaluate.export as export
from workbench.core.evaluate.datasets import DatasetError, load_question_set, save_question_set
from workbench.core.evaluate.export import ExportError, export_results
from workbench.core.evaluate.sweep import SweepConfig, expand_grid, run_sweep
from workbench.core.outputs import MARKER
from workbench.core.retrieve.strategy.presets import PRESETS, override

EXPORTS = {"summary.csv", "summary.json", "questions.csv", "questions.json", "tradeoff.png", "tradeoff.svg"}




def one_line(err: str, *needles: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("workbench: error:") and all(n in lines[0] for n in needles)


@pytest.fixture
def dataset(tmp_path):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    return tmp_path / "qs"


def _documents(data: Path) -> int:
    from workbench.core.workspace import Workspace

    if not data.exists():
        return 0
    ws = Workspace(data)
    try:
        return len(ws.store.documents.rows())
    finally:
        ws.close()


# ----- an --out folder that cannot be written: refused before the work ---------------------------------------
@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_an_out_folder_that_cannot_be_written_is_refused_before_the_eval(capsys, tmp_path, dataset, hash_cli):
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "eval", dataset, "--out", "/proc/x", "--data-dir", data, "--quiet")
    assert code == 1 and out == "" and one_line(err, "--out /proc/x", "cannot create"), err
    assert _documents(data) == 0, "refused before anything was indexed or run"
    code, out, err = run_cli(capsys, "make-questions", "--out", "/proc/x/qs", "--n", "1", "--data-dir", data)
    assert code == 1 and one_line(err, "--out /proc/x/qs"), err
    code, out, err = run_cli(capsys, "runs", "--show", "last", "--out", "/proc/x", "--data-dir", data)
    assert code == 1 and one_line(err, "--out /proc/x"), err
    code, out, err = run_cli(capsys, "docs", "--data-dir", "/proc/x")
    assert code == 1 and one_line(err, "/proc/x"), err
    assert not Path("/proc/x").exists()


def test_the_writability_probe_leaves_no_trace(capsys, tmp_path, dataset, hash_cli):
    out = tmp_path / "new" / "deeper"
    code, _, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--data-dir", tmp_path / "data",
                           "--out", out, "--quiet", "--limit", "1")
    assert code == 0, err
    assert {p.name for p in out.iterdir()} >= EXPORTS  # no probe or temporary file left, only the workbench's marker
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == [MARKER]
    code, _, err = run_cli(capsys, "eval", dataset, "--strategy", "no-such", "--data-dir", tmp_path / "data",
                           "--out", tmp_path / "never" / "made", "--quiet")
    assert code == 1 and not (tmp_path / "never").exists(), "a refused eval leaves no folder behind"


# ----- a full disk while exporting ----------------------------------------------------------------------------
class _FullDisk(io.RawIOBase):
    """A file opened for writing on a disk with ``room`` bytes left: the write past it fails with ENOSPC."""

    def __init__(self, path: str, room: list[int]) -> None:
        self.fh = io.FileIO(path, "w")
        self.room = room

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        data = bytes(b)
        if len(data) > self.room[0]:
            self.fh.write(data[: self.room[0]])
            self.room[0] = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room[0] -= len(data)
        return self.fh.write(data)

    def close(self) -> None:
        self.fh.close()
        super().close()


def full_disk(monkeypatch, room: int) -> None:
    """Every file the export module opens for writing sits on a disk with ``room`` bytes left in all."""
    left = [room]

    def fake_open(path, mode="r", encoding=None, newline=None):
        raw = _FullDisk(os.fspath(path), left)
        if "b" in mode:
            return io.BufferedWriter(raw)
        return io.TextIOWrapper(io.BufferedWriter(raw), encoding=encoding or "utf-8", newline=newline)

    monkeypatch.setattr(export, "open", fake_open, raising=False)


@pytest.fixture
def sweep(hash_ws, dataset):
    qset = load_question_set(dataset).subset(2)
    return run_sweep(hash_ws, qset, expand_grid(["plain"]))


@pytest.mark.parametrize("room", [0, 300, 5000])
def test_an_export_on_a_full_disk_writes_nothing_half(tmp_path, monkeypatch, sweep, room):
    out = tmp_path / "out"
    files = export_results(out, sweep.results)  # an earlier export is there
    before = {name: (out / name).read_bytes() for name in EXPORTS}
    full_disk(monkeypatch, room)
    with pytest.raises(ExportError, match=r"No space left on device.*nothing was written"):
        export_results(out, sweep.results)
    assert {p.name for p in out.iterdir()} == {p.name for p in files.values()} | {MARKER}, "no temporary file is left"
    assert {name: (out / name).read_bytes() for name in EXPORTS} == before, "the earlier export is untouched"
    fresh = tmp_path / "fresh"
    with pytest.raises(ExportError):
        export_results(fresh, sweep.results)
    assert not fresh.exists() or list(fresh.iterdir()) == [], "no 0-byte summary.csv"


def test_eval_out_on_a_full_disk_is_one_line_and_the_run_is_kept(capsys, tmp_path, dataset, hash_cli, monkeypatch):
    full_disk(monkeypatch, 0)
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "eval", dataset, "--strategy", "plain", "--data-dir", tmp_path / "data",
                                "--out", out, "--quiet", "--limit", "2")
    assert code == 1 and one_line(err, "No space left on device", "nothing was written", "recorded"), err
    assert "recall %" in stdout, "the table is still shown"
    assert not out.exists() or list(out.iterdir()) == []
    monkeypatch.undo()
    code, stdout, _ = run_cli(capsys, "runs", "--data-dir", tmp_path / "data", "--json")
    assert code == 0 and len(json.loads(stdout)) == 1


# ----- references nested 100,000 deep ---------------------------------------------------------------------
def test_references_nested_100000_deep_are_one_line(capsys, tmp_path, dataset):
    nested = "[" * 100_000 + "]" * 100_000
    (dataset / "questions.csv").write_text(f'question,references,corpus_id\nWhat?,"{nested}",lab-safety\n',
                                           encoding="utf-8")
    with pytest.raises(DatasetError, match="row 2"):
        load_question_set(dataset)
    code, out, err = run_cli(capsys, "eval", dataset, "--data-dir", tmp_path / "data", "--quiet")
    assert code == 1 and one_line(err, "row 2", "nested too deeply"), err


# ----- a missing embedding model folder -----------------------------------------------------------------------
@pytest.mark.parametrize("how", [["--grid", "model=default,/nonexistent"],
                                 ["--strategy", '{"preset": "plain", "model": "/nonexistent"}']])
def test_a_missing_model_folder_is_one_line_before_any_work(capsys, tmp_path, dataset, hash_cli, how):
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "eval", dataset, *how, "--data-dir", data, "--quiet")
    assert code == 1 and out == "" and one_line(err, "/nonexistent", "model folder"), err
    assert _documents(data) == 0, "refused before anything was indexed"


def test_search_with_a_missing_model_folder_is_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "search", "q", "--strategy", '{"model": "/nonexistent"}', "--data-dir",
                           tmp_path / "data")
    assert code == 1 and one_line(err, "/nonexistent", "model folder"), err


def test_sweep_refuses_a_missing_model_folder_before_indexing(hash_ws, dataset):
    configs = [SweepConfig("plain", PRESETS["plain"], "plain"),
               SweepConfig("gone", override(PRESETS["plain"], model="/nonexistent"), "plain")]
    with pytest.raises(ValueError, match="'gone'.*/nonexistent"):
        run_sweep(hash_ws, load_question_set(dataset), configs)
    assert hash_ws.store.documents.rows() == []
