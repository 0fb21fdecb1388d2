"""The Compare side's "Embedding model" knob: its entries (the default, the fast bf16 model, Settings
folders, Ollama's embedding models listed from a loopback stand-in server) and a side whose strategy
searches the chunk set of the chosen model."""

from __future__ import annotations

import pytest
from ollama_embed_standin import EMBED_MODEL, EmbedStandIn
from PySide6.QtCore import Qt
from ui_support import QUESTION, WAIT_MS, wait_settled

from workbench.core.index.embedder_pool import FAST_MODEL, ollama_embedding_models
from workbench.core.ingest.chunkers.identity import chunk_set_id

pytest_plugins = ["ui_support"]
OLLAMA = f"ollama:{EMBED_MODEL}"


@pytest.fixture
def standin():
    server = EmbedStandIn(models=(EMBED_MODEL, "llama3.2:latest", "mxbai-embed-large:latest"))
    yield server
    server.close()


def test_ollama_lists_only_its_embedding_models(standin):
    assert ollama_embedding_models(standin.host) == [OLLAMA, "ollama:mxbai-embed-large"]
    assert ollama_embedding_models("192.0.2.1:11434") == [], "a host that is not this machine is not asked"
    assert ollama_embedding_models("127.0.0.1:9", timeout=0.5) == []


def test_knob_entries_and_choice(qtbot, standin, tmp_path):
    from workbench.ui.explore.model_knob import ModelKnob

    folder = str(tmp_path / "bge-small")
    knob = ModelKnob("", "all-MiniLM-L6-v2", folders=[folder], lister=lambda: ollama_embedding_models(standin.host))
    qtbot.addWidget(knob)
    assert knob.models() == ["", FAST_MODEL, folder] and knob.model() == ""
    assert [knob.combo.itemText(i) for i in range(3)] == ["default (all-MiniLM-L6-v2)", FAST_MODEL, "bge-small"]
    assert "bf16" in knob.combo.itemData(1, Qt.ItemDataRole.ToolTipRole), "the fast model says what it is"
    seen: list[str] = []
    knob.changed.connect(seen.append)
    with qtbot.waitSignal(knob.list_ollama().signals.finished, timeout=WAIT_MS):
        pass
    assert knob.models() == ["", FAST_MODEL, folder, OLLAMA, "ollama:mxbai-embed-large"] and not seen
    knob.combo.setCurrentIndex(knob.combo.findData(OLLAMA))
    assert seen == [OLLAMA] and knob.model() == OLLAMA
    knob.set_ollama_models([])  # the server went away: the chosen model stays listed
    assert knob.models() == ["", FAST_MODEL, folder, OLLAMA] and knob.model() == OLLAMA
    knob.set_model("ollama:other")  # a loaded strategy's model is added, silently
    assert knob.model() == "ollama:other" and seen == [OLLAMA]


def test_side_searches_the_chunk_set_of_its_model(qtbot, make_window, hash_sample_ws, standin, hash_embedder):
    from workbench.ui.explore.side_panel import knob_summary

    window = make_window(hash_sample_ws)
    hash_sample_ws.models.use_ollama_host(standin.host)
    side = window.compare.a
    knob = side.model_knob
    assert knob.combo.itemText(0) == f"default ({hash_embedder.model_id})" and knob.model() == ""
    knob.set_ollama_models(ollama_embedding_models(standin.host))
    window.question.setText(QUESTION)
    side.search(QUESTION)
    first = wait_settled(qtbot, side)
    assert first.set_id == chunk_set_id(first.strategy.chunk, hash_embedder.model_id)
    knob.combo.setCurrentIndex(knob.combo.findData(OLLAMA))
    assert side.strategy().model == OLLAMA and OLLAMA in knob_summary(side.strategy())
    result = wait_settled(qtbot, side, lambda r: r.strategy.model == OLLAMA)
    assert result.set_id == chunk_set_id(first.strategy.chunk, OLLAMA) != first.set_id
    assert QUESTION in standin.embedded_texts(), "the question was embedded by the side's model"
    side.strategy_panel.top_k.setValue(side.strategy_panel.top_k.value() + 1)  # another knob keeps the model
    assert side.strategy().model == OLLAMA
    wait_settled(qtbot, side, lambda r: r.strategy.top_k == side.strategy().top_k)
