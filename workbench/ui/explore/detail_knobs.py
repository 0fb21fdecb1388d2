"""The expansion's finer knobs in one row: the token window's edge and merged parents (the later steps' knobs
are ``step_knobs``).

Each control is enabled only where it changes what the strategy does (the edge for a token window, merged
parents for parent-child); ``changes()`` gives the expansion fields they set.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QLabel, QWidget

from workbench.core.retrieve.expansions.base import FIELD_OWNER, ParamValue, knob_value
from workbench.core.retrieve.expansions.tokens import WINDOW_EDGES
from workbench.core.retrieve.strategy.presets import Strategy

TIPS = {
    "edge": "Token window at a document edge: 'shift' moves the window inward so it keeps its size, 'clip' "
            "cuts it at the edge (a shorter passage). Instant.",
    "merge": "Parent-child: merge parents that touch or overlap into one passage. Instant.",
}


class DetailKnobs(QWidget):
    """``Edge [shift] · ☐ Merge parents``."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edge = QComboBox()
        self.edge.addItems(list(WINDOW_EDGES))
        self.merge = QCheckBox("Merge parents")
        self.edge_label = QLabel("Edge")
        for widget, key in ((self.edge, "edge"), (self.edge_label, "edge"), (self.merge, "merge")):
            widget.setToolTip(TIPS[key])
        lay = QGridLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setHorizontalSpacing(6)
        lay.setVerticalSpacing(3)
        lay.addWidget(self.edge_label, 0, 0)
        lay.addWidget(self.edge, 0, 1)
        lay.addWidget(self.merge, 0, 2, 1, 2)
        lay.setColumnStretch(4, 1)
        self.edge.currentIndexChanged.connect(self.changed)
        self.merge.toggled.connect(self.changed)

    def show_strategy(self, strategy: Strategy) -> None:
        """Show ``strategy``'s values (emits nothing)."""
        self.blockSignals(True)
        try:
            self.edge.setCurrentText(str(knob_value(strategy.expander, "window_edge")))
            self.merge.setChecked(bool(knob_value(strategy.expander, "parent_merge")))
            self.enable_for(strategy.expander.kind)
        finally:
            self.blockSignals(False)

    def enable_for(self, expansion: str) -> None:
        """Enable the controls that matter for ``expansion``."""
        tokens = expansion == FIELD_OWNER["window_edge"]
        self.edge.setEnabled(tokens)
        self.edge_label.setEnabled(tokens)
        parent = expansion == FIELD_OWNER["parent_merge"]
        self.merge.setEnabled(parent)

    def changes(self, expansion: str) -> dict[str, ParamValue]:
        """Expansion fields these controls set, each only when it is a field of ``expansion``."""
        out: dict[str, ParamValue] = {}
        if expansion == FIELD_OWNER["window_edge"]:
            out["window_edge"] = self.edge.currentText()
        if expansion == FIELD_OWNER["parent_merge"]:
            out["parent_merge"] = self.merge.isChecked()
        return out
