"""The strategy panel's expansion-size knob and per-document cap edit the strategy the core runs."""

from workbench.core.retrieve.strategies import PRESETS
from workbench.ui.compare.strategy_panel import StrategyPanel


def test_extent_knob_follows_the_expansion(qtbot):
    panel = StrategyPanel(PRESETS["plain"])
    qtbot.addWidget(panel)
    seen = []
    panel.changed.connect(seen.append)
    panel.expansion.setCurrentIndex(panel.expansion.findData("tokens"))
    assert panel.extent.label.text() == "Tokens" and panel.extent.spin.isEnabled()
    panel.extent.spin.setValue(128)
    assert seen[-1].expansion == "tokens" and seen[-1].window_tokens == 128
    panel.expansion.setCurrentIndex(panel.expansion.findData("parent"))
    assert panel.extent.label.text() == "Parent"
    panel.extent.spin.setValue(0)
    assert seen[-1].parent_size == 0 and panel.extent.spin.text() == "section"
    panel.extent.cap.setValue(2)
    assert seen[-1].per_doc_cap == 2
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
    from workbench.ui.compare.side_panel import knob_summary

    panel = StrategyPanel()
    qtbot.addWidget(panel)
    assert [panel.expansion.itemData(i) for i in range(panel.expansion.count())] == list(EXPANSION_TYPES)
    for kind, cls in EXPANSION_TYPES.items():
        panel.extent.show_strategy(PRESETS["plain"].with_changes(expansion=kind))
        knob = cls.extent_knob()
        assert panel.extent.spin.isEnabled() == (knob is not None), kind
        if knob is not None:
            assert panel.extent.label.text() == knob.label and panel.extent.spin.toolTip() == knob.tooltip
            assert (panel.extent.spin.minimum(), panel.extent.spin.maximum()) == (knob.minimum, knob.maximum)
    assert "±384 tok window" in knob_summary(PRESETS["token-window"]) and "hit only" in knob_summary(PRESETS["plain"])
