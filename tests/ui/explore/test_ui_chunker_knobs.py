"""The chunker knob on each side of the Compare tab: every chunking is a chunker by name with the controls its
declared parameters make (the built-in cuts ``fixed``, ``sentence``, ``structure`` like any other), per side, built
in the background like a chunk-size change, its passages exact slices of the documents, a chunking whose set
exists served again at once, strategies loaded with a chunker shown in the controls, and the strategy the window
writes the one the command line writes for the same choice."""

from __future__ import annotations

import pytest
from guide_corpus import index_guides
from ui_support import WAIT_MS, search, wait_settled

from workbench.core.ingest.chunkers.choice import config_chunker, parse_chunker
from workbench.core.retrieve.strategy.presets import PRESETS, from_dict

pytest_plugins = ["ui_support"]

TOPICS = ("orchard", "harbour", "library", "bakery", "railway", "garden")
QUESTION = "How often is the harbour checked?"
RECURSIVE_A = ("langchain_recursive", {"max_tokens": 512, "overlap": 50})
SEMANTIC_B = ("semantic", {"max_tokens": 512, "percentile": 90.0, "window": 1})
FIRST_A = ("fixed", {"unit": "tokens", "size": 100, "overlap": 0})  # the neighbours preset side A starts with


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    """``hash_ws`` holding one guide of six sections (fake embedder: fast, no model)."""
    return index_guides(hash_ws, tmp_path, ("guide",), TOPICS, 25)


def _pick(side, name: str) -> None:
    combo = side.strategy_panel.chunker.combo
    combo.setCurrentIndex(combo.findData(name))


def _cut_by(ws, result) -> tuple[str, dict]:
    """``(chunker name, parameters)`` of the chunk set ``result`` was searched in."""
    return config_chunker(ws.store.sets.chunk_set(result.set_id).config)


def _assert_exact_passages(ws, side, result) -> None:
    texts = side.results.passage_texts()
    assert result.passages and len(texts) == len(result.passages)
    for text, passage in zip(texts, result.passages):
        span = passage.span
        assert text == ws.corpus.document(span.doc_id).text[span.start:span.end]


