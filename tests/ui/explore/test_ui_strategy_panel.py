"""The strategy panel's expansion-size knob and per-document cap edit the strategy the core runs; the panel
shows the model's strategy of its side and writes each edit back there (it keeps none of its own)."""

from workbench.core.retrieve.strategy.presets import PRESETS, Strategy, override
from workbench.ui.explore.strategy_panel import StrategyPanel
from workbench.ui.model import WorkbenchModel


def panel_on(qtbot, strategy: Strategy = PRESETS["plain"]) -> tuple[StrategyPanel, WorkbenchModel, list[Strategy]]:
    """A panel of side A of a model holding ``strategy``, and the strategies the model is given from then on."""
    model = WorkbenchModel(strategy, PRESETS["plain"])
    panel = StrategyPanel(model, "A")
    qtbot.addWidget(panel)
    seen: list[Strategy] = []
    model.strategyChanged.connect(lambda side, strategy: seen.append(strategy) if side == "A" else None)
    return panel, model, seen


def test_extent_knob_follows_the_expansion(qtbot):
    panel, model, seen = panel_on(qtbot, PRESETS["plain"])
    panel.expansion.setCurrentIndex(panel.expansion.findData("tokens"))
    assert panel.extent.label.text() == "Tokens" and panel.extent.spin.isEnabled()
    panel.extent.spin.setValue(128)
    assert seen[-1].expander.kind == "tokens" and seen[-1].expander.window_tokens == 128
    panel.expansion.setCurrentIndex(panel.expansion.findData("parent"))
    assert panel.extent.label.text() == "Parent"
    panel.extent.spin.setValue(0)
    assert seen[-1].expander.parent_size == 0 and panel.extent.spin.text() == "section"
    panel.steps.controls["per_doc_cap"].setValue(2)
    assert seen[-1].setting("per_doc_cap") == 2
    panel.expansion.setCurrentIndex(panel.expansion.findData("neighbours"))
    assert not panel.extent.spin.isEnabled()


def test_presets_round_trip_through_the_panel(qtbot):
    panel, model, seen = panel_on(qtbot)
    for name, preset in PRESETS.items():
        model.set_strategy("A", preset)
        assert panel.strategy().to_dict() == preset.to_dict(), name
        assert panel.preset.currentText() == name


def test_expansion_controls_follow_the_core_knob_metadata(qtbot):
    from workbench.core.retrieve.expansions import EXPANSION_TYPES
    from workbench.ui.explore.side_panel import knob_summary

    panel, model, seen = panel_on(qtbot)
    assert [panel.expansion.itemData(i) for i in range(panel.expansion.count())] == list(EXPANSION_TYPES)
    for kind, cls in EXPANSION_TYPES.items():
        panel.extent.show_strategy(override(PRESETS["plain"], expansion=kind))
        knob = cls.extent_knob()
        assert panel.extent.spin.isEnabled() == (knob is not None), kind
        if knob is not None:
            assert panel.extent.label.text() == knob.label and panel.extent.spin.toolTip() == knob.tooltip
            assert (panel.extent.spin.minimum(), panel.extent.spin.maximum()) == (knob.minimum, knob.maximum)
    assert "±384 tok window" in knob_summary(PRESETS["token-window"]) and "hit only" in knob_summary(PRESETS["plain"])


def test_detail_knobs_set_the_new_strategy_fields(qtbot):
    panel, model, seen = panel_on(qtbot, PRESETS["token-window"])
    assert panel.details.edge.isEnabled() and not panel.details.merge.isEnabled()
    panel.details.edge.setCurrentText("clip")
    assert seen[-1].expander.window_edge == "clip" and seen[-1].expander.kind == "tokens"
    panel.steps.controls["whole_doc_tokens"].setValue(2000)
    assert seen[-1].setting("whole_doc_tokens") == 2000
    model.set_strategy("A", PRESETS["parent-child"])
    assert panel.details.merge.isEnabled() and not panel.details.edge.isEnabled()
    assert not panel.steps.controls["rerank_parents"].isEnabled()  # only with LLM rerank
    panel.details.merge.setChecked(True)
    assert seen[-1].expander.parent_merge is True
    panel.steps.controls["rerank"].setChecked(True)
    assert seen[-1].setting("rerank") == "llm" and panel.steps.controls["rerank_parents"].isEnabled()
    panel.steps.controls["rerank_parents"].setChecked(True)
    assert seen[-1].setting("rerank_parents") and seen[-1].reranks_parents
    model.set_strategy("A", seen[-1])
    assert panel.strategy().to_dict() == seen[-1].to_dict()


