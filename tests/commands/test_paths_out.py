"""Issue #48 items 1–3, the write rules (``workbench.core.outputs``): a person-named output is a regular file,
never written through a symbolic link; ``--force`` replaces a regular file and nothing else; a folder output is
new, empty or one the workbench wrote (its marker); read-only ``questions`` actions create no store."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from cli_support import run_cli

MARKER = ".workbench-output"  # workbench.core.outputs.MARKER (imported where needed: the old code lacks it)


def one_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("workbench")


@pytest.fixture
def data(tmp_path, hash_sample_data_dir) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(hash_sample_data_dir, folder)
    return folder


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return "link" if stat.S_ISLNK(mode) else "fifo" if stat.S_ISFIFO(mode) else "chr" if stat.S_ISCHR(mode) \
        else "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def _device(path: Path) -> Path:
    """A character device node like /dev/null, made inside the test's folder (root only): never a real
    device, so an old version that renamed over it would harm nothing."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError):
        pytest.skip("making a device node needs root")
    return path


# ----- item 1: chunks export --force -----------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", "link", "device", "dir"])
def test_chunks_export_force_replaces_a_regular_file_and_nothing_else(capsys, tmp_path, data, hash_cli, kind):
    """``mkfifo p; chunks export plain --out p --force`` printed "wrote 42 chunk(s)" and p became a plain file;
    a link, a device node and a folder are refused the same way, and are left as they were."""
    target = tmp_path / "p"
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me", encoding="utf-8")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "link":
        target.symlink_to(secret)
    elif kind == "device":
        _device(target)
    else:
        target.mkdir()
    before = _kind(target)
    code, out, err = run_cli(capsys, "chunks", "export", "plain", "--out", target, "--force", "--data-dir", data)
    assert code == 1 and one_line(err) and "wrote" not in out, (code, out, err)
    assert _kind(target) == before and secret.read_text(encoding="utf-8") == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary file is left"


def test_chunks_export_force_replaces_a_regular_file(capsys, tmp_path, data, hash_cli):
    target = tmp_path / "chunks.csv"
    target.write_text("old", encoding="utf-8")
    code, _, err = run_cli(capsys, "chunks", "export", "plain", "--out", target, "--data-dir", data)
    assert code == 1 and one_line(err) and "--force" in err
    code, out, err = run_cli(capsys, "chunks", "export", "plain", "--out", target, "--format", "csv", "--force",
                             "--vectors", "--data-dir", data)
    assert code == 0 and "wrote" in out, err
    assert target.read_text(encoding="utf-8").startswith("doc_path")
    assert _kind(target) == "file" and (tmp_path / "chunks.vectors.npy").is_file()


def test_a_link_as_the_side_vectors_file_is_refused_before_anything_is_written(capsys, tmp_path, data, hash_cli):
    secret = tmp_path / "secret.npy"
    secret.write_bytes(b"keep")
    (tmp_path / "c.vectors.npy").symlink_to(secret)
    code, _, err = run_cli(capsys, "chunks", "export", "plain", "--out", tmp_path / "c.jsonl", "--vectors",
                           "--force", "--data-dir", data)
    assert code == 1 and one_line(err) and "symbolic link" in err
    assert not (tmp_path / "c.jsonl").exists() and secret.read_bytes() == b"keep"


# ----- item 2: questions export into a folder ---------------------------------------------------------------
@pytest.fixture
def with_set(capsys, data, hash_cli) -> Path:
    assert run_cli(capsys, "questions", "new", "s", "--data-dir", data)[0] == 0
    code, _, err = run_cli(capsys, "questions", "add", "s", "how do I roll back", "--ref", "deploy-guide.md:0:40",
                           "--data-dir", data)
    assert code == 0, err
    return data