def test_each_side_searches_with_its_own_chunker_and_a_built_set_comes_back_instantly(qtbot, make_window, guide_ws):
    window = make_window(guide_ws)
    window.side_by_side.click()
    a, b = window.compare.a, window.compare.b
    first_a, _ = search(qtbot, window, QUESTION, sides=("a", "b"))
    built_in_set = first_a.set_id
    assert _cut_by(guide_ws, first_a) == FIRST_A and a.strategy_panel.chunker.name() == "fixed"
    assert a.strategy_panel.chunker._controls["unit"].widget.isVisibleTo(a.strategy_panel)

    with qtbot.waitSignal(a.controller.buildStarted, timeout=WAIT_MS) as started:
        _pick(a, "langchain_recursive")
        assert a.controller.stale and a.results.graphicsEffect() is not None, "the old result is greyed"
        assert (set(a.strategy_panel.chunker._controls) == set()
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
        _pick(a, "fixed")  # --chunker fixed over the recursive chunking: the default 200-token window
        assert a.strategy_panel.size_knob.value() == 200 and a.strategy_panel.size_knob.label.text() == "Chunk size"
        a.strategy_panel.size_knob.setValue(100)  # the first chunking again: its chunk set exists, nothing is built
        panel = a.strategy_panel
        assert not a.controller.stale and panel.chunker._controls["unit"].widget.isVisibleTo(panel)
        back = wait_settled(qtbot, a, lambda r: r.set_id == built_in_set)
    assert a.strategy_panel.preset.currentText() == first_a.strategy.name
    assert back.strategy.chunk == first_a.strategy.chunk
    _assert_exact_passages(guide_ws, a, back)

    window.model.swap_strategies()  # B's semantic strategy loads into A's knobs (both sets exist: instant)
    knobs = a.strategy_panel.chunker
    assert knobs.name() == "semantic" and knobs._controls["percentile"].widget.value() == 90.0
    assert b.strategy_panel.chunker.name() == "fixed" and b.strategy_panel.size_knob.value() == 100
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
    assert knobs.name() == "fixed" and set(knobs._controls) == {"unit"}
    assert panel.size_knob.label.text() == "Chunk size" and panel.overlap.isVisibleTo(panel)
    assert panel.strategy().to_dict() == PRESETS["plain"].to_dict()


def test_unavailable_chunkers_are_disabled_with_an_install_hint(qtbot, monkeypatch):
    from PySide6.QtCore import Qt

    from workbench.core.ingest.chunkers import registry
    from workbench.core.ingest.chunkers.protocol import ChunkerKind
    from workbench.ui.explore.chunker_knobs import ChunkerKnobs, listed_chunkers
    from workbench.ui.widgets.slider_row import SliderRow

    missing = ChunkerKind("needs_lib", "a chunker from a library that is not installed", (),
                          build=lambda spec, res: None, available=lambda: "pip install some-lib")
    monkeypatch.setitem(registry._REGISTRY, "needs_lib", missing)
    knobs = ChunkerKnobs(SliderRow("Chunk size", 16, 512, 200, ""), SliderRow("Overlap", 0, 256, 0, ""))
    qtbot.addWidget(knobs)
    combo = knobs.combo
    combo.refresh_availability()
    row = combo.findData("needs_lib")
    assert [combo.itemData(i) for i in range(combo.count())] == [c.name for c in listed_chunkers()]
    assert row > 0 and combo.findData("fixed") == 0, "the built-in cuts are listed by name like any other"
    assert not combo.model().item(row).isEnabled()
    assert "pip install some-lib" in combo.itemData(row, Qt.ItemDataRole.ToolTipRole)
    assert combo.model().item(combo.findData("recursive")).isEnabled()
    assert combo.model().item(combo.findData("structure")).isEnabled()


def _cli_strategy(*argv: str):
    """The strategy ``workbench search`` makes of these options."""
    import argparse

    from workbench.commands.search import add_strategy_options, strategy_from_args

    parser = argparse.ArgumentParser()
    add_strategy_options(parser)
    return strategy_from_args(parser.parse_args(list(argv)))


@pytest.mark.parametrize("start", ["neighbours", "heading-path"])
def test_the_window_writes_what_the_command_line_writes_for_every_chunker(qtbot, start):
    """Picking a chunker is ``--chunker NAME`` over the side's strategy; moving its sliders and controls is
    ``--chunker JSON --chunk-size N --overlap M``: the same strategy value, for every listed chunker."""
    import json

    from workbench.core.ingest.chunkers.choice import size_param
    from workbench.ui.explore.chunker_knobs import listed_chunkers
    from workbench.ui.explore.strategy_panel import StrategyPanel
    from workbench.ui.model import WorkbenchModel

    for entry in listed_chunkers():
        model = WorkbenchModel(PRESETS[start])
        panel = StrategyPanel(model, "A")
        qtbot.addWidget(panel)
        panel.chunker.combo.setCurrentIndex(panel.chunker.combo.findData(entry.name))
        picked = model.strategy("A")
        assert picked.chunk == _cli_strategy("--strategy", start, "--chunker", entry.name).chunk, entry.name
        assert config_chunker(picked.chunk)[0] == entry.name
        kind = panel.chunker.kind()
        size_name = size_param(kind)
        if size_name is None:
            assert not panel.size_knob.isVisibleTo(panel), entry.name
            continue
        panel.size_knob.setValue(panel.size_knob.value() - 2)
        panel.overlap.setValue(1)
        edited = model.strategy("A")
        others = {k: v for k, v in panel.chunker.values().items() if k not in (size_name, "overlap")}
        argv = ["--strategy", start, "--chunker", json.dumps({"name": entry.name, **others}),
                "--chunk-size", str(panel.size_knob.value())]
        if panel.overlap.isVisibleTo(panel):
            argv += ["--overlap", "1"]
        assert edited.chunk == _cli_strategy(*argv).chunk, entry.name
        assert edited.chunk != picked.chunk, f"{entry.name}: the size slider changes the chunking"


def test_the_unit_control_of_a_built_in_cut_sets_the_size_range(qtbot):
    from workbench.ui.explore.strategy_panel import StrategyPanel
    from workbench.ui.model import WorkbenchModel

    model = WorkbenchModel(PRESETS["plain"])
    panel = StrategyPanel(model, "A")
    qtbot.addWidget(panel)
    unit = panel.chunker._controls["unit"].widget
    assert unit.toolTip().startswith("what size and overlap count") and "re-chunks" in unit.toolTip()
    unit.setCurrentText("words")
    assert (panel.size_knob.spin.minimum(), panel.size_knob.spin.maximum(), panel.size_knob.value()) == (10, 400, 200)
    assert model.strategy("A").chunk.unit == "words" and model.strategy("A").chunk.size == 200
    unit.setCurrentText("sentences")  # fixed windows of sentences start at one sentence
    assert (panel.size_knob.spin.maximum(), panel.size_knob.value()) == (10, 1)
    assert config_chunker(model.strategy("A").chunk) == ("sentence", {"size": 1, "overlap": 0})
