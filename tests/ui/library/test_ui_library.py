"""The library panel: index through drag-and-drop with progress, statuses with reasons and chunk counts,
cancel a run (the store stays consistent), remove and re-index."""

from __future__ import annotations

import random
import shutil

from conftest import SAMPLE
from ui_support import WAIT_MS

from workbench.core.index.verify import verify_store

pytest_plugins = ["ui_support"]


def _drop(panel, paths) -> None:
    """Drop local paths on the panel, as a file manager would."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(panel.rect().center(), Qt.DropAction.CopyAction, mime,  # QPoint in Qt 6
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(panel.rect().center()), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.dropEvent(drop)


def test_drop_a_folder_indexes_it_in_the_background(qtbot, make_window, hash_ws, tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(SAMPLE, folder)
    (folder / "empty.md").write_text("")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    window = make_window(hash_ws)
    lib = window.library
    events = []
    lib.progress.bar.valueChanged.connect(lambda _v: events.append(lib.progress.detail.text()))
    with qtbot.waitSignal(lib.indexingFinished, timeout=WAIT_MS) as done:
        _drop(lib, [folder])
        assert lib.progress.isVisible() and not lib.add_files.isEnabled()
    report = done.args[0]
    assert len(report.added) == 6 and not lib.progress.isVisible()
    assert any("chunks" in e for e in events) and any("documents" in e for e in events)
    rows = {r["title"]: r for r in lib.table.rows()}
    assert rows["empty.md"]["status"] == "skipped" and rows["empty.md"]["details"] == "empty file"
    assert rows["broken.pdf"]["status"] == "failed" and "PDF" in rows["broken.pdf"]["details"]
    config = window.compare.a.strategy().chunk
    counts = hash_ws.sets.runtime(hash_ws.sets.find_chunk_set(config).id).doc_row_count
    indexed = [r for r in rows.values() if r["status"] == "indexed"]
    assert len(indexed) == 6
    assert {int(r["doc_id"]): int(r["chunks"]) for r in indexed} == counts
    assert "Indexed: 6 added" in window.statusBar().currentMessage()
    assert hash_ws.sets.find_chunk_set(window.compare.b.strategy().chunk) is not None, "B's chunk set built too"


def _corpus(folder, n: int) -> None:
    rng = random.Random(5)
    words = "river sensor backup deploy column window chunk greenhouse ticket replica schema cache orbit lab"
    words = [*words.split(), "glove", "fare", "night", "express", "tomato", "humidity", "vector", "token"]
    folder.mkdir()
    for i in range(n):
        paras = ["\n".join(" ".join(rng.choice(words) for _ in range(14)) for _ in range(4)) for _ in range(4)]
        (folder / f"note-{i:03d}.md").write_text(f"# Note {i}\n\n" + "\n\n".join(paras))


def test_cancel_indexing_keeps_the_store_consistent(qtbot, make_window, hash_ws, tmp_path, hash_embedder):
    _corpus(tmp_path / "many", 300)
    window = make_window(hash_ws)
    lib = window.library
    encoded = hash_embedder.texts_encoded
    with qtbot.waitSignal(lib.progress.cancelRequested, timeout=WAIT_MS):
        lib.progress.bar.valueChanged.connect(lambda _v: lib.progress.cancel.click())
        lib.index_paths([str(tmp_path / "many")])
    with qtbot.waitSignal(lib.indexingCancelled, timeout=WAIT_MS):
        pass
    assert lib.worker is None and not lib.progress.isVisible() and lib.add_folder.isEnabled()
    assert "cancelled" in window.statusBar().currentMessage()
    assert hash_embedder.texts_encoded - encoded < 300, "stopped before embedding the corpus"
    check = verify_store(hash_ws)
    assert check["consistent"], check["problems"]
    assert hash_ws.sets.find_chunk_set(window.compare.a.strategy().chunk) is None
    assert len(lib.table.rows()) == len(hash_ws.store.documents.rows()) + len(hash_ws.store.documents.problems())


def test_remove_and_reindex_documents(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    lib = window.library
    qtbot.waitUntil(lambda: lib.table.topLevelItemCount() == 6, timeout=WAIT_MS)
    target = lib.table.topLevelItem(1)
    title = target.text(0)
    lib.table.setCurrentItem(target)
    assert lib.remove.isEnabled()
    lib.confirm = lambda _text: True  # the person confirms the removal
    with qtbot.waitSignal(lib.libraryChanged, timeout=WAIT_MS):
        lib.remove.click()
    assert title not in [r["title"] for r in lib.table.rows()]
    assert len(hash_sample_ws.store.documents.rows()) == 5
    lib.table.setCurrentItem(lib.table.topLevelItem(0))
    path = lib.table.selected()[0]["path"]
    with qtbot.waitSignal(lib.indexingFinished, timeout=WAIT_MS) as done:
        lib.reindex.click()
    assert done.args[0].unchanged == [path]
