"""Reliability: a messy folder of bad input, corrupted stores, a writer lock, background indexing
while searching. Every fault is generated here (no committed binaries)."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE
from pdfgen import make_pdf

from workbench.core.index.locking import FileLock, LockBusy
from workbench.core.index.verify import verify_store
from workbench.core.jobs import ProgressEvent
from workbench.core.store import Store, StoreError


def make_messy_folder(root: Path) -> dict[str, str]:
    """Write every kind of bad input next to good files; returns {name: expected status}."""
    root.mkdir(parents=True, exist_ok=True)
    expected = {}

    def put(name, data, status):
        (root / name).write_bytes(data)
        expected[name] = status

    put("good.md", b"# Good\n\nA normal document about tea and biscuits.", "indexed")
    put("zero.txt", b"", "skipped")
    put("binary.txt", bytes(range(256)) * 40, "failed")
    put("invalid-utf8.txt", b"caf\xe9 au lait, cr\xe8me br\xfbl\xe9e", "indexed")
    put("utf16.txt", "UTF-16 text with a BOM: ü".encode("utf-16"), "indexed")
    put("only-headings.md", b"# One\n\n## Two\n\n### Three\n", "indexed")
    put("long-line.txt", (b"word " * 40_000).strip(), "indexed")
    put("scripts.html", b"<html><head><script>steal()</script></head><body><h1>T</h1><p>Visible"
                        b" text<img src='http://example.invalid/x.png'></p></body></html>", "indexed")
    put("malformed.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ntrailer garbage", "failed")
    make_pdf([[]], root / "no-text-layer.pdf")
    expected["no-text-layer.pdf"] = "failed"
    from pypdf import PdfReader, PdfWriter

    plain = make_pdf([["secret text"]], root / "tmp-plain.pdf")
    writer = PdfWriter()
    for page in PdfReader(str(plain)).pages:
        writer.add_page(page)
    writer.encrypt("a-password")
    with open(root / "encrypted.pdf", "wb") as fh:
        writer.write(fh)
    plain.unlink()
    expected["encrypted.pdf"] = "failed"
    with open(root / "huge.txt", "wb") as fh:  # 50 MB, over the default 20 MB limit
        fh.truncate(50_000_000)
        fh.seek(0)
        fh.write(b"huge " * 1000)
    expected["huge.txt"] = "skipped"
    (root / "loop").mkdir()
    os.symlink(root, root / "loop" / "back-to-root")
    return expected


def test_messy_folder_reports_every_file_and_indexes_the_rest(hash_ws, tmp_path):
    expected = make_messy_folder(tmp_path / "messy")
    report = hash_ws.add_paths([str(tmp_path / "messy")])
    status = {Path(p).name: "indexed" for p in report.added}
    status |= {Path(r.path).name: "skipped" for r in report.skipped}
    status |= {Path(r.path).name: "failed" for r in report.failed}
    assert status == expected
    reasons = {Path(r.path).name: r.reason for r in report.failed + report.skipped}
    assert "binary" in reasons["binary.txt"]
    assert "encrypted" in reasons["encrypted.pdf"]
    assert "no text layer" in reasons["no-text-layer.pdf"]
    assert "malformed" in reasons["malformed.pdf"]
    assert "too large" in reasons["huge.txt"] and "--max-file-mb" in reasons["huge.txt"]
    html = next(d for d in hash_ws.store.documents.rows() if d["path"].endswith("scripts.html"))
    text = hash_ws.corpus.doc_text(html["id"])
    assert "steal()" not in text and "example.invalid" not in text and "Visible text" in text
    assert verify_store(hash_ws)["consistent"]


def test_file_deleted_mid_index_is_reported(hash_ws, tmp_path):
    folder = tmp_path / "vanishing"
    folder.mkdir()
    for i in range(4):
        (folder / f"doc{i}.md").write_text(f"# Doc {i}\n\nText number {i}.")
    victim = folder / "doc3.md"

    def delete_during_reading(ev: ProgressEvent):
        if ev.stage == "reading" and victim.exists():
            victim.unlink()

    report = hash_ws.add_paths([str(folder)], progress=delete_during_reading)
    assert len(report.added) == 3
    assert [Path(r.path).name for r in report.failed] == ["doc3.md"]
    assert "disappeared" in report.failed[0].reason


def test_unreadable_file_is_reported(tmp_path):
    """Root reads every file, so as root the load runs in a child without the DAC-override capabilities."""
    folder = tmp_path / "perm"
    folder.mkdir()
    (folder / "open.md").write_text("# Open\n\nreadable")
    (folder / "locked.md").write_text("# Locked\n\nsecret")
    os.chmod(folder / "locked.md", 0o000)
    code = ("import json,sys; from workbench.core.ingest.discovery import load_paths; "
            "print(json.dumps([[r.path.split('/')[-1], r.status, r.reason] for r in load_paths([sys.argv[1]])]))")
    cmd = [sys.executable, "-c", code, str(folder)]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: cannot make a file unreadable")
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rows = {name: (status, reason) for name, status, reason in json.loads(proc.stdout)}
    assert rows["open.md"][0] == "ok"
    assert rows["locked.md"] == ("failed", "permission denied")


def test_corrupted_database_gets_a_clear_message_and_is_not_overwritten(tmp_path):
    path = tmp_path / "workbench.sqlite3"
    Store(path).close()
    data = bytearray(path.read_bytes())
    data[100:] = b"\xde\xad\xbe\xef" * ((len(data) - 100) // 4 + 1)
    path.write_bytes(bytes(data[: len(data)]))
    before = path.read_bytes()
    with pytest.raises(StoreError) as exc:
        Store(path)
    assert str(path) in str(exc.value)
    assert path.read_bytes() == before


def test_writer_lock_is_exclusive_across_threads_and_processes(tmp_path):
    lock = FileLock(tmp_path / "write.lock")
    with lock.held():
        assert not lock.is_busy(), "the holder itself is not blocked"
        seen = []
        t = threading.Thread(target=lambda: seen.append(lock.is_busy()))
        t.start()
        t.join()
        assert seen == [True]
        code = ("import sys; from workbench.core.index.locking import FileLock, LockBusy\n"
                "try:\n FileLock(sys.argv[1]).acquire(timeout=0.2); print('got')\n"
                "except LockBusy: print('busy')")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "write.lock")], capture_output=True,
                             text=True, cwd=ROOT).stdout.strip()
        assert out == "busy"
    other = FileLock(tmp_path / "write.lock")
    other.acquire(timeout=1)
    other.release()
    with pytest.raises(LockBusy), lock.held(), threading_acquire(other):
        pass


class threading_acquire:  # noqa: N801 - reads like a function in the with statement
    """Try to take ``lock`` from another thread with no wait; raise LockBusy in the caller if refused."""

    def __init__(self, lock):
        self.lock = lock

    def __enter__(self):
        errors = []

        def run():
            try:
                self.lock.acquire(timeout=0)
                self.lock.release()
            except LockBusy as exc:
                errors.append(exc)

        t = threading.Thread(target=run)
        t.start()
        t.join()
        if errors:
            raise errors[0]

    def __exit__(self, *exc):
        return False


@pytest.mark.slow
def test_search_during_background_indexing_sees_a_complete_chunk_set(hash_sample_ws, tmp_path):
    """A thread indexes new documents while the main thread keeps searching: every result is consistent."""
    extra = tmp_path / "extra"
    extra.mkdir()
    for i in range(12):
        (extra / f"note{i}.md").write_text(f"# Note {i}\n\n" + f"Fermentation step {i} needs patience. " * 30)
    before = hash_sample_ws.search("How do I flush the cache?", "neighbours")
    errors = []

    def index():  # slowed at every step (as the real model's embedding is), so the searches run meanwhile
        try:
            hash_sample_ws.add_paths([str(extra)], progress=lambda _ev: time.sleep(0.05))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    t = threading.Thread(target=index)
    t.start()
    searches = 0
    while t.is_alive() or searches == 0:
        res = hash_sample_ws.search("How do I flush the cache?", "neighbours")
        for p in res.passages:
            text = hash_sample_ws.corpus.doc_text(p.span.doc_id)
            assert 0 <= p.span.start < p.span.end <= len(text)
        assert res.passages[0].span == before.passages[0].span
        searches += 1
    t.join()
    assert not errors and searches > 1
    after = hash_sample_ws.search("fermentation patience", "plain")
    assert "Fermentation" in hash_sample_ws.corpus.doc_text(after.passages[0].span.doc_id)
    assert verify_store(hash_sample_ws)["consistent"]


def test_newer_schema_via_cli_is_one_line(tmp_path, capsys):
    from workbench.cli import main
    from workbench.core.store.schema import SCHEMA_VERSION

    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "workbench.sqlite3")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    assert main(["docs", "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert "newer Chunk Workbench" in err and len(err.strip().splitlines()) == 1


def test_sample_dir_is_untouched_by_indexing(hash_sample_ws):
    names = sorted(p.name for p in SAMPLE.iterdir())
    assert "workbench.sqlite3" not in names
