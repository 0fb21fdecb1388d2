"""The store under scarce or shared resources: a full disk and a read-only folder (reads go on, writes are refused
in one line and nothing is lost), a writer waiting for another says so, and a SQLite file of another program is
left untouched. Every condition is made here, on real files; vectors come from the hashed embedder."""

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTS
from test_store_integrity import QUESTIONS, _cli, write_notes

from workbench.core.store import Store, StoreError
from workbench.core.workspace import Workspace

# ----- full disk and read-only folder -----------------------------------------------------------------
FSIZE_RUNNER = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
if sys.argv[2] == "save":
    import numpy as np
    from pathlib import Path
    from workbench.core.store.errors import StoreError
    from workbench.core.index.vectors import VectorIndex
    x = np.random.default_rng(0).normal(size=(3000, 64)).astype("float32")
    try:
        VectorIndex.build(np.arange(3000), x, 64).save(Path(sys.argv[3]) / "indexes" / "big.faiss")
    except StoreError as exc:
        print(exc)
        sys.exit(1)
    sys.exit(0)
sys.path.insert(0, sys.argv[3])
from hashed_cli import main
sys.exit(main(sys.argv[4:]))
"""


def test_full_disk_is_one_line_and_loses_nothing(hash_sample_ws, tmp_path):
    """RLIMIT_FSIZE makes every write past the limit fail (EFBIG / short write), as a full disk would."""
    from workbench.core.index.verify import verify_store

    data = hash_sample_ws.data_dir
    docs_before = {d["path"] for d in hash_sample_ws.store.documents.rows()}
    hash_sample_ws.close()
    (data / "indexes" / "keep.faiss").write_bytes(b"previous")
    saved = subprocess.run([sys.executable, "-c", FSIZE_RUNNER, str(400_000), "save", str(data)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert saved.returncode == 1 and "the disk is full" in saved.stdout and "nothing was lost" in saved.stdout
    assert not list((data / "indexes").glob("*.tmp*")), "the temporary FAISS file is removed"
    new = write_notes(tmp_path / "more", "more", 40)
    run = subprocess.run([sys.executable, "-c", FSIZE_RUNNER, str(64_000), "cli", str(TESTS), "index",
                          str(new[0].parent), "--data-dir", str(data), "--quiet"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "nothing was lost" in run.stderr and "MB free" in run.stderr
    assert not list((data / "indexes").glob("*.tmp*"))
    ws = Workspace(data, embedder=hash_sample_ws.embedder)
    assert ws.store.db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert docs_before <= {d["path"] for d in ws.store.documents.rows()}
    assert verify_store(ws)["consistent"]
    ws.close()


def _without_root_powers() -> tuple[str, ...]:
    """As root, run children without the capability that ignores file permissions (CI runs as root)."""
    if os.geteuid() != 0:
        return ()
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: cannot make a folder read-only")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--")


@pytest.mark.slow
def test_read_only_data_folder_reads_and_refuses_writes(hash_sample_ws, tmp_path):
    data = hash_sample_ws.data_dir
    hash_sample_ws.close()
    assert not list(data.glob("*-wal")) and not list(data.glob("*-shm")), "a cleanly closed store"
    before = (data / "workbench.sqlite3").read_bytes()
    prefix = _without_root_powers()
    new = write_notes(tmp_path / "more", "more", 1)
    os.chmod(data / "indexes", 0o555)
    os.chmod(data, 0o555)
    try:
        for args in (["docs"], ["search", "How do I flush the cache?"], ["verify"]):
            done = _cli(*args, "--data-dir", str(data), "--quiet", prefix=prefix)
            assert done.returncode == 0, (args, done.stderr)
        assert "deploy-guide.md" in _cli("docs", "--data-dir", str(data), prefix=prefix).stdout
        refused = _cli("index", str(new[0]), "--data-dir", str(data), "--quiet", prefix=prefix)
        assert refused.returncode == 1
        assert f"the data folder {data} is read-only" in refused.stderr
        assert "backup" not in refused.stderr and "Traceback" not in refused.stderr
    finally:
        os.chmod(data, 0o755)
        os.chmod(data / "indexes", 0o755)
    assert (data / "workbench.sqlite3").read_bytes() == before


# ----- a waiting writer says so -------------------------------------------------------------------------
@pytest.mark.slow
def test_waiting_writer_reports_the_holder_once(hash_ws, tmp_path):
    from workbench.core.jobs import ProgressEvent

    note = write_notes(tmp_path / "n", "n", 1)[0]
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from workbench.core.index.locking import FileLock\n"
         "FileLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(1.5)",
         str(hash_ws.data_dir / "write.lock")], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    events: list[ProgressEvent] = []
    hash_ws.add_paths([str(note)], progress=events.append)
    holder.wait()
    waits = [e for e in events if e.stage == "waiting"]
    assert [e.message for e in waits] == [f"waiting for another writer (pid {holder.pid})…"]
    assert len(hash_ws.store.documents.rows()) == 1


def test_holder_pid_uses_the_held_descriptor(tmp_path, monkeypatch):
    from workbench.core.index.locking import FileLock

    lock, other = FileLock(tmp_path / "write.lock"), FileLock(tmp_path / "write.lock")
    with lock.held():
        opened = []
        real = os.open
        monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a[0]) or real(*a, **k))
        assert lock.holder_pid() == other.holder_pid() == os.getpid()
        assert not other.is_busy(), "every FileLock on the path in this thread shares the hold"
        assert opened == [], "no second descriptor on a held lock file"


def test_a_foreign_sqlite_file_is_left_untouched(tmp_path):
    """Another program's database (rollback journal, its own tables) is refused before anything is written:
    its bytes, its journal mode and the folder stay as they were."""
    path = tmp_path / "workbench.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users (name) VALUES ('ada')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="another program .*users.*left untouched"):
        Store(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["workbench.sqlite3"]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MB tmpfs (needs root's mount; skipped where it is not allowed), unmounted afterwards."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
                                           capture_output=True).returncode:
        pytest.skip("mounting a small tmpfs needs root")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> None:
    """Fill the disk. Unbuffered: a last write that fits only in part leaves nothing for ``close`` to flush (a
    buffered file raised 'No space left' on closing, depending on how much room the store's files had left)."""
    with open(folder / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
        except OSError:
            pass


def test_search_reads_on_a_full_disk_and_writes_are_refused_in_words(small_disk, hash_embedder):
    """A cleanly closed store on a full disk: SQLite cannot create its shared-memory file, yet searching
    (which only reads; its cache writes are skipped) works, and a write says the disk is full."""
    from conftest import SAMPLE

    data = small_disk / "data"
    ws = Workspace(data, embedder=hash_embedder)
    ws.add_paths([str(SAMPLE)])
    ws.search(QUESTIONS[0], "neighbours")
    ws.close()
    assert not list(data.glob("*-wal")), "the last connection closed cleanly"
    _fill(small_disk)
    ws = Workspace(data, embedder=hash_embedder)
    result = ws.search("a question never asked before: how is the cache flushed?", "neighbours")
    assert result.passages
    assert "disk is full" in (ws.store.refusal or "")
    with pytest.raises(StoreError, match="disk is full"):
        ws.add_paths([str(SAMPLE)])
    ws.close()


def test_search_after_a_failed_build_on_a_full_disk_reads_the_last_complete_set(small_disk, hash_embedder, tmp_path):
    """Documents stored but their chunk set not brought up to date (an index that failed on a full disk left
    the set 'building'): a search cannot write the update, so it reads the set as it was last complete and
    says so, instead of failing with 'disk is full'."""
    from conftest import SAMPLE

    data = small_disk / "data"
    ws = Workspace(data, embedder=hash_embedder)
    ws.add_paths([str(SAMPLE)])
    before = ws.search(QUESTIONS[0], "plain")
    more = write_notes(tmp_path / "more", "more", 20)
    ws.add_documents([str(more[0].parent)])  # stored, not yet chunked into the set
    ws.store.sets.set_state(before.set_id, "building")  # as the failed build left it
    _fill(small_disk)
    result = ws.search(QUESTIONS[0], "plain")
    assert [h.chunk_id for h in result.hits] == [h.chunk_id for h in before.hits]
    assert any("could not be brought up to date because the disk is full" in w for w in result.warnings)
    ws.close()
    again = Workspace(data, embedder=hash_embedder)
    assert again.search(QUESTIONS[1], "plain").passages, "a new process reads it too"
    again.close()
