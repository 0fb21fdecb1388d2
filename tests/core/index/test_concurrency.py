"""Several processes on one data folder at once (the process boundary is the point here): creating or upgrading
a store, indexing into it, writing while others search and evaluate. Nothing may fail or be lost, and no
message may claim damage that is not there."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE

from workbench.core.store import DB_NAME
from workbench.core.store.schema import MIGRATIONS, SCHEMA_VERSION

TESTS = Path(__file__).parents[2]
PROCESSES = 6


def _older_store(path: Path, version: int) -> None:
    """An empty store as schema ``version`` of the workbench left it (its migrations applied, no later ones)."""
    import sqlite_utils

    db = sqlite_utils.Database(path)
    for step in MIGRATIONS[:version]:
        step(db)
    db.execute(f"PRAGMA user_version = {version}")
    db.close()


def _start_together(tmp_path: Path, scripts: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """Run each script in its own interpreter; each imports what it needs, says it is ready, and waits for
    the others, so the part under test starts in every process at the same moment."""
    go = tmp_path / f"go-{time.monotonic_ns()}"
    procs = []
    for number, body in enumerate(scripts):
        ready = tmp_path / f"{go.name}-ready-{number}"
        code = textwrap.dedent(f"""
            import sys, time, pathlib
            sys.path.insert(0, {str(TESTS)!r})
            from workbench.core.store import Store
            from workbench.core.workspace import Workspace
            from fake_embedder import HashEmbedder
            pathlib.Path({str(ready)!r}).touch()
            while not pathlib.Path({str(go)!r}).exists():
                time.sleep(0.002)
        """) + textwrap.dedent(body)
        procs.append((ready, subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, text=True,
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    deadline = time.monotonic() + 120
    while not all(r.exists() for r, _ in procs) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    results = []
    for _, proc in procs:
        out, err = proc.communicate(timeout=300)
        results.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return results


@pytest.mark.parametrize("version", [0, *range(1, SCHEMA_VERSION)])
@pytest.mark.slow
def test_processes_creating_or_upgrading_one_store_all_succeed(tmp_path, version):
    """Schema creation and each migration step run under SQLite's write lock, re-reading the version inside:
    six processes opening a new folder (or one at every older schema) at once all open it and can write."""
    db = tmp_path / DB_NAME
    if version:
        _older_store(db, version)
    body = f"""
        store = Store({str(db)!r})
        store.documents.record_problem("file-%d.txt" % {{n}}, "skipped", "a test")
        print(store.db.execute("PRAGMA user_version").fetchone()[0])
    """
    results = _start_together(tmp_path, [body.replace("{n}", str(n)) for n in range(PROCESSES)])
    for r in results:
        assert r.returncode == 0 and r.stdout.strip() == str(SCHEMA_VERSION), r.stderr
        assert "move the data folder" not in r.stderr
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM problems").fetchone()[0] == PROCESSES
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


@pytest.mark.slow
def test_two_index_runs_into_an_empty_folder_keep_both_folders(tmp_path):
    """Two processes indexing different folders into one new data folder: every file of both is stored."""
    folders = []
    for name, files in (("left", ["deploy-guide.md", "lab-safety.md"]), ("right", ["transit-prices.md"])):
        folder = tmp_path / name
        folder.mkdir()
        for f in files:
            (folder / f).write_bytes((SAMPLE / f).read_bytes())
        folders.append(folder)
    data = tmp_path / "data"
    body = """
        ws = Workspace({data!r}, embedder=HashEmbedder())
        report = ws.add_paths([{folder!r}])
        print(len(report.added), len(report.failed))
    """
    results = _start_together(tmp_path, [body.format(data=str(data), folder=str(f)) for f in folders])
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    from fake_embedder import HashEmbedder

    from workbench.core.workspace import Workspace

    ws = Workspace(data, embedder=HashEmbedder())
    stored = sorted(Path(d["path"]).name for d in ws.store.documents.rows())
    assert stored == ["deploy-guide.md", "lab-safety.md", "transit-prices.md"]
    ws.close()


SOAK_SECONDS = float(os.environ.get("WORKBENCH_SOAK_S", "10"))  # WORKBENCH_SOAK_S=300 for a long soak


@pytest.mark.slow
def test_a_writer_beside_searches_and_evaluations_fails_no_job(tmp_path):
    """The window's writer (indexing, re-chunking, removing) beside CLI-like readers (searches and evals in
    other processes), for ``SOAK_SECONDS``: every job finishes, none says 'locked', 'damaged' or 'verify'."""
    from eval_support import sample_questions
    from fake_embedder import HashEmbedder

    from workbench.core.evaluate.datasets import save_question_set
    from workbench.core.workspace import Workspace

    data = tmp_path / "data"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for f in SAMPLE.iterdir():
        if f.suffix in (".md", ".txt"):
            (corpus / f.name).write_bytes(f.read_bytes())
    ws = Workspace(data, embedder=HashEmbedder())
    ws.add_paths([str(corpus)])
    ws.close()
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    until = time.time() + SOAK_SECONDS
    writer = f"""
        import json, random
        from workbench.core.ingest.values import ChunkConfig
        ws = Workspace({str(data)!r}, embedder=HashEmbedder())
        jobs = failed = 0
        errors = []
        extra = pathlib.Path({str(corpus)!r}) / "churn.md"
        rng = random.Random(1)
        while time.time() < {until}:
            jobs += 1
            try:
                extra.write_text("# Churn\\n\\n" + " ".join(rng.choice(["alpha", "beta", "gamma"]) for _ in range(300)))
                ws.add_paths([{str(corpus)!r}])
                ws.sets.ensure_chunk_set(ChunkConfig(size=rng.choice([60, 80, 100, 120])))
                if rng.random() < 0.5:
                    extra.unlink()
                    ws.add_paths([{str(corpus)!r}])
            except Exception as exc:
                failed += 1
                errors.append(repr(exc))
        print(json.dumps({{"jobs": jobs, "failed": failed, "errors": errors[:3]}}))
    """
    reader = f"""
        import json
        from workbench.core.evaluate.datasets import load_question_set
        from workbench.core.evaluate.records import save_run
        from workbench.core.evaluate.sweep import expand_grid, run_sweep
        from workbench.core.retrieve.strategy.presets import resolve
        ws = Workspace({str(data)!r}, embedder=HashEmbedder())
        qset = load_question_set({str(tmp_path / "qs")!r})
        jobs = failed = 0
        errors = []
        n = 0
        while time.time() < {until}:
            jobs += 1
            n += 1
            try:
                if n % 3:  # a new question each time: its vector is written to the cache
                    ws.search(f"How do I roll back deployment number {{n}}?",
                              resolve({{"preset": "neighbours", "size": 60 + 20 * (n % 4)}}))
                else:  # an evaluation, recorded like the CLI's
                    save_run(ws, qset, run_sweep(ws, qset, expand_grid(["plain"], "window=0,1 chunk_size=80")))
            except Exception as exc:
                failed += 1
                errors.append(repr(exc))
        print(json.dumps({{"jobs": jobs, "failed": failed, "errors": errors[:3]}}))
    """
    results = _start_together(tmp_path, [writer, reader, reader])
    counts = []
    for r in results:
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout.strip().splitlines()[-1])
        counts.append(report)
        assert report["failed"] == 0, report["errors"]
    assert all(c["jobs"] >= 2 for c in counts), counts
    print("soak:", counts)


@pytest.mark.slow
def test_a_search_waits_for_a_writer_between_saving_an_index_and_recording_it(hash_sample_ws):
    """A writer has replaced a chunk set's FAISS file and records its digest 3 s later (as a slow commit
    would): a reader with nothing loaded waits (saying so) and then searches; it never calls the file damaged."""
    import threading

    import numpy as np

    from workbench.core.index.build import index_path
    from workbench.core.index.vectors import VectorIndex
    from workbench.core.jobs import ProgressEvent
    from workbench.core.retrieve.strategy.presets import resolve
    from workbench.core.workspace import Workspace

    ws = hash_sample_ws
    strategy = resolve("plain")
    set_id = ws.sets.ensure_chunk_set(strategy.chunk).id
    path = index_path(ws.data_dir, set_id)
    current = VectorIndex.load(path)
    ids = current.ids()
    replacement = VectorIndex.build(ids, current.vectors_for(ids)[::-1].copy(), ws.embedder.dim)
    held, recorded = threading.Event(), []

    def writer() -> None:
        with ws.writer.held():
            replacement.save(path, before_rename=lambda sha, size: recorded.append((sha, size)))
            held.set()
            time.sleep(3.0)
            ws.store.sets.prepare_index_file(set_id, *recorded[0])
            ws.store.sets.commit_index_file(set_id)

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait(30)
    reader = Workspace(ws.data_dir, embedder=ws.embedder)  # nothing loaded yet
    heard: list[ProgressEvent] = []
    started = time.monotonic()
    result = reader.search("How do I roll back a bad deployment?", strategy, progress=heard.append)
    waited = time.monotonic() - started
    thread.join()
    assert result.passages and waited >= 2.5
    assert any("waiting for another writer" in e.message for e in heard)
    assert np.array_equal(reader.sets.runtime(set_id).index.ids(), ids)
    reader.close()


def test_locked_is_said_as_locked_and_damage_only_when_sqlite_found_it(tmp_path):
    """The words for SQLite's errors: a database another process holds is 'busy' (never 'cannot be read …
    run verify' or 'move the data folder away'); only SQLite's own damage report says damaged."""
    from workbench.core.store.errors import database_failure, open_error

    path = tmp_path / DB_NAME
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, timeout=0.1)
    with pytest.raises(sqlite3.OperationalError) as locked:
        other.execute("INSERT INTO t VALUES (1)")
    holder.execute("ROLLBACK")
    busy = database_failure(locked.value, tmp_path)
    assert "busy" in busy and "another process" in busy and "verify" not in busy and "damaged" not in busy
    exists = sqlite3.OperationalError("table documents already exists")
    assert "move the data folder" not in str(open_error(path, exists))
    assert "left untouched" in str(open_error(path, exists))
    corrupt = sqlite3.DatabaseError("database disk image is malformed")
    assert "damage" in database_failure(corrupt, tmp_path) and "verify" in database_failure(corrupt, tmp_path)
    other.close()
    holder.close()
