"""Store integrity under hostile conditions: two processes on one data folder, damaged FAISS and SQLite
files, a schema upgrade (a full disk, a read-only folder and a foreign file: ``test_store_resources.py``).
Every fault is made here, on real files. Vectors come from the hashed embedder (``fake_embedder``), in child
processes too (``tests/hashed_cli.py``): the store is the point."""

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, TESTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.index.vectors import IndexDamaged, VectorIndex
from workbench.core.store import Store, StoreError
from workbench.core.workspace import Workspace


def write_notes(folder: Path, prefix: str, n: int) -> list[Path]:
    """``n`` small distinct markdown notes."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        f = folder / f"{prefix}{i:03d}.md"
        f.write_text(f"# {prefix} note {i}\n\n" + f"The {prefix} topic number {i} concerns item {i * 7}. " * 12)
        out.append(f)
    return out


@pytest.mark.slow
def test_gui_and_cli_on_one_data_folder_keep_the_store_whole(tmp_path, hash_embedder):
    """A Workspace with worker threads (each with its own Store, as the GUI has) keeps writing while a
    `workbench index` subprocess writes other files into the same data folder."""
    data = tmp_path / "data"
    mine = write_notes(tmp_path / "gui", "gui", 80)
    theirs = write_notes(tmp_path / "cli", "cli", 30)
    embedder = hash_embedder
    ws = Workspace(data, embedder=embedder)
    ws.add_paths([str(mine[0])])
    reader_stop = threading.Event()
    reader_errors: list[BaseException] = []

    def second_store_reader() -> None:  # another long-lived connection in this process, like the GUI's
        try:
            store = Store(data / "workbench.sqlite3")
            while not reader_stop.is_set():
                store.documents.rows()
                reader_stop.wait(0.05)
            store.close()
        except BaseException as exc:  # surfaced below
            reader_errors.append(exc)

    reader = threading.Thread(target=second_store_reader)
    reader.start()
    proc = subprocess.Popen(
        [sys.executable, str(TESTS / "hashed_cli.py"), "index", str(tmp_path / "cli"), "--data-dir", str(data),
         "--quiet"],  # its vectors take ~2 s (about the real model's pace): both processes write meanwhile
        cwd=ROOT, env={**os.environ, "WORKBENCH_TEST_EMBED_DELAY": "4"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    worker_errors: list[BaseException] = []
    written = 1
    while proc.poll() is None and written < len(mine) - 1:
        def work(f=mine[written]) -> None:  # a fresh worker thread: a fresh Store on this data folder
            try:
                ws.add_paths([str(f)])
                ws.close()
            except BaseException as exc:  # surfaced below
                worker_errors.append(exc)

        t = threading.Thread(target=work)
        t.start()
        t.join()
        written += 1
        reader_stop.wait(0.1)
    _, err = proc.communicate(timeout=300)
    reader_stop.set()
    reader.join()
    ws.add_paths([str(mine[written])])  # the first process writes again after the other one closed
    written += 1
    ws.close()
    assert not worker_errors and not reader_errors, (worker_errors, reader_errors)
    assert written > 3, "this process wrote while the other one ran"
    assert proc.returncode == 0, err
    conn = sqlite3.connect(data / "workbench.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    paths = {Path(p).name for (p,) in conn.execute("SELECT path FROM documents")}
    conn.close()
    assert paths == {f.name for f in mine[:written]} | {f.name for f in theirs}
    from workbench.core.index.verify import verify_store

    again = Workspace(data, embedder=embedder)
    assert verify_store(again)["consistent"]
    again.close()
    assert os.path.exists(data / "workbench.sqlite3")


# ----- FAISS contents: checksums and impossible scores ------------------------------------------------
def _first_set(ws):
    return ws.store.sets.chunk_sets()[0].id


QUESTIONS = ["How do I flush the cache?", "What should I do after a chemical spill?", "ticket prices for children"]


def _dense(ws, question):
    from workbench.core.retrieve.search import dense_search

    rt = ws.sets.runtime(_first_set(ws))
    return [(h.chunk_id, round(h.score, 5)) for h in dense_search(rt, ws.corpus.query_vector(question), 5)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.floats(0.0, 1.0), damage=st.binary(min_size=1, max_size=4096))
def test_damaged_faiss_file_is_reported_and_never_searched(hash_sample_data_dir, hash_embedder, where, damage):
    """Random bytes at a random place of the FAISS file: verify reports it (or the bytes changed nothing),
    and search results are those of the intact index, with every score in [-1, 1]."""
    from workbench.core.index.verify import verify_store

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(hash_sample_data_dir, data)
        ws = Workspace(data, embedder=hash_embedder)
        baseline = {q: _dense(ws, q) for q in QUESTIONS}
        ws.close()
        faiss_file = next((data / "indexes").glob("*.faiss"))
        original = faiss_file.read_bytes()
        at = int(where * (len(original) - 1))
        damaged = original[:at] + damage + original[at + len(damage):]
        faiss_file.write_bytes(damaged)
        ws = Workspace(data, embedder=hash_embedder)
        report = verify_store(ws)
        assert report["consistent"] == (damaged == original), report
        if damaged != original:
            assert any("checksum" in p for p in report["problems"]), report["problems"]
        for q in QUESTIONS:
            got = _dense(ws, q)
            assert got == baseline[q]
            assert all(-1.001 <= s <= 1.001 for _, s in got)
        assert verify_store(ws)["consistent"], "the search rebuilt the damaged file from cached vectors"
        ws.close()


def test_impossible_scores_never_reach_the_user(tmp_path):
    """A legacy file (no recorded checksum) whose vectors were damaged is caught by its scores."""
    x = np.eye(4, dtype=np.float32)
    x[2] *= 3e18  # what a few random bytes in a float make of a unit vector
    index = VectorIndex.build(np.arange(4), x, 4)
    with pytest.raises(IndexDamaged, match="impossible scores"):
        index.search(np.ones(4, dtype=np.float32) / 2, 3)
    nan = VectorIndex.build(np.arange(2), np.array([[np.nan, 0], [1, 0]], dtype=np.float32), 2)
    try:
        scores, _ = nan.search(np.array([1, 0], dtype=np.float32), 2)
    except IndexDamaged:
        scores = np.zeros(0)
    assert np.isfinite(scores).all(), "a NaN score is either refused or dropped, never returned"


def test_verify_cli_reports_checksum_and_repair_rebuilds(hash_sample_ws, capsys, hash_cli):
    from workbench.cli import main

    data = str(hash_sample_ws.data_dir)
    hash_sample_ws.close()
    faiss_file = next((hash_sample_ws.data_dir / "indexes").glob("*.faiss"))
    raw = bytearray(faiss_file.read_bytes())
    third = len(raw) // 3
    raw[third : third + 4096] = os.urandom(len(raw[third : third + 4096]))
    faiss_file.write_bytes(bytes(raw))
    assert main(["verify", "--data-dir", data]) == 3
    out = capsys.readouterr().out
    assert "INCONSISTENT" in out and "checksum" in out
    assert main(["verify", "--repair", "--data-dir", data]) == 0
    assert "repaired" in capsys.readouterr().out
    assert main(["verify", "--data-dir", data]) == 0


def test_verify_text_prints_its_notes(hash_sample_ws, capsys, hash_cli):
    from workbench.cli import main
    from workbench.core.ingest.values import ChunkConfig

    hash_sample_ws.store.sets.ensure_chunk_set_row(ChunkConfig(size=33), hash_sample_ws.embedder.model_id)
    data = str(hash_sample_ws.data_dir)
    hash_sample_ws.close()
    assert main(["verify", "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "note:" in out and "incomplete" in out


def test_schema_upgrade_records_migration_and_legacy_faiss_is_rebuilt(hash_sample_ws):
    """A v2 store (no checksums, a full-text table) opens as v5: its FAISS file is rebuilt once and then
    recorded, and the stored full-text table is gone (BM25 is scored in memory)."""
    from workbench.core.index.verify import verify_store
    from workbench.core.store.schema import SCHEMA_VERSION

    data = hash_sample_ws.data_dir
    set_id = _first_set(hash_sample_ws)
    hash_sample_ws.close()
    conn = sqlite3.connect(data / "workbench.sqlite3")
    conn.execute("DROP TABLE index_files")
    conn.execute("CREATE VIRTUAL TABLE chunk_fts USING fts5(text, tokenize = 'porter unicode61')")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    ws = Workspace(data, embedder=hash_sample_ws.embedder)
    assert ws.store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
    assert "chunk_fts" not in ws.store.db.table_names()
    assert ws.store.sets.index_checksums(set_id) == set()
    report = verify_store(ws)  # its contents are checked by ids and a probe: consistent, with a note
    assert report["consistent"], report["problems"]
    assert any("written by an older version" in n and "probe" in n for n in report["notes"])
    assert _dense(ws, QUESTIONS[0])
    assert len(ws.store.sets.index_checksums(set_id)) == 1
    assert verify_store(ws)["consistent"]
    ws.close()


# ----- a damaged database is not written to ---------------------------------------------------------
def _damage(db: Path, at: float, size: int = 65536, seed: int = 5) -> bytes:
    """``size`` random bytes written at fraction ``at`` of the file (page 1 spared)."""
    raw = bytearray(db.read_bytes())
    start = max(8192, min(int(len(raw) * at), len(raw) - size))
    raw[start : start + size] = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()
    db.write_bytes(bytes(raw))
    return db.read_bytes()


def _cli(*args, env=None, prefix=()):
    """``workbench ARGS`` as a process of its own (its exit code and stderr are the point), hashed embedder."""
    return subprocess.run([*prefix, sys.executable, str(TESTS / "hashed_cli.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("at", [0.35, 0.67])
@pytest.mark.slow
def test_damaged_database_refuses_writes_and_repair_says_it_cannot(hash_sample_ws, tmp_path, at):
    """64 KB of random bytes inside the SQLite file: where the schema survives, the store opens read-only;
    where it does not, it is not opened at all. Either way nothing is written and --repair exits 3."""
    data = hash_sample_ws.data_dir
    hash_sample_ws.close()
    db = data / "workbench.sqlite3"
    before = _damage(db, at)
    new = write_notes(tmp_path / "more", "more", 2)
    indexed = _cli("index", str(new[0].parent), "--data-dir", str(data), "--quiet")
    assert indexed.returncode == 1, indexed
    assert "damaged" in indexed.stderr and "Traceback" not in indexed.stderr
    assert len(indexed.stderr.strip().splitlines()) == 1
    searched = _cli("search", "flush the cache", "--data-dir", str(data), "--quiet")
    assert "Traceback" not in searched.stderr
    repaired = _cli("verify", "--repair", "--data-dir", str(data), "--quiet")
    assert repaired.returncode == 3, repaired
    assert "cannot be repaired" in repaired.stdout and "index your files again" in repaired.stdout
    assert db.read_bytes() == before, "nothing was written to the damaged file"
    try:
        store = Store(db)
    except StoreError as exc:  # the schema itself is unreadable
        assert "damaged" in str(exc) and "left untouched" in str(exc)
    else:
        assert not store.writable and "damaged" in store.refusal and "\n" not in store.refusal
        with pytest.raises(StoreError, match="damaged"):
            store.documents.record_problem("x.txt", "failed", "test")
        store.close()


def test_not_a_database_is_recognised_by_sqlite_without_another_descriptor(tmp_path, monkeypatch):
    """The header check goes through SQLite: no Python-level open() of the database file."""
    import builtins

    path = tmp_path / "workbench.sqlite3"
    path.write_bytes(b"SQLite formaX 3\x00" + b"\x00" * 4000)
    real_open = builtins.open
    opened = []
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    with pytest.raises(StoreError, match="not a SQLite database; it was left untouched"):
        Store(path)
    good = Store(tmp_path / "good.sqlite3")
    Store(tmp_path / "good.sqlite3").close()
    good.close()
    assert not [f for f in opened if "sqlite3" in f], opened
