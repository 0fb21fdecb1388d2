"""The expansion's own size knob, whose meaning follows the expansion: tokens of a token window, the parent
size of parent-child (0 = heading section), or the merge gap of selective expansion.

Which field it edits, its range, step and tooltip come from the expansion's knob metadata in core
(``Expansion.extent`` and ``Expansion.knobs``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget

from workbench.core.retrieve.expansions import EXPANSION_TYPES, Knob
from workbench.core.retrieve.expansions.base import knob_value
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy


def extent_knob(kind: str) -> Knob | None:
    """The size knob of expansion ``kind`` (from the core's knob metadata), or None."""
    cls = EXPANSION_TYPES.get(kind)
    return None if cls is None else cls.extent_knob()


def fallback_value(kind: str, knob: Knob) -> int:
    """A usable size when a strategy's value is below the knob's range: the first preset's of that kind."""
    preset = next((p for p in PRESETS.values() if p.expander.kind == kind), None)
    value = float(knob_value(preset.expander, knob.field)) if preset is not None else knob.minimum
    return int(max(value, knob.minimum))


class ExtentControl(QWidget):
    """A labelled spin box for the current expansion's size."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = "none"
        self.label = QLabel("Size")
        self.spin = QSpinBox()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.spin, 1)
        self.spin.valueChanged.connect(self.changed)

    def show_strategy(self, strategy: Strategy, expansion: str | None = None) -> None:
        """Configure the knob for ``expansion`` (default: the strategy's) and show the strategy's values."""
        self.blockSignals(True)
        self.spin.blockSignals(True)
        try:
            self.kind = expansion or strategy.expander.kind
            knob = extent_knob(self.kind)
            self.spin.setEnabled(knob is not None)
            self.label.setEnabled(knob is not None)
            if knob is None:
                self.label.setText("Size")
                self.spin.setSpecialValueText("—")
                self.spin.setRange(0, 0)
                self.spin.setToolTip("The selected expansion has no size of its own.")
                return
            value = int(knob_value(strategy.expander, knob.field))
            if value < knob.minimum:
                value = fallback_value(self.kind, knob)
            self.label.setText(knob.label)
            self.label.setToolTip(knob.tooltip)
            self.spin.setToolTip(knob.tooltip)
            self.spin.setRange(int(knob.minimum), int(knob.maximum))
            self.spin.setSingleStep(int(knob.step))
            self.spin.setSpecialValueText(knob.special)
            self.spin.setValue(value)
        finally:
            self.spin.blockSignals(False)
            self.blockSignals(False)

    def changes(self) -> dict[str, int]:
        """Expansion fields this control sets."""
        out: dict[str, int] = {}
        knob = extent_knob(self.kind)
        if knob is not None:
            out[knob.field] = self.spin.value()
        return out
