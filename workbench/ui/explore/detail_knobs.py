"""The strategy's finer knobs in one row: the token window's edge, merged parents, LLM rerank (of the child
hits or of the expanded parents) and whole-document expansion under a size.

Each control is enabled only where it changes what the strategy does (the edge for a token window, merged
parents and parent reranking for parent-child); ``changes()`` gives the strategy fields they set.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QSpinBox, QWidget

from workbench.core.retrieve.expansions.base import FIELD_OWNER, ParamValue, knob_value
from workbench.core.retrieve.expansions.tokens import WINDOW_EDGES
from workbench.core.retrieve.strategy.presets import Strategy

WHOLE_DOC_MAX = 100_000
TIPS = {
    "edge": "Token window at a document edge: 'shift' moves the window inward so it keeps its size, 'clip' "
            "cuts it at the edge (a shorter passage). Instant.",
    "merge": "Parent-child: merge parents that touch or overlap into one passage. Instant.",
    "rerank": "LLM rerank: the local LLM reorders the search candidates by relevance before expansion "
              "(slow with the embedded model).",
    "rerank_parents": "With LLM rerank and parent-child: rerank the expanded parents rather than the child "
                      "hits.",
    "whole_doc": "Whole documents: a hit in a document of at most this many tokens returns the whole document "
                 "instead of its expansion (off = never). Instant.",
}


class DetailKnobs(QWidget):
    """``Edge [shift] · ☐ Merge parents`` over ``☐ LLM rerank ☐ parents · Whole doc ≤ [off]``."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edge = QComboBox()
        self.edge.addItems(list(WINDOW_EDGES))
        self.merge = QCheckBox("Merge parents")
        self.rerank = QCheckBox("LLM rerank")
        self.rerank_parents = QCheckBox("parents")
        self.whole_doc = QSpinBox()
        self.whole_doc.setRange(0, WHOLE_DOC_MAX)
        self.whole_doc.setSingleStep(500)
        self.whole_doc.setSpecialValueText("off")
        self.whole_doc.setSuffix(" tok")
        self.edge_label = QLabel("Edge")
        whole_label = QLabel("Whole doc ≤")
        for widget, key in ((self.edge, "edge"), (self.edge_label, "edge"), (self.merge, "merge"),
                            (self.rerank, "rerank"), (self.rerank_parents, "rerank_parents"),
                            (self.whole_doc, "whole_doc"), (whole_label, "whole_doc")):
            widget.setToolTip(TIPS[key])
        lay = QGridLayout(self)  # two short rows: a narrow side keeps every label whole
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setHorizontalSpacing(6)
        lay.setVerticalSpacing(3)
        lay.addWidget(self.edge_label, 0, 0)
        lay.addWidget(self.edge, 0, 1)
        lay.addWidget(self.merge, 0, 2, 1, 2)
        lay.addWidget(self.rerank, 1, 0, 1, 2)
        lay.addWidget(self.rerank_parents, 1, 2)
        whole = QHBoxLayout()
        whole.addWidget(whole_label)
        whole.addWidget(self.whole_doc)
        lay.addLayout(whole, 1, 3)
        lay.setColumnStretch(4, 1)
        self.edge.currentIndexChanged.connect(self.changed)
        for box in (self.merge, self.rerank, self.rerank_parents):
            box.toggled.connect(self.changed)
        self.whole_doc.valueChanged.connect(self.changed)

    def show_strategy(self, strategy: Strategy) -> None:
        """Show ``strategy``'s values (emits nothing)."""
        self.blockSignals(True)
        try:
            self.edge.setCurrentText(str(knob_value(strategy.expander, "window_edge")))
            self.merge.setChecked(bool(knob_value(strategy.expander, "parent_merge")))
            self.rerank.setChecked(strategy.rerank == "llm")
            self.rerank_parents.setChecked(strategy.rerank_parents)
            self.whole_doc.setValue(strategy.whole_doc_tokens)
            self.enable_for(strategy.expander.kind)
        finally:
            self.blockSignals(False)

    def enable_for(self, expansion: str) -> None:
        """Enable the controls that matter for ``expansion`` (and the current rerank choice)."""
        tokens = expansion == FIELD_OWNER["window_edge"]
        self.edge.setEnabled(tokens)
        self.edge_label.setEnabled(tokens)
        parent = expansion == FIELD_OWNER["parent_merge"]
        self.merge.setEnabled(parent)
        self.rerank_parents.setEnabled(parent and self.rerank.isChecked())

    def changes(self, expansion: str) -> dict[str, ParamValue]:
        """Strategy fields these controls set; an expansion's own field only when it is ``expansion``."""
        out: dict[str, ParamValue] = {"rerank": "llm" if self.rerank.isChecked() else "none",
                                  "rerank_parents": self.rerank_parents.isChecked(),
                                  "whole_doc_tokens": self.whole_doc.value()}
        if expansion == FIELD_OWNER["window_edge"]:
            out["window_edge"] = self.edge.currentText()
        if expansion == FIELD_OWNER["parent_merge"]:
            out["parent_merge"] = self.merge.isChecked()
        return out
