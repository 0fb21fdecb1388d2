"""Issue #48 items 6–8 and 12, the read rules (``workbench.core.inputs``): a person-named input is a regular file
(a FIFO or device is refused without blocking), read with a bound counted while reading, never outside the
folder the person named; ``cuts edit --from-export`` reads the workbench's own CSV with a chunk over 131,072
characters."""

from __future__ import annotations

import csv
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_cli

ROOT = Path(__file__).resolve().parents[2]
HASHED_CLI = ROOT / "tests" / "hashed_cli.py"
SECRET = "top secret alpha beta gamma"


def one_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("workbench")


def _limited() -> None:  # a child that would read /dev/zero whole dies of MemoryError, not the machine
    resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))


def run_child(*args: object, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``workbench ARGS`` in a process of its own (hashed embedder), at most ``timeout`` seconds and 1.5 GB."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, str(HASHED_CLI), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, preexec_fn=_limited, check=False)


@pytest.fixture
def secret(tmp_path) -> Path:
    path = tmp_path / "secret" / "private.txt"
    path.parent.mkdir()
    path.write_text(SECRET, encoding="utf-8")
    return path


def _refused_before_the_store(capsys, data: Path, *args: object) -> str:
    code, out, err = run_cli(capsys, "import-questions", *args, "--set", "x", "--data-dir", data, "--quiet")
    assert code == 1 and one_line(err), (code, out, err)
    assert not data.exists(), "nothing was indexed: the data folder was not even made"
    return err


# ----- item 6: never outside the folder the person named ----------------------------------------------------
@pytest.mark.parametrize("named", ["../secret/private.txt", "ABSOLUTE", "link.txt", "sub/../../secret/private.txt"])
def test_a_hicbench_row_cannot_name_a_file_outside_the_benchmark(capsys, tmp_path, hash_cli, secret, named):
    """A row whose ``document`` is ``../../secret/private.txt`` or an absolute path got that file indexed."""
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "sub").mkdir()
    (bench / "link.txt").symlink_to(secret)
    (bench / "ok.txt").write_text("alpha beta in a good document", encoding="utf-8")
    rows = [{"id": "good", "input": "q1?", "document": "ok.txt", "evidences": ["alpha beta"]},
            {"id": "bad", "input": "q2?", "document": str(secret) if named == "ABSOLUTE" else named,
             "evidences": ["alpha beta"]}]
    (bench / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    err = _refused_before_the_store(capsys, tmp_path / "data", "hicbench", bench / "h.jsonl")
    assert "line 2" in err and ("outside" in err or "absolute" in err or "climbs out" in err), err


def test_gutenqa_books_cannot_link_outside_the_benchmark(capsys, tmp_path, hash_cli, secret):
    bench = tmp_path / "gq"
    (bench / "books").mkdir(parents=True)
    (bench / "books" / "b.txt").symlink_to(secret)
    (bench / "questions.jsonl").write_text(json.dumps({"question": "q?", "chunk_must_contain": "alpha beta",
                                                       "book_name": "b"}) + "\n", encoding="utf-8")
    err = _refused_before_the_store(capsys, tmp_path / "data", "gutenqa", bench)
    assert "link to outside" in err, err


def test_legalbench_corpus_cannot_link_outside_the_benchmark(capsys, tmp_path, hash_cli, secret):
    bench = tmp_path / "lb"
    (bench / "benchmarks").mkdir(parents=True)
    (bench / "corpus" / "c").mkdir(parents=True)
    (bench / "corpus" / "c" / "a.txt").write_text("alpha beta gamma delta", encoding="utf-8")
    (bench / "corpus" / "c" / "b.txt").symlink_to(secret)
    test = {"query": "q?", "snippets": [{"file_path": "c/a.txt", "span": [0, 10], "answer": "alpha beta"}]}
    (bench / "benchmarks" / "t.json").write_text(json.dumps({"tests": [test]}), encoding="utf-8")
    err = _refused_before_the_store(capsys, tmp_path / "data", "legalbench-rag", bench)
    assert "link to outside" in err, err


def test_ragbench_folder_cannot_link_outside(capsys, tmp_path, hash_cli, secret):
    bench = tmp_path / "rb"
    bench.mkdir()
    (bench / "x.jsonl").symlink_to(secret)
    err = _refused_before_the_store(capsys, tmp_path / "data", "ragbench", bench)
    assert "link to outside" in err, err


def test_a_link_inside_the_benchmark_is_fine(capsys, tmp_path, hash_cli):
    bench = tmp_path / "gq"
    (bench / "books").mkdir(parents=True)
    (bench / "texts").mkdir()
    (bench / "texts" / "b.txt").write_text("alpha beta gamma in the book", encoding="utf-8")
    (bench / "books" / "b.txt").symlink_to(bench / "texts" / "b.txt")
    (bench / "questions.jsonl").write_text(json.dumps({"question": "q?", "chunk_must_contain": "alpha beta",
                                                       "book_name": "b"}) + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "import-questions", "gutenqa", bench, "--set", "g", "--data-dir",
                           tmp_path / "data", "--quiet")
    assert code == 0, err


def test_a_question_set_folder_whose_questions_file_links_out_is_refused(capsys, tmp_path, hash_cli, secret):
    qs = tmp_path / "qs"
    (qs / "corpora").mkdir(parents=True)
    secret.write_text("question,references,corpus_id\nq?,[],\n", encoding="utf-8")
    (qs / "questions.csv").symlink_to(secret)
    code, _, err = run_cli(capsys, "eval", qs, "--data-dir", tmp_path / "data", "--quiet")
    assert code == 1 and one_line(err) and "link to outside" in err, err


# ----- items 7 and 8: no device, no FIFO, a bound counted while reading --------------------------------------
def test_import_questions_refuses_a_device_at_once(tmp_path):
    """``import-questions squad /dev/zero`` grew to 2.9 GB and died with MemoryError."""
    done = run_child("import-questions", "squad", "/dev/zero", "--set", "z", "--data-dir", tmp_path / "data")
    assert done.returncode == 1 and one_line(done.stderr) and "character device" in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()


def test_import_questions_refuses_a_huge_sparse_file_without_reading_it(tmp_path):
    """A 4 GB sparse JSON file was read whole (MemoryError)."""
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(4 << 30)
    done = run_child("import-questions", "squad", big, "--set", "z", "--data-dir", tmp_path / "data")
    assert done.returncode == 1 and one_line(done.stderr) and "larger than" in done.stderr, done.stderr


@pytest.mark.parametrize("fmt", ["squad", "qasper", "hicbench", "ragbench", "gutenqa"])
def test_import_questions_refuses_a_fifo_without_blocking(tmp_path, fmt):
    """``import-questions squad FIFO`` hung (killed after 40 s)."""
    fifo = tmp_path / ("q.jsonl" if fmt != "squad" else "q.json")
    os.mkfifo(fifo)
    done = run_child("import-questions", fmt, fifo, "--set", "z", "--data-dir", tmp_path / "data", timeout=20)
    assert done.returncode == 1 and one_line(done.stderr), done.stderr


@pytest.fixture
def data(tmp_path, hash_sample_data_dir) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(hash_sample_data_dir, folder)
    return folder


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_cuts_from_export_refuses_a_fifo_or_device_without_blocking(tmp_path, data, kind):
    """``cuts edit --from-export FIFO`` hung (killed after 60 s); ``/dev/zero`` passed the 200 MB check (its
    stat size is 0)."""
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "p.jsonl"
        os.mkfifo(path)
    done = run_child("cuts", "edit", "e", "--base", "plain", "--from-export", path, "--data-dir", data, timeout=20)
    assert done.returncode == 1 and one_line(done.stderr), done.stderr
    assert "--from-export" in done.stderr and ("FIFO" in done.stderr or "device" in done.stderr)


def test_the_bound_is_counted_while_reading_not_taken_from_stat():
    """A /proc file stats as 0 bytes but holds more: the bound still holds."""
    from workbench.core.inputs import InputRefused, read_bytes

    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(InputRefused, match="larger than 10 bytes; reading stopped"):
        read_bytes("/proc/self/status", limit=10)
    assert len(read_bytes("/proc/self/status", limit=1 << 20)) > 10


def test_a_folder_is_refused_in_one_line(capsys, tmp_path, hash_cli):
    folder = tmp_path / "x.json"
    folder.mkdir()
    code, _, err = run_cli(capsys, "import-questions", "squad", folder, "--set", "z", "--data-dir", tmp_path / "d")
    assert code == 1 and one_line(err) and "folder" in err, err


# ----- item 12: the workbench's own CSV export with a long chunk ---------------------------------------------
def test_cuts_from_export_reads_a_csv_chunk_over_131072_characters(capsys, tmp_path, hash_cli, monkeypatch):
    """``cuts edit --from-export`` failed on the workbench's own CSV export when a chunk was over 131,072
    characters (``_csv.Error: field larger than field limit``)."""
    from workbench.core.inspect.chunk_export import ExportedChunk, write_chunk_export

    old_limit = csv.field_size_limit(131_072)  # as a fresh process has it (another test may have raised it)
    try:
        doc = tmp_path / "long.md"
        text = ("A long paragraph of words that never breaks. " * 4000)[:150_000]
        doc.write_text(text, encoding="utf-8")
        data = tmp_path / "data"
        code, _, err = run_cli(capsys, "index", doc, "--data-dir", data, "--quiet")
        assert code == 0, err
        code, out, _ = run_cli(capsys, "docs", "--data-dir", data, "--json")
        row = json.loads(out)["documents"][0]
        path = str(row.get("path"))
        doc_id = int(row.get("id"))
        half = 140_000  # one chunk over 131,072 characters, then the rest
        rows = [ExportedChunk(path, doc_id, 0, half, text[:half], text[:half], 1, (), "fixed", "{}", "x"),
                ExportedChunk(path, doc_id, half, len(text), text[half:], text[half:], 1, (), "fixed", "{}", "x")]
        export = tmp_path / "chunks.csv"
        write_chunk_export(rows, export, "csv")
        code, out, err = run_cli(capsys, "cuts", "edit", "long", "--base", "plain", "--from-export", export,
                                 "--data-dir", data)
        assert code == 0, err
        code, out, err = run_cli(capsys, "cuts", "show", "long", "--data-dir", data, "--json")
        assert code == 0 and "140000" in out, (out, err)
    finally:
        csv.field_size_limit(old_limit)


# ----- beyond the list: an embedding model folder is read by the same rules --------------------------------
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_model_folder_holding_a_fifo_or_device_is_refused_without_blocking(tmp_path, kind):
    """``--model DIR`` with ``DIR/config.json`` a FIFO hung (sentence-transformers and the model's identity hash
    read it); a weight file linked to /dev/zero would be read forever."""
    model = tmp_path / "model"
    model.mkdir()
    if kind == "fifo":
        os.mkfifo(model / "config.json")
    else:
        (model / "model.safetensors").symlink_to("/dev/zero")
    done = run_child("search", "x", "--model", model, "--data-dir", tmp_path / "data", timeout=20)
    assert done.returncode == 1 and one_line(done.stderr) and "not a regular file" in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()


def test_a_model_s_identity_never_reads_a_fifo():
    import signal
    import tempfile

    from workbench.core.index.embedding import model_identity

    with tempfile.TemporaryDirectory() as folder:
        os.mkfifo(Path(folder) / "config.json")
        old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("blocked")))
        signal.alarm(10)
        try:
            with pytest.raises(RuntimeError, match="FIFO"):
                model_identity(folder)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("command", [["docs"], ["questions", "list"], ["search", "x"], ["index", "README.md"]])
def test_a_fifo_or_device_as_the_data_folder_is_said_to_be_one(capsys, tmp_path, hash_cli, command):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (Path("/dev/null"), "character device")):
        code, _, err = run_cli(capsys, *command, "--data-dir", path)
        assert code == 1 and one_line(err) and f"is a {kind}, not a folder" in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["p"]
