"""The LLM tools dialogs (pytest-qt, offscreen) with scripted stand-in backends: contextualize with progress
and cancel, make questions and load the set in the evaluation view, and the Tools menu."""

from __future__ import annotations

import time

from contextual_support import SIZE, ScriptedLLM, write_docs
from question_support import SCRIPT
from question_support import ScriptedLLM as QuestionLLM
from ui_support import WAIT_MS

from workbench.core.ingest.values import ChunkConfig
from workbench.ui.answer.llm_tools import ContextualizeDialog, MakeQuestionsDialog

pytest_plugins = ["ui_support"]


def test_contextualize_dialog_runs_and_cancels(qtbot, hash_ws, tmp_path):
    hash_ws.add_paths([str(write_docs(tmp_path / "docs"))], ChunkConfig(size=SIZE))
    stand_in = ScriptedLLM()
    dialog = ContextualizeDialog(hash_ws, ChunkConfig(size=SIZE), llm_factory=lambda ws, kind: stand_in)
    qtbot.addWidget(dialog)
    events = []
    with qtbot.waitSignal(dialog.jobFinished, timeout=WAIT_MS) as done:
        assert dialog.start() and dialog.running and not dialog.start_button.isEnabled()
        dialog.worker.signals.progress.connect(events.append)
    result = done.args[0]
    assert result["chunks"] == stand_in.calls == result["llm"]["calls"] and "LLM calls" in dialog.status.text()
    assert hash_ws.sets.find_chunk_set(ChunkConfig(size=SIZE, contextual=True)) is not None
    assert any(e.stage == "contextualizing" for e in events)
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)

    class SlowLLM(ScriptedLLM):
        def complete(self, messages, max_tokens=256, temperature=0.0, cancel=None):
            self.calls += 1
            deadline = time.monotonic() + 20
            while not (cancel is not None and cancel.cancelled) and time.monotonic() < deadline:
                time.sleep(0.01)
            return self.text

    slow = SlowLLM()
    dialog.llm_factory = lambda ws, kind: slow
    dialog.size_box.setValue(SIZE // 2)  # a new chunk set: cancelled during its first call
    assert dialog.start()
    qtbot.waitUntil(lambda: slow.calls == 1, timeout=WAIT_MS)
    dialog.progress.cancel.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert dialog.status.text().startswith("cancelled") and dialog.start_button.isEnabled() and slow.calls == 1
    assert hash_ws.sets.find_chunk_set(ChunkConfig(size=SIZE // 2, contextual=True)) is None


def test_make_questions_dialog_and_menu(qtbot, make_window, hash_ws, tmp_path):
    from conftest import SAMPLE

    hash_ws.add_paths([str(SAMPLE / "deploy-guide.md")])
    window = make_window(hash_ws)
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles.index("&Tools") == titles.index("&Help") - 1
    tools = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Tools")
    acts = {a.text(): a for a in tools.actions()}
    assert set(acts) == {"Contextualize chunks…", "Make questions…", "Add selection as reference"}

    dialog = MakeQuestionsDialog(hash_ws, window.store_jobs, llm_factory=lambda ws, kind: QuestionLLM(SCRIPT),
                                 parent=window)
    dialog.n.setValue(2)
    dialog.seed.setValue(3)
    dialog.out.setText(str(tmp_path / "qs"))
    with qtbot.waitSignal(dialog.jobFinished, timeout=WAIT_MS):
        assert dialog.start()
    assert dialog.load_button.isEnabled() and "kept" in dialog.status.text()
    dialog.loadRequested.connect(lambda folder: window.eval_view.load_question_set(folder))
    dialog.load_button.click()
    loaded = window.model.question_set
    assert loaded is not None and loaded.root == (tmp_path / "qs").resolve()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert not dialog.start() and "exists" in dialog.status.text(), "the folder holds a set now: refused"

    acts["Contextualize chunks…"].trigger()  # opens (non-blocking) on strategy A's chunk configuration
    tool = window.dialogs.tool
    assert tool.isVisible() and tool.size_box.value() == window.compare.a.strategy().chunk.size
    tool.close()


def test_contextualize_sizes_a_registry_chunker_by_its_own_parameter(qtbot, hash_ws):
    from workbench.core.ingest.chunkers.choice import apply_chunker, chunk_overlap, chunk_size, chunker_name

    recursive = apply_chunker(ChunkConfig(), {"name": "recursive", "max_tokens": 96, "overlap": 16})
    dialog = ContextualizeDialog(hash_ws, recursive, llm_factory=lambda ws, kind: ScriptedLLM())
    qtbot.addWidget(dialog)
    assert dialog.size_box.value() == 96 and dialog.size_box.suffix() == " tokens"  # showed the fields' 200
    dialog.size_box.setValue(64)
    config = dialog.config()
    assert chunker_name(config) == "recursive" and chunk_size(config) == 64 and chunk_overlap(config) == 16
    assert config.contextual
    dialog.size_box.setValue(24)  # an overlap of 16 is over half of 24: dropped rather than refused later
    assert chunk_size(dialog.config()) == 24 and chunk_overlap(dialog.config()) == 0
