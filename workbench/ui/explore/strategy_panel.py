"""One side's strategy: a preset picker and the knobs, each with its number and a tooltip.

A view of the window's model (``ui/model.py``): it shows the side's strategy as the model holds it and writes
each edit back there (``WorkbenchModel.set_strategy``); the side controller, which follows the model, decides
what a change costs (an instant re-run, or a debounced re-chunk in the background). The settings the knobs do
not show, and the side's embedding model, come from the model's strategy: the panel keeps no strategy of its
own. The saved strategies in the preset list are the model's too.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from workbench.core.ingest.chunkers import ChunkerError
from workbench.core.ingest.chunkers.protocol import ParamValue
from workbench.core.retrieve.expansions import EXPANSION_TYPES
from workbench.core.retrieve.expansions.base import (
    FIELD_OWNER,
    build_expansion,
    expansion_type,
    kind_after,
    knob_for,
    knob_value,
)
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy
from workbench.ui.explore.chunker_knobs import ChunkerKnobs
from workbench.ui.explore.coarse_field import CoarseField
from workbench.ui.explore.detail_knobs import DetailKnobs
from workbench.ui.explore.extent_control import ExtentControl
from workbench.ui.explore.step_knobs import StepKnobs
from workbench.ui.model import WorkbenchModel, as_side
from workbench.ui.widgets.elided_combo import ElidedComboBox
from workbench.ui.widgets.slider_row import SliderRow

CUSTOM = "custom"
EXPANSIONS = [(kind, cls.label) for kind, cls in EXPANSION_TYPES.items()]  # from the core's registry
WINDOW = knob_for("window")
MARGIN = knob_for("margin")

TIPS = {
    "preset": "A named strategy from the core presets; changing any knob makes it 'custom'.",
    "expansion": "How each hit grows into the passage sent as context.",
    "window": WINDOW.tooltip,
    "top_k": "Top-k: how many chunks the search returns before expansion. Instant.",
    "budget": "Context budget in tokens: passages are kept in rank order until the next one would not "
              "fit (0 = no limit). Instant.",
    "margin": MARGIN.tooltip,
    "contextual": "Embed a sentence the local LLM writes to situate each chunk in its document (contextual "
                  "retrieval). The first build calls the LLM once per chunk (slow with the embedded model); the "
                  "sentences are cached, so later builds are instant. Rebuilds the chunk set.",
    "heading": "Embed 'title > heading path: text' instead of the bare chunk, so chunks know their "
               "section. Builds a new chunk set.",
    "hybrid": "Hybrid search: fuse dense (embedding) and BM25 (keyword) rankings. Instant.",
}


class StrategyPanel(QWidget):
    """Preset picker plus sliders and toggles for side ``side``'s strategy in ``model``."""

    def __init__(self, model: WorkbenchModel, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model, self.side = model, as_side(side)
        first = model.strategy(self.side)
        self._loading = False
        self.preset = ElidedComboBox()
        self.preset.addItems([*PRESETS, CUSTOM])
        self.expansion = ElidedComboBox()
        for key, label in EXPANSIONS:
            self.expansion.addItem(label, key)
        self.size_knob = SliderRow("Chunk size", 16, 512, 200, "", step=8)  # labelled by the chunker's declaration
        self.overlap = SliderRow("Overlap", 0, 256, 0, "")
        self.chunker = ChunkerKnobs(self.size_knob, self.overlap)  # drives the two sliders above
        self.window_knob = SliderRow(WINDOW.label, int(WINDOW.minimum), int(WINDOW.maximum), 0, TIPS["window"],
                                step=int(WINDOW.step))
        self.top_k = SliderRow("Top-k", 1, 20, 5, TIPS["top_k"])
        self.budget = SliderRow("Budget", 0, 4000, 0, TIPS["budget"], step=100, suffix="tok",
                                special="no limit")
        self.margin = QDoubleSpinBox()
        self.margin.setRange(MARGIN.minimum, MARGIN.maximum)
        self.margin.setSingleStep(MARGIN.step)
        self.margin.setDecimals(MARGIN.decimals)
        self.heading = QCheckBox("Embed heading path")
        self.contextual = QCheckBox("Contextual (LLM)")
        self.hybrid = QCheckBox("Hybrid BM25")
        self.coarse = CoarseField(self)  # laid out (and shown) by the side panel, beside the embedding model
        self.coarse.hide()
        self.extent = ExtentControl()
        self.details = DetailKnobs()
        self.steps = StepKnobs()
        self.error = QLabel("")  # why the knobs do not make a strategy (a chunker's parameters, coarse levels)
        self.error.setObjectName("banner")
        self.error.setWordWrap(True)
        self.error.hide()
        for combo in (self.preset, self.expansion, self.chunker.combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        for w, key in ((self.preset, "preset"), (self.expansion, "expansion"), (self.margin, "margin"),
                       (self.heading, "heading"), (self.hybrid, "hybrid"), (self.contextual, "contextual")):
            w.setToolTip(TIPS[key])
        self._layout()
        self._show_saved()
        self._show(first)
        self.preset.currentTextChanged.connect(self._preset_picked)
        self.chunker.changed.connect(self._edited)  # the chunker, its parameters, the size and overlap sliders
        self.window_knob.valueChanged.connect(self._window_moved)
        for row in (self.top_k, self.budget):
            row.valueChanged.connect(self._edited)
        self.expansion.currentIndexChanged.connect(self._expansion_changed)
        self.extent.changed.connect(self._edited)
        self.details.changed.connect(self._edited)
        self.steps.changed.connect(self._edited)
        self.margin.valueChanged.connect(self._edited)
        self.heading.toggled.connect(self._edited)
        self.contextual.toggled.connect(self._edited)
        self.hybrid.toggled.connect(self._edited)
        self.coarse.changed.connect(self._edited)
        model.strategyChanged.connect(self._model_strategy)
        model.savedChanged.connect(self._show_saved)

    def _layout(self) -> None:
        """Two columns — chunking (rebuilds a chunk set) and retrieval (instant) — side by side when the side
        is wide enough (``fit_width``), else one above the other; the rarer knobs and any error below both."""
        def labelled(text: str, widget: QWidget, tip: str) -> QHBoxLayout:
            label = QLabel(text)
            label.setMinimumWidth(70)
            label.setToolTip(tip)
            label.setBuddy(widget)
            row = QHBoxLayout()
            row.setSpacing(8)
            row.addWidget(label)
            row.addWidget(widget, 1)
            return row

        def column(*rows: QWidget | QHBoxLayout) -> QWidget:
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(3)
            for row in rows:
                if isinstance(row, QWidget):
                    lay.addWidget(row)
                else:
                    lay.addLayout(row)
            lay.addStretch(1)
            return box

        cut = labelled("Chunker", self.chunker.combo, self.chunker.combo.toolTip())
        flags = QHBoxLayout()
        flags.addWidget(self.heading)
        flags.addWidget(self.contextual)
        flags.addStretch(1)
        margin_row = QHBoxLayout()
        margin_row.addWidget(self.hybrid)  # (the coarse field sits in the side's chunk-set row, beside the model)
        margin_row.addStretch(1)
        margin_row.addLayout(labelled(MARGIN.label, self.margin, TIPS["margin"]))
        # the chosen chunker's parameters other than size and overlap (e.g. fixed's unit) below the flags
        self.chunk_column = column(labelled("Strategy", self.preset, TIPS["preset"]), cut, self.size_knob, self.overlap,
                                   flags, self.chunker)
        self.retrieve_column = column(labelled("Expansion", self.expansion, TIPS["expansion"]), self.window_knob,
                                      self.top_k, self.budget, margin_row, self.extent)
        self.columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.columns.setSpacing(18)
        self.columns.addWidget(self.chunk_column, 1)
        self.columns.addWidget(self.retrieve_column, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addLayout(self.columns)
        lay.addWidget(self.details)
        lay.addWidget(self.steps)
        lay.addWidget(self.error)  # whole lines across both columns

    def row_height(self) -> int:
        """The height of one row of knobs (a labelled combo box and the column's spacing): open knobs show a
        whole number of them."""
        return max(self.preset.sizeHint().height(), self.top_k.sizeHint().height()) + 3

    def two_column_width(self) -> int:
        """The narrowest width that shows the two columns side by side with every label whole."""
        return (self.chunk_column.minimumSizeHint().width() + self.retrieve_column.minimumSizeHint().width()
                + self.columns.spacing())

    def fit_width(self, width: int) -> None:
        """Lay the columns side by side when ``width`` pixels hold them, else one above the other."""
        direction = (QBoxLayout.Direction.LeftToRight if width >= self.two_column_width()
                     else QBoxLayout.Direction.TopToBottom)
        if self.columns.direction() != direction:
            self.columns.setDirection(direction)

    # ----- value in / out ------------------------------------------------------------------
    def strategy(self) -> Strategy:
        """The strategy the controls describe (``ChunkerError`` when the chunker's parameters do not fit)."""
        base = self.model.strategy(self.side)
        expansion = str(self.expansion.currentData())
        chunk = self.chunker.chunk_config(replace(base.chunk, heading_prefix=self.heading.isChecked(),
                                                  contextual=self.contextual.isChecked()))
        mode = "hybrid" if self.hybrid.isChecked() else ("dense" if base.search_config.mode == "hybrid"
                                                          else base.search_config.mode)
        search_config = replace(base.search_config, mode=mode, coarse=self.coarse.levels(expansion))
        knobs: dict[str, ParamValue] = {"window": self.window_knob.value(), "margin": round(self.margin.value(), 2),
                                        **self.extent.changes(), **self.details.changes(expansion)}
        expander = build_expansion(expansion, {k: v for k, v in knobs.items() if k in FIELD_OWNER}, base.expander)
        strategy = replace(base, chunk=chunk, search_config=search_config, expander=expander,
                           top_k=self.top_k.value(), budget=self.budget.value()).with_steps(**self.steps.changes())
        return replace(strategy, name=preset_name(strategy, self.model.saved))

    def _show_saved(self) -> None:
        """List the model's saved strategies (in the data folder) after the presets (writes nothing back)."""
        saved = self.model.saved
        self._loading = True
        current = self.preset.currentText()
        self.preset.clear()
        self.preset.addItems([*PRESETS, *saved, CUSTOM])
        for name, strategy in saved.items():
            self.preset.setItemData(self.preset.findText(name), f"saved: {strategy.describe()}",
                                    Qt.ItemDataRole.ToolTipRole)
        self.preset.setCurrentText(current if self.preset.findText(current) >= 0 else CUSTOM)
        self._loading = False

    def _model_strategy(self, side: str, strategy: Strategy) -> None:
        """The model's strategy of this side changed (a knob, a swap, the lab): show it unless the controls
        already describe it (this panel's own edit, being written, does)."""
        if side != self.side or self._loading:
            return
        try:
            if strategy == self.strategy() and self.preset.currentText() == preset_name(strategy, self.model.saved):
                return
        except (ChunkerError, ValueError):  # the controls hold a refused edit: show the model's strategy
            pass
        self._show(strategy)

    def _show(self, strategy: Strategy) -> None:
        """Show ``strategy`` in the controls (writes nothing back)."""
        self._loading = True
        try:
            name = preset_name(strategy, self.model.saved)
            self.preset.setCurrentText(name)
            c = strategy.chunk
            self.chunker.show_config(c)
            kind = strategy.expander.kind
            self.expansion.setCurrentIndex(max(0, self.expansion.findData(kind)))
            self.window_knob.setValue(int(knob_value(strategy.expander, WINDOW.field)))
            self.top_k.setValue(strategy.top_k)
            self.budget.setValue(strategy.budget)
            self.margin.setValue(float(knob_value(strategy.expander, MARGIN.field)))
            self.heading.setChecked(c.heading_prefix)
            self.contextual.setChecked(c.contextual)
            self.hybrid.setChecked(strategy.search_config.mode == "hybrid")
            self.coarse.show_strategy(strategy)
            self.extent.show_strategy(strategy)
            self.details.show_strategy(strategy)
            self.steps.show_strategy(strategy)
            self._enable_for(kind)
        finally:
            self._loading = False

    def show_error(self, message: str) -> None:
        """Say why the knobs do not make a strategy (``""`` hides it)."""
        self.error.setText(message)
        self.error.setVisible(bool(message))

    # ----- reactions -----------------------------------------------------------------------
    def _enable_for(self, expansion: str) -> None:
        window_kind = FIELD_OWNER[WINDOW.field]
        self.window_knob.setEnabled(expansion in ("none", window_kind))  # a window on "none" switches to it
        self.margin.setEnabled(expansion == FIELD_OWNER[MARGIN.field])
        self.details.enable_for(expansion)
        self.steps.enable_for(expansion_type(expansion)())
        self.coarse.set_expansion(expansion)

    def _preset_picked(self, name: str) -> None:
        if self._loading or name == CUSTOM or not name:
            return
        chosen = PRESETS[name] if name in PRESETS else self.model.saved[name]
        self._write(chosen)  # the whole strategy (its settings the knobs do not show too)

    def _expansion_changed(self, *_: object) -> None:
        if not self._loading:
            self.extent.show_strategy(self.model.strategy(self.side), self.expansion.currentData())
        self._edited()

    def _window_moved(self, window: int) -> None:
        kind = kind_after(str(self.expansion.currentData()), {WINDOW.field: window})  # core's rule
        if not self._loading and kind != self.expansion.currentData():
            self._loading = True
            self.expansion.setCurrentIndex(self.expansion.findData(kind))
            self._loading = False
        self._edited()

    def _edited(self, *_: object) -> None:
        if self._loading:
            return
        self._enable_for(self.expansion.currentData())
        try:
            strategy = self.strategy()
        except (ChunkerError, ValueError) as exc:  # e.g. a late chunker's base parameters that are no JSON
            self.show_error(str(exc))
            return
        self.show_error("")
        self._loading = True  # the controls show it already: the model's echo (``_model_strategy``) is not rebuilt
        try:
            self.preset.setCurrentText(strategy.name)
            self.model.set_strategy(self.side, strategy)  # over the model's strategy: the side's embedding model kept
        finally:
            self._loading = False

    def _write(self, strategy: Strategy) -> None:
        """``strategy`` becomes the side's strategy in the model, with the side's embedding model (chosen
        beside the knobs, in the model's strategy); the controls follow the model."""
        self.model.set_strategy(self.side, replace(strategy, model=self.model.strategy(self.side).model))


def preset_name(strategy: Strategy, saved: dict[str, Strategy] | None = None) -> str:
    """The preset (or strategy ``saved`` in the data folder) ``strategy`` equals (ignoring its name), else
    ``custom``."""
    data = {**strategy.to_dict(), "name": ""}
    for name, preset in {**PRESETS, **(saved or {})}.items():
        if {**preset.to_dict(), "name": ""} == data:
            return name
    return CUSTOM
