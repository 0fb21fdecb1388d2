"""Background jobs seen from the window (pytest-qt, offscreen, a slowed hashed embedder): indexing says it is
embedding while it embeds, and closing the window while a chunk set is built cancels it quietly, leaving a
store the next build completes."""

from __future__ import annotations

import time

import pytest
from conftest import SAMPLE
from fake_embedder import HashEmbedder
from ui_support import WAIT_MS

from workbench.core.jobs import Cancelled

pytest_plugins = ["ui_support"]


class SlowEmbedder(HashEmbedder):
    """The hashed embedder at about 200 texts a second (the real model embeds 15–25 a second on a laptop),
    honouring cancel between texts and, like the real one, reporting progress only when a batch is done."""

    def encode(self, texts, progress=None, cancel=None):
        for _text in texts:
            if cancel is not None and cancel.cancelled:
                raise Cancelled()
            time.sleep(0.005)
        if progress is not None:
            from workbench.core.jobs import ProgressEvent

            progress(ProgressEvent("embedding", len(texts), len(texts)))
        return super().encode(texts)


@pytest.fixture
def slow_ws(tmp_path):
    from workbench.core.workspace import Workspace

    ws = Workspace(tmp_path / "slow", embedder=SlowEmbedder())
    yield ws
    ws.close()


def test_indexing_one_document_says_it_is_embedding_its_chunks(qtbot, make_window, slow_ws):
    window = make_window(slow_ws)
    lib = window.library
    shown: list[str] = []
    with qtbot.waitSignal(lib.indexingFinished, timeout=WAIT_MS):
        worker = lib.index_paths([str(SAMPLE / "deploy-guide.md")])
        worker.signals.progress.connect(lambda _event: shown.append(lib.progress.detail.text()))
    chunks = len(slow_ws.sets.runtime(slow_ws.sets.find_chunk_set(window.model.chunk_configs()[0]).id).table.starts)
    embedding = [line for line in shown if line.startswith("Embedding chunks")]
    assert embedding, shown
    first = embedding[0]
    assert first.startswith("Embedding chunks 0 / "), "the embedding phase shows before its first chunks are done"
    assert f"/ {chunks:,}" in first or int(first.split("/ ")[1].split()[0].replace(",", "")) >= chunks // 2
    assert shown.index(first) < len(shown) - 1, "progress keeps coming while it embeds"


def test_a_build_due_when_the_window_closes_never_starts(qtbot, make_window, slow_ws, capfd):
    from dataclasses import replace

    from workbench.ui.explore.side_controller import DEBOUNCE_MS
    from workbench.ui.jobs.workers import JobRunner

    assert not slow_ws.add_paths([str(SAMPLE / "deploy-guide.md")]).failed
    window = make_window(slow_ws)
    window.model.set_strategy("A", replace(window.model.strategy("A").with_size(88), name="custom"))
    controller = window.compare.a.controller
    assert controller.building, "a re-chunk is due (debounced)"
    with qtbot.assertNotEmitted(controller.buildStarted, wait=DEBOUNCE_MS + 400):
        window.close()  # before it starts
    assert not any(r.busy for r in window.findChildren(JobRunner)), "a job started after the window closed"
    assert "Traceback" not in capfd.readouterr().err


def test_closing_the_window_while_a_chunk_set_is_built_cancels_it_quietly(qtbot, make_window, slow_ws, capfd):
    from dataclasses import replace

    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    assert not slow_ws.add_paths([str(SAMPLE)]).failed
    window = make_window(slow_ws)
    side = window.compare.a
    new = replace(window.model.strategy("A").with_size(96), name="custom")
    with qtbot.waitSignal(side.controller.buildStarted, timeout=WAIT_MS):
        window.model.set_strategy("A", new)
    qtbot.waitUntil(lambda: side.progress.last_event is not None, timeout=WAIT_MS)  # embedding has begun
    capfd.readouterr()
    started = time.perf_counter()
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    closed_in = time.perf_counter() - started
    out, err = capfd.readouterr()
    assert "Traceback" not in err and "RuntimeError" not in err and "Signal source" not in err, err
    assert closed_in < 30, "closing waited for the cancelled build, not for the whole build"
    assert slow_ws.sets.find_chunk_set(new.chunk) is None, "the cancelled chunk set is not ready"
    info = slow_ws.sets.ensure_chunk_set(new.chunk)  # the next build completes it from what was kept
    assert info.chunk_count > 0 and slow_ws.sets.find_chunk_set(new.chunk) is not None


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("library", [False, True], ids=["library closed", "library open"])
def test_the_divider_between_a_and_b_stays_while_b_re_chunks(qtbot, monkeypatch, make_window, slow_ws, size,
                                                             library):
    from dataclasses import replace

    from PySide6.QtCore import QTimer
    from ui_support import on_screen

    assert not slow_ws.add_paths([str(SAMPLE)]).failed
    screen = on_screen(monkeypatch, *size)
    window = make_window(slow_ws)
    window.setGeometry(screen)
    window.set_library_shown(library)
    window.model.set_side_by_side(True)
    window.compare.set_knobs_shown(True)
    qtbot.wait(50)
    sides = window.compare.sides
    before = sides.sizes()
    seen: list[list[int]] = []
    b = window.compare.b
    b.controller.buildProgress.connect(lambda _e: QTimer.singleShot(0, lambda: seen.append(sides.sizes())))
    with qtbot.waitSignal(b.controller.buildFinished, timeout=WAIT_MS):
        window.model.set_strategy("B", replace(window.model.strategy("B").with_size(72), name="custom"))
    assert seen, "the re-chunk reported its progress"
    moved = [s for s in seen if max(abs(x - y) for x, y in zip(s, before, strict=True)) > 2]
    assert not moved, f"the divider moved from {before} to {moved[0]} while B re-chunked"


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_library_keeps_its_width_while_it_indexes(qtbot, monkeypatch, make_window, slow_ws, size):
    from PySide6.QtCore import QTimer
    from ui_support import on_screen

    screen = on_screen(monkeypatch, *size)
    window = make_window(slow_ws)
    window.setGeometry(screen)
    window.set_library_shown(True)
    qtbot.wait(50)
    lib, split = window.library, window.main_split
    before = split.sizes()
    seen: list[list[int]] = []
    shares: list[int] = []
    phases: set[str] = set()
    bar = lib.progress.bar
    bar.valueChanged.connect(lambda v: shares.append(v) if bar.maximum() == 1000 else None)
    lib.progress.bar.valueChanged.connect(lambda _v: phases.add(lib.progress.detail.text().split(" ")[0]))
    with qtbot.waitSignal(lib.indexingFinished, timeout=WAIT_MS):
        worker = window.index_sample(SAMPLE)
        worker.signals.progress.connect(lambda _e: QTimer.singleShot(0, lambda: seen.append(split.sizes())))
    assert seen, "indexing reported its progress"
    grown = [s for s in seen if s[0] > before[0] + 2]
    assert not grown, f"the library grew from {before} to {grown[0]} while indexing"
    assert shares and shares == sorted(shares), "one bar for reading and both sides' chunk sets: never back"
    assert {"Reading", "Cutting", "Embedding"} <= phases, phases
