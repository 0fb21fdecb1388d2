"""The library tells the truth: what the data folder holds reaches the library (and the lab's documents) when
any job changes it — the command line in another process, or a job of this window that is not the library's
own (a lab sweep indexing its corpora) — not only after the library's own jobs or a restart."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ui_support import WAIT_MS

pytest_plugins = ["ui_support"]
TESTS = Path(__file__).resolve().parents[2]


def _listed(window) -> set[str]:
    return {Path(r["path"]).name for r in window.library.table.rows() if r["doc_id"] is not None}


def _stored(ws) -> set[str]:
    return {Path(d["path"]).name for d in ws.records.documents()}


def _cli(*args: str) -> None:
    done = subprocess.run([sys.executable, str(TESTS / "hashed_cli.py"), *args, "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_library_follows_another_process_adding_and_removing_documents(qtbot, make_window, hash_sample_ws,
                                                                          tmp_path):
    window = make_window(hash_sample_ws)
    before = _listed(window)
    assert before == _stored(hash_sample_ws) and before
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "late-arrival.md").write_text("# Late\n\nA document the command line indexed while the window was "
                                           "open, about caching of build artefacts.\n")
    documents = []
    window.model.documentsChanged.connect(lambda: documents.append(True))
    _cli("index", str(extra), "--data-dir", str(hash_sample_ws.data_dir))
    assert _listed(window) == before, "nothing read yet: the window learns at its next poll"
    assert window.folder_watch.poll()  # what the timer and the window's activation call
    assert _listed(window) == _stored(hash_sample_ws) == before | {"late-arrival.md"}
    assert documents and f"{len(before) + 1} document(s)" in window.library.summary.text()
    assert not window.folder_watch.poll(), "nothing moved since: no second read"

    _cli("remove", str(extra / "late-arrival.md"), "--data-dir", str(hash_sample_ws.data_dir))
    window.folder_watch.poll()
    assert _listed(window) == before


def test_the_library_follows_a_job_of_the_window_that_is_not_its_own(qtbot, make_window, hash_sample_ws, tmp_path):
    """As a lab sweep indexes its corpora: documents stored by a job on the store queue, not by the library."""
    window = make_window(hash_sample_ws)
    before = _listed(window)
    extra = tmp_path / "corpus"
    extra.mkdir()
    (extra / "sweep-corpus.md").write_text("# Corpus\n\nA corpus a sweep indexes for its questions.\n")
    from workbench.ui.jobs.workers import Worker

    worker = Worker(lambda progress, cancel: hash_sample_ws.add_paths([str(extra)], progress=progress,
                                                                      cancel=cancel))
    with qtbot.waitSignal(worker.signals.finished, timeout=WAIT_MS):
        window.store_jobs.start(worker)
    assert _listed(window) == before | {"sweep-corpus.md"}


def test_the_folder_is_read_when_the_window_comes_back_to_the_front(qtbot, make_window, hash_sample_ws, tmp_path):
    from PySide6.QtCore import Qt

    window = make_window(hash_sample_ws)
    assert window.folder_watch.timer.isActive()
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "while-away.md").write_text("# Away\n\nIndexed while another application was in front.\n")
    _cli("index", str(extra), "--data-dir", str(hash_sample_ws.data_dir))
    window.folder_watch._state_changed(Qt.ApplicationState.ApplicationActive)
    assert "while-away.md" in _listed(window)