def test_the_structure_chunker_edits_the_chunking(qtbot):
    panel, model, seen = panel_on(qtbot, PRESETS["plain"])
    panel.show()
    combo = panel.chunker.combo
    assert panel.chunker.name() == "fixed" and not model.strategy("A").chunk.structure_aware
    combo.setCurrentIndex(combo.findData("structure"))
    assert seen[-1].chunk.structure_aware is True and seen[-1].chunk.size == 200, "the size carries over"
    assert panel.chunker._controls["unit"].widget.currentText() == "tokens"
    assert panel.chunker._controls["unit"].widget.isVisibleTo(panel), "a new control shows in a shown grid"
    model.set_strategy("A", PRESETS["heading-path"])
    assert panel.chunker.name() == "structure" and panel.strategy().chunk == PRESETS["heading-path"].chunk
    model.set_strategy("A", PRESETS["sentence-window"])  # fixed windows of sentences are the sentence chunker
    assert panel.chunker.name() == "sentence" and "unit" not in panel.chunker._controls
    assert (panel.size_knob.value(), panel.size_knob.spin.maximum()) == (1, 10)


def test_coarse_field_edits_the_multi_granularity_levels(qtbot):
    panel, model, seen = panel_on(qtbot, PRESETS["multi-granularity"])
    assert panel.coarse.text() == "100:1+200:1" and panel.coarse.isEnabled()
    panel.coarse.setText("200:3")
    panel.coarse.editingFinished.emit()
    assert seen[-1].search_config.coarse == ((200, 3),) and panel.preset.currentText() == "custom"
    panel.coarse.setText("nonsense")
    panel.coarse.editingFinished.emit()
    assert "must look like 100:2+200:2" in panel.error.text() and len(seen) == 1
    panel.coarse.setText("")
    panel.coarse.editingFinished.emit()
    assert seen[-1].search_config.coarse == () and panel.error.text() == ""
    model.set_strategy("A", PRESETS["multi-granularity"])
    panel.expansion.setCurrentIndex(panel.expansion.findData("tokens"))  # grows a chunk itself: coarse off
    assert not panel.coarse.isEnabled() and seen[-1].expander.kind == "tokens" and seen[-1].search_config.coarse == ()


def test_the_panel_shows_and_edits_the_model_strategy_and_keeps_no_copy(qtbot):
    from dataclasses import replace

    panel, model, seen = panel_on(qtbot, replace(PRESETS["plain"], model="minilm-bf16"))
    other = StrategyPanel(model, "A")  # a second view of the same side
    qtbot.addWidget(other)
    panel.top_k.setValue(9)
    assert model.strategy("A").top_k == 9 and other.top_k.value() == 9, "an edit goes through the model"
    assert model.strategy("A").model == "minilm-bf16", "the knobs keep the side's embedding model"
    other.preset.setCurrentText("neighbours")
    assert seen[-1].expander == PRESETS["neighbours"].expander and seen[-1].model == "minilm-bf16"
    def unnamed(strategy: Strategy) -> Strategy:
        return replace(strategy, name="")

    assert unnamed(panel.strategy()) == unnamed(model.strategy("A")) == unnamed(other.strategy())
    model.set_strategy("B", PRESETS["token-window"])
    assert unnamed(panel.strategy()) == unnamed(model.strategy("A")), "side B's strategy is not this panel's"
    mine = override(PRESETS["plain"], top_k=7)
    model.set_saved({"mine": replace(mine, name="mine")})
    assert panel.preset.findText("mine") >= 0 and other.preset.findText("mine") >= 0
    panel.preset.setCurrentText("mine")
    assert model.strategy("A").top_k == 7 == other.top_k.value() and model.strategy("A").model == "minilm-bf16"


def test_a_knob_edit_builds_the_strategy_once_and_other_views_follow(qtbot, monkeypatch):
    """The model's echo of the panel's own edit is not rebuilt from every control a second time (it was: the
    whole strategy, and the preset match over every preset, twice per slider step); another view of the side
    still follows the model."""
    panel, model, seen = panel_on(qtbot, PRESETS["plain"])
    other = StrategyPanel(model, "A")
    qtbot.addWidget(other)
    built: list[StrategyPanel] = []
    original = StrategyPanel.strategy
    monkeypatch.setattr(StrategyPanel, "strategy", lambda self: built.append(self) or original(self))
    panel.window_knob.setValue(2)
    assert built.count(panel) == 1 and seen[-1].expander.kind == "neighbours" and seen[-1].expander.window == 2
    assert other.window_knob.value() == 2 and other.expansion.currentData() == "neighbours"
    assert panel.expansion.currentData() == "neighbours" and panel.preset.currentText() == seen[-1].name