@pytest.mark.parametrize("fmt", ["jsonl", "chroma"])
def test_questions_export_never_writes_through_a_link_in_the_folder(capsys, tmp_path, with_set, fmt):
    """With ``DIR/corpora/x.md -> ~/notes.txt``, ``questions export --format jsonl --out DIR`` overwrote
    notes.txt."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    out = tmp_path / "out"
    (out / "corpora").mkdir(parents=True)
    (out / "corpora" / "deploy-guide.md").symlink_to(notes)
    code, _, err = run_cli(capsys, "questions", "export", "s", "--format", fmt, "--out", out, "--data-dir", with_set)
    assert code == 1 and one_line(err), err
    assert notes.read_text(encoding="utf-8") == "my notes"
    assert sorted(p.name for p in out.rglob("*")) == ["corpora", "deploy-guide.md"], "nothing was added"


def test_questions_export_refuses_a_folder_that_is_not_empty(capsys, tmp_path, with_set):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("x", encoding="utf-8")
    code, _, err = run_cli(capsys, "questions", "export", "s", "--format", "jsonl", "--out", out,
                           "--data-dir", with_set)
    assert code == 1 and one_line(err) and "not empty" in err, err
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_a_link_planted_in_the_workbench_s_own_folder_is_refused(capsys, tmp_path, with_set):
    """A folder the workbench wrote may be written again, but never through a link planted in it."""
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "eval", "s", "--strategy", "plain", "--out", out, "--data-dir", with_set,
                           "--quiet")
    assert code == 0 and (out / MARKER).is_file(), err
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    (out / "summary.csv").unlink()
    (out / "summary.csv").symlink_to(notes)
    code, _, err = run_cli(capsys, "eval", "s", "--strategy", "plain", "--out", out, "--data-dir", with_set,
                           "--quiet")
    assert code == 1 and one_line(err) and "symbolic link" in err, err
    assert notes.read_text(encoding="utf-8") == "my notes" and (out / "summary.csv").is_symlink()
    code, listing, _ = run_cli(capsys, "runs", "--data-dir", with_set, "--json")
    assert len(json.loads(listing)) == 1, "refused before the evaluation ran, not after"


def test_an_output_folder_of_another_kind_is_refused(capsys, tmp_path, with_set):
    """A questions export's folder is not an evaluation's: eval --out into it would replace its questions.csv."""
    out = tmp_path / "out"
    assert run_cli(capsys, "questions", "export", "s", "--out", out, "--data-dir", with_set)[0] == 0
    before = (out / "questions.csv").read_bytes()
    code, _, err = run_cli(capsys, "eval", "s", "--strategy", "plain", "--out", out, "--data-dir", with_set,
                           "--quiet")
    assert code == 1 and one_line(err) and "question set in Chroma's format" in err, err
    assert (out / "questions.csv").read_bytes() == before


def test_an_evaluation_folder_is_written_again_and_marked(capsys, tmp_path, with_set):
    out = tmp_path / "out"
    for _ in range(2):
        code, _, err = run_cli(capsys, "eval", "s", "--strategy", "plain", "--out", out, "--data-dir", with_set,
                               "--quiet")
        assert code == 0, err
    assert "evaluation results" in (out / MARKER).read_text(encoding="utf-8")


# ----- the module itself ------------------------------------------------------------------------------------
def test_write_files_is_all_or_nothing(tmp_path):
    from workbench.core import outputs

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a", encoding="utf-8")

    def fail(tmp: Path) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        outputs.write_files([(a, lambda t: t.write_text("new a")), (b, fail)], replace=True)
    assert a.read_text(encoding="utf-8") == "old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_written_file_has_the_usual_mode(tmp_path):
    from workbench.core import outputs

    path = outputs.write_text(tmp_path / "x.txt", "x")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_an_output_folder_whose_marker_is_a_link_is_refused(tmp_path):
    from workbench.core import outputs

    out = tmp_path / "out"
    out.mkdir()
    (out / MARKER).symlink_to(tmp_path)
    with pytest.raises(outputs.OutputRefused, match="marker"):
        outputs.check_folder(out)


# ----- item 3: read-only questions actions create nothing ---------------------------------------------------
@pytest.mark.parametrize("action", [["list"], ["show", "s"], ["check", "s"], ["export", "s", "--out", "OUT"],
                                    ["delete", "s"], ["review", "s"], ["rename", "s", "t"], ["duplicate", "s", "t"],
                                    ["remove", "s", "1"], ["edit", "s", "1", "--text", "x"],
                                    ["add", "s", "q", "--ref", "1:0:5"]])
@pytest.mark.parametrize("where", ["missing", "empty"])
def test_questions_actions_create_no_store(capsys, tmp_path, hash_cli, action, where):
    """``questions list|show|check|export|delete|review`` created workbench.sqlite3 wherever --data-dir pointed
    (a missing folder was made); only ``questions new`` makes a store now."""
    folder = tmp_path / "data"
    if where == "empty":
        folder.mkdir()
    args = [tmp_path / "out" if a == "OUT" else a for a in action]
    code, _, err = run_cli(capsys, "questions", *args, "--data-dir", folder)
    assert code == 1 and one_line(err) and "nothing was created" in err, err
    assert (list(folder.iterdir()) == [] if where == "empty" else not folder.exists())
    assert not (tmp_path / "out").exists()


def test_without_replace_a_file_made_meanwhile_is_not_replaced(tmp_path):
    """Two exports to one new path: the one that finishes second is refused, not renamed over the first."""
    from workbench.core import outputs

    target = tmp_path / "x.jsonl"

    def write_and_race(tmp: Path) -> None:
        tmp.write_text("mine", encoding="utf-8")
        target.write_text("theirs", encoding="utf-8")  # another export finished first

    with pytest.raises(outputs.OutputRefused, match="exists"):
        outputs.write_files([(target, write_and_race)])
    assert target.read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl"], "no temporary file is left"


def test_the_window_s_set_export_refuses_a_link_in_one_line(qtbot, tmp_path, hash_sample_ws):
    """The Questions tab's *Export* writes by the same rules; a refusal is its status line, not an exception."""
    from workbench.core.spans import Span
    from workbench.ui.evaluate.questions_view import QuestionsView

    ws = hash_sample_ws
    ws.questions.create("s", "")
    doc = next(int(r["id"]) for r in ws.records.documents() if r["path"].endswith("deploy-guide.md"))
    ws.questions.add("s", "how do I roll back", [Span(doc, 0, 40)])
    view = QuestionsView(ws)
    qtbot.addWidget(view)
    view.refresh(choose="s")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    out = tmp_path / "out"
    (out / "corpora").mkdir(parents=True)
    (out / "corpora" / "deploy-guide.md").symlink_to(notes)
    assert view.export_set(out, "jsonl") == []
    assert "not empty" in view.status.text() and notes.read_text(encoding="utf-8") == "my notes"
    assert view.export_set(tmp_path / "fresh", "jsonl"), view.status.text()
