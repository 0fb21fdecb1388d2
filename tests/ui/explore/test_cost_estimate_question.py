"""Issue #35 item 8 in the window: a chunking that would make far more chunks than its size implies is asked
about before anything is built (the command line's ``--yes``); No builds nothing, Yes builds it once."""

from __future__ import annotations

import dataclasses
import random

import pytest
from ui_support import WAIT_MS

from workbench.core.ingest.chunkers.choice import apply_chunker

pytest_plugins = ["ui_support"]  # the window fixtures


def _spaceless_ws(hash_ws, tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    rng = random.Random(1)
    (folder / "one.txt").write_text("".join(rng.choice("abcdefghij") for _ in range(120_000)), encoding="utf-8")
    report = hash_ws.add_paths([str(folder)])
    assert not report.failed, report.failed
    return hash_ws


@pytest.mark.slow
def test_the_window_asks_before_building_an_oversized_chunking(qtbot, make_window, hash_ws, tmp_path):
    ws = _spaceless_ws(hash_ws, tmp_path)
    window = make_window(ws)
    controller = window.compare.a.controller
    asked: list[str] = []
    answers = [False, True]
    controller.confirm = lambda question: asked.append(question) or answers.pop(0)
    strategy = window.model.strategy("A")
    costly = dataclasses.replace(strategy, chunk=apply_chunker(strategy.chunk, {"name": "langchain_recursive",
                                                                                 "max_tokens": 64}))
    with qtbot.waitSignal(controller.buildCancelled, timeout=WAIT_MS):
        window.model.set_strategy("A", costly)
    assert len(asked) == 1 and "its size implies" in asked[0] and "--yes" not in asked[0], asked
    assert ws.sets.find_chunk_set(costly.chunk, costly.model) is None, "No builds nothing"

    with qtbot.waitSignal(controller.buildFinished, timeout=WAIT_MS):
        controller._start_build()  # the person tries again (e.g. a knob moved back and forth) and says Yes
    assert len(asked) == 2
    assert ws.sets.find_chunk_set(costly.chunk, costly.model) is not None, "Yes builds it"
    window.model.set_strategy("A", strategy)
    with qtbot.waitSignal(controller.buildFinished, timeout=WAIT_MS):
        controller._start_build()
    assert len(asked) == 2, "a chunking at its size is built without asking"
    assert ws.sets.find_chunk_set(strategy.chunk, strategy.model) is not None
