"""Store integrity under hostile conditions: two processes on one data folder, damaged FAISS and SQLite
files, a full disk and a read-only folder. Every fault is made here, on real files."""

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from conftest import ROOT

from workbench.core.store import Store
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


def test_gui_and_cli_on_one_data_folder_keep_the_store_whole(tmp_path, embedder):
    """A Workspace with worker threads (each with its own Store, as the GUI has) keeps writing while a
    `workbench index` subprocess writes other files into the same data folder."""
    data = tmp_path / "data"
    mine = write_notes(tmp_path / "gui", "gui", 80)
    theirs = write_notes(tmp_path / "cli", "cli", 30)
    ws = Workspace(data, embedder=embedder)
    ws.add_paths([str(mine[0])])
    reader_stop = threading.Event()
    reader_errors: list[BaseException] = []

    def second_store_reader() -> None:  # another long-lived connection in this process, like the GUI's
        try:
            store = Store(data / "workbench.sqlite3")
            while not reader_stop.is_set():
                store.documents()
                reader_stop.wait(0.05)
            store.close()
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            reader_errors.append(exc)

    reader = threading.Thread(target=second_store_reader)
    reader.start()
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "index", str(tmp_path / "cli"), "--data-dir", str(data), "--quiet"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    worker_errors: list[BaseException] = []
    written = 1
    while proc.poll() is None and written < len(mine) - 1:
        def work(f=mine[written]) -> None:  # a fresh worker thread: a fresh Store on this data folder
            try:
                ws.add_paths([str(f)])
                ws.close()
            except BaseException as exc:  # noqa: BLE001 - surfaced below
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
    assert proc.returncode == 0, err
    conn = sqlite3.connect(data / "workbench.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    paths = {Path(p).name for (p,) in conn.execute("SELECT path FROM documents")}
    conn.close()
    assert paths == {f.name for f in mine[:written]} | {f.name for f in theirs}
    from workbench.core.verify import verify_store

    again = Workspace(data, embedder=embedder)
    assert verify_store(again)["consistent"]
    again.close()
    assert os.path.exists(data / "workbench.sqlite3")
