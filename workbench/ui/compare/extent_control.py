"""The expansion's own size knob, whose meaning follows the expansion: tokens of a token window, the parent
size of parent-child (0 = heading section), or the merge gap of selective expansion; plus a per-document cap."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget

from workbench.core.retrieve.strategies import PRESETS, Strategy

# expansion → (label, strategy field, minimum, maximum, step, text shown at the minimum, tooltip)
KINDS = {
    "tokens": ("Tokens", "window_tokens", 16, 4096, 16, "",
               "Token window: how many tokens are returned around each hit (centred, the same before and after "
               "where the document allows). Instant."),
    "parent": ("Parent", "parent_size", 0, 4096, 50, "section",
               "Parent size in tokens: child hits are returned as the parent that holds them (0 = the heading "
               "section). Instant."),
    "selective": ("Merge gap", "merge_gap", 0, 10, 1, "",
                  "Selective expansion merges two hits of one document when at most this many chunks lie "
                  "between them (with what lies between). Instant."),
}
CAP_TIP = "At most this many hits per document, so one long document cannot take over the context. Instant."


class ExtentControl(QWidget):
    """A labelled spin box for the current expansion's size, and a per-document cap."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = "none"
        self.label = QLabel("Size")
        self.spin = QSpinBox()
        self.cap = QSpinBox()
        self.cap.setRange(0, 20)
        self.cap.setSpecialValueText("off")
        self.cap.setToolTip(CAP_TIP)
        cap_label = QLabel("per doc")
        cap_label.setToolTip(CAP_TIP)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.spin, 1)
        lay.addSpacing(12)
        lay.addWidget(cap_label)
        lay.addWidget(self.cap)
        self.spin.valueChanged.connect(self.changed)
        self.cap.valueChanged.connect(self.changed)

    def show_strategy(self, strategy: Strategy, expansion: str | None = None) -> None:
        """Configure the knob for ``expansion`` (default: the strategy's) and show the strategy's values."""
        self.blockSignals(True)
        self.spin.blockSignals(True)
        self.cap.blockSignals(True)
        try:
            self.kind = expansion or strategy.expansion
            self.cap.setValue(strategy.per_doc_cap)
            spec = KINDS.get(self.kind)
            self.spin.setEnabled(spec is not None)
            self.label.setEnabled(spec is not None)
            if spec is None:
                self.label.setText("Size")
                self.spin.setSpecialValueText("—")
                self.spin.setRange(0, 0)
                self.spin.setToolTip("The selected expansion has no size of its own.")
                return
            label, field, lo, hi, step, special, tip = spec
            value = getattr(strategy, field)
            if self.kind == "tokens" and value < lo:
                value = PRESETS["token-window"].window_tokens
            self.label.setText(label)
            self.label.setToolTip(tip)
            self.spin.setToolTip(tip)
            self.spin.setRange(lo, hi)
            self.spin.setSingleStep(step)
            self.spin.setSpecialValueText(special)
            self.spin.setValue(value)
        finally:
            self.spin.blockSignals(False)
            self.cap.blockSignals(False)
            self.blockSignals(False)

    def changes(self) -> dict[str, int]:
        """Strategy fields this control sets."""
        out = {"per_doc_cap": self.cap.value()}
        spec = KINDS.get(self.kind)
        if spec is not None:
            out[spec[1]] = self.spin.value()
        return out
