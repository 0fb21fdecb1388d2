"""The strategy panel's expansion-size knob and per-document cap edit the strategy the core runs."""

from workbench.core.retrieve.strategy.presets import PRESETS, override
from workbench.ui.explore.strategy_panel import StrategyPanel


def test_extent_knob_follows_the_expansion(qtbot):
    panel = StrategyPanel(PRESETS["plain"])
    qtbot.addWidget(panel)
    seen = []
    panel.changed.connect(seen.append)
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
    panel = StrategyPanel()
    qtbot.addWidget(panel)
    for name, preset in PRESETS.items():
        panel.set_strategy(preset)
        assert panel.strategy().to_dict() == preset.to_dict(), name
        assert panel.preset.currentText() == name


def test_expansion_controls_follow_the_core_knob_metadata(qtbot):
    from workbench.core.retrieve.expansions import EXPANSION_TYPES
    from workbench.ui.explore.side_panel import knob_summary

    panel = StrategyPanel()
    qtbot.addWidget(panel)
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
    panel = StrategyPanel(PRESETS["token-window"])
    qtbot.addWidget(panel)
    seen = []
    panel.changed.connect(seen.append)
    assert panel.details.edge.isEnabled() and not panel.details.merge.isEnabled()
    panel.details.edge.setCurrentText("clip")
    assert seen[-1].expander.window_edge == "clip" and seen[-1].expander.kind == "tokens"
    panel.steps.controls["whole_doc_tokens"].setValue(2000)
    assert seen[-1].setting("whole_doc_tokens") == 2000
    panel.set_strategy(PRESETS["parent-child"])
    assert panel.details.merge.isEnabled() and not panel.details.edge.isEnabled()
    assert not panel.steps.controls["rerank_parents"].isEnabled()  # only with LLM rerank
    panel.details.merge.setChecked(True)
    assert seen[-1].expander.parent_merge is True
    panel.steps.controls["rerank"].setChecked(True)
    assert seen[-1].setting("rerank") == "llm" and panel.steps.controls["rerank_parents"].isEnabled()
    panel.steps.controls["rerank_parents"].setChecked(True)
    assert seen[-1].setting("rerank_parents") and seen[-1].reranks_parents
    panel.set_strategy(seen[-1])
    assert panel.strategy().to_dict() == seen[-1].to_dict()


def test_structure_aware_box_edits_the_chunking(qtbot):
    panel = StrategyPanel(PRESETS["plain"])
    qtbot.addWidget(panel)
    assert not panel.structure.isChecked()
    seen = []
    panel.changed.connect(seen.append)
    panel.structure.setChecked(True)
    assert seen[-1].chunk.structure_aware is True
    panel.set_strategy(PRESETS["heading-path"])
    assert panel.structure.isChecked()


def test_coarse_field_edits_the_multi_granularity_levels(qtbot):
    panel = StrategyPanel(PRESETS["multi-granularity"])
    qtbot.addWidget(panel)
    seen = []
    panel.changed.connect(seen.append)
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
    panel.set_strategy(PRESETS["multi-granularity"])
    panel.expansion.setCurrentIndex(panel.expansion.findData("tokens"))  # grows a chunk itself: coarse off
    assert not panel.coarse.isEnabled() and seen[-1].expander.kind == "tokens" and seen[-1].search_config.coarse == ()
