"""The chunker knob on each side of the Compare tab: a registry chunker and its parameters per side, built in
the background like a chunk-size change, its passages exact slices of the documents, the built-in cut served
again from its existing chunk set, and strategies loaded with a chunker shown in the controls."""

from __future__ import annotations

import pytest
from guide_corpus import index_guides
from ui_support import WAIT_MS, search, wait_settled

from workbench.core.ingest.chunkers.choice import parse_chunker
from workbench.core.retrieve.strategy.presets import PRESETS, from_dict

pytest_plugins = ["ui_support"]

TOPICS = ("orchard", "harbour", "library", "bakery", "railway", "garden")
QUESTION = "How often is the harbour checked?"
RECURSIVE_A = ("langchain_recursive", {"max_tokens": 512, "overlap": 50})
SEMANTIC_B = ("semantic", {"max_tokens": 512, "percentile": 90.0, "window": 1})


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    """``hash_ws`` holding one guide of six sections (fake embedder: fast, no model)."""
    return index_guides(hash_ws, tmp_path, ("guide",), TOPICS, 25)


def _pick(side, name: str) -> None:
    combo = side.strategy_panel.chunker.combo
    combo.setCurrentIndex(combo.findData(name))


def _cut_by(ws, result) -> tuple[str, dict]:
    """``(chunker name, parameters)`` of the chunk set ``result`` was searched in (``""``: built-in)."""
    chunker = ws.store.sets.chunk_set(result.set_id).config.chunker
    return parse_chunker(chunker) if chunker else ("", {})


def _assert_exact_passages(ws, side, result) -> None:
    texts = side.results.passage_texts()
    assert result.passages and len(texts) == len(result.passages)
    for text, passage in zip(texts, result.passages):
        span = passage.span
        assert text == ws.corpus.document(span.doc_id).text[span.start:span.end]


def test_each_side_searches_with_its_own_chunker_and_built_in_comes_back_instantly(qtbot, make_window, guide_ws):
    window = make_window(guide_ws)
    window.side_by_side.click()
    a, b = window.compare.a, window.compare.b
    first_a, _ = search(qtbot, window, QUESTION, sides=("a", "b"))
    built_in_set = first_a.set_id
    assert _cut_by(guide_ws, first_a) == ("", {}) and a.strategy_panel.chunker.name() == ""

    with qtbot.waitSignal(a.controller.buildStarted, timeout=WAIT_MS) as started:
        _pick(a, "langchain_recursive")
        assert a.controller.stale and a.results.graphicsEffect() is not None, "the old result is greyed"
        assert (not a.strategy_panel.unit.isVisibleTo(a.strategy_panel)
                and a.strategy_panel.size_knob.label.text() == "Max tokens")
        a.strategy_panel.size_knob.setValue(512)
        a.strategy_panel.overlap.setValue(50)
    assert parse_chunker(started.args[0].chunker)[0] == "langchain_recursive"
    assert not a.progress.isHidden(), "the re-chunk shows its progress bar"
    result_a = wait_settled(qtbot, a, lambda r: _cut_by(guide_ws, r) == RECURSIVE_A)

    _pick(b, "semantic")
    controls = b.strategy_panel.chunker._controls
    assert set(controls) == {"percentile", "window"}, "max_tokens is on the size slider"
    assert controls["percentile"].widget.toolTip().startswith("break where the distance")
    controls["percentile"].widget.setValue(90)
    result_b = wait_settled(qtbot, b, lambda r: _cut_by(guide_ws, r) == SEMANTIC_B)

    for side, result, (name, _params) in ((a, result_a, RECURSIVE_A), (b, result_b, SEMANTIC_B)):
        assert result.question == QUESTION
        assert result.strategy.chunk.chunker and name in side.describe.text()
        _assert_exact_passages(guide_ws, side, result)
    assert "max_tokens=512, overlap=50" in a.describe.text() and "percentile=90.0" in b.describe.text()

    with qtbot.assertNotEmitted(a.controller.buildStarted, wait=0):
        _pick(a, "")  # back to the built-in cut: its chunk set exists, so nothing is built
        assert not a.controller.stale and a.strategy_panel.unit.isVisibleTo(a.strategy_panel)
        back = wait_settled(qtbot, a, lambda r: r.set_id == built_in_set)
    assert a.strategy_panel.preset.currentText() == first_a.strategy.name
    assert back.strategy.chunk == first_a.strategy.chunk
    _assert_exact_passages(guide_ws, a, back)

    window.model.swap_strategies()  # B's semantic strategy loads into A's knobs (both sets exist: instant)
    knobs = a.strategy_panel.chunker
    assert knobs.name() == "semantic" and knobs._controls["percentile"].widget.value() == 90.0
    assert b.strategy_panel.chunker.name() == "" and b.strategy_panel.unit.isVisibleTo(b.strategy_panel)
    assert wait_settled(qtbot, a, lambda r: _cut_by(guide_ws, r) == SEMANTIC_B).set_id == result_b.set_id
    assert wait_settled(qtbot, b, lambda r: r.set_id == built_in_set)


def test_a_strategy_with_a_chunker_loads_into_the_knobs(qtbot):
    from workbench.ui.explore.strategy_panel import StrategyPanel
    from workbench.ui.model import WorkbenchModel

    model = WorkbenchModel(PRESETS["plain"])
    panel = StrategyPanel(model, "A")
    qtbot.addWidget(panel)
    loaded = from_dict({"name": "mine", "top_k": 3, "heading_prefix": True,
                        "chunker": {"name": "semantic", "percentile": 80, "max_tokens": 300}})
    model.set_strategy("A", loaded)
    knobs = panel.chunker
    assert knobs.name() == "semantic" and knobs.combo.currentText() == "semantic"
    assert knobs._controls["percentile"].widget.value() == 80.0 and panel.size_knob.value() == 300
    assert not panel.overlap.isVisibleTo(panel), "semantic has no overlap"
    assert panel.strategy().chunk == loaded.chunk and panel.heading.isChecked()
    seen = []
    model.strategyChanged.connect(lambda _side, strategy: seen.append(strategy))
    knobs._controls["window"].widget.setValue(2)
    assert parse_chunker(seen[-1].chunk.chunker)[1] == {"max_tokens": 300, "percentile": 80.0, "window": 2}
    model.set_strategy("A", PRESETS["plain"])
    assert knobs.name() == "" and panel.unit.isVisibleTo(panel) and panel.size_knob.label.text() == "Chunk size"
    assert panel.strategy().to_dict() == PRESETS["plain"].to_dict()


def test_unavailable_chunkers_are_disabled_with_an_install_hint(qtbot, monkeypatch):
    from PySide6.QtCore import Qt

    from workbench.core.ingest.chunkers import registry
    from workbench.core.ingest.chunkers.protocol import ChunkerKind
    from workbench.ui.explore.chunker_knobs import ChunkerKnobs

    missing = ChunkerKind("needs_lib", "a chunker from a library that is not installed", (),
                          build=lambda spec, res: None, available=lambda: "pip install some-lib")
    monkeypatch.setitem(registry._REGISTRY, "needs_lib", missing)
    knobs = ChunkerKnobs()
    qtbot.addWidget(knobs)
    combo = knobs.combo
    combo.refresh_availability()
    row = combo.findData("needs_lib")
    assert row > 0 and combo.findData("fixed") < 0, "config chunkers are the built-in entry"
    assert not combo.model().item(row).isEnabled()
    assert "pip install some-lib" in combo.itemData(row, Qt.ItemDataRole.ToolTipRole)
    assert combo.model().item(combo.findData("recursive")).isEnabled()
