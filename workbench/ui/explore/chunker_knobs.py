"""The chunker knob of one side: the built-in cut (unit / size / overlap) or any registry chunker, with the
chunker's own parameters as controls built from its ``ParamSpec`` metadata.

The strategy panel's size and overlap sliders stay in charge of the chunker's size parameter
(``choice.size_param``: ``size`` or ``max_tokens``) and its ``overlap``; every other parameter gets a control
here: an int a spin box with its range, a float a decimal spin box, a parameter with choices a combo box, a
bool a check box and free text a line edit, each with the parameter's help as its tooltip. The chunkers cut by
the config's own fields (``fixed``, ``sentence``, ``structure``) are the built-in entry, not listed again.
Nothing here builds a chunk set: ``chunk_changes`` turns the shown values into the strategy's chunk fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from workbench.core.consent import trust
from workbench.core.ingest.chunkers import ChunkerError, ChunkerKind, ParamSpec, chunker_kinds, get_kind
from workbench.core.ingest.chunkers.choice import CONFIG_KINDS, apply_chunker, parse_chunker, size_param
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX
from workbench.core.ingest.chunkers.protocol import ParamValue
from workbench.core.ingest.chunkers.registry import CUSTOM_PREFIX
from workbench.core.ingest.values import ChunkConfig, max_overlap
from workbench.ui.widgets.elided_combo import ElidedComboBox
from workbench.ui.widgets.slider_row import SliderRow

BUILT_IN = ""  # the combo's data for the config's own cut
BUILT_IN_LABEL = "built-in"  # cuts by the unit, size and overlap knobs (its tooltip says so)
OVERLAP = "overlap"
TOKEN_SIZES = (16, 512, 8)  # the size slider's range for a chunker sized in tokens (widened to fit a value)
PAIRS_PER_ROW = 2
TIP = ("Chunker: 'Built-in' cuts by the unit, size and overlap knobs (fixed windows, or structure-aware); any "
       "other is a registry chunker (see 'workbench chunkers') with its own parameters. Changing it builds a "
       "new chunk set in the background; a set built before is used at once.")
REBUILDS = " Changing it builds a new chunk set in the background."


def param_label(name: str) -> str:
    """``max_tokens`` → ``Max tokens``."""
    return name.replace("_", " ").capitalize()


def mapped_params(kind: ChunkerKind) -> tuple[str | None, str | None]:
    """The parameters the panel's size and overlap sliders set: ``(size parameter, "overlap")``, each or None."""
    has_overlap = any(p.name == OVERLAP for p in kind.params)
    return size_param(kind), OVERLAP if has_overlap else None


def size_slider_range(spec: ParamSpec, value: int) -> tuple[int, int, int]:
    """``(minimum, maximum, step)`` of the size slider for a chunker's size parameter holding ``value``."""
    lo, hi, step = TOKEN_SIZES
    lo, hi = min(lo, value), max(hi, value)
    if spec.minimum is not None:
        lo = max(lo, int(spec.minimum))
    if spec.maximum is not None:
        hi = min(hi, int(spec.maximum))
    return lo, hi, step


@dataclass
class _Control:
    """One parameter's control: the widget, how to read it and how to show a value."""

    widget: QWidget
    get: Callable[[], ParamValue]
    put: Callable[[ParamValue], None]


class ChunkerCombo(ElidedComboBox):
    """The chunker picker. A chunker whose library is missing is greyed out with its install hint (checked
    when the list opens, so a window does not import every library to start)."""

    def showPopup(self) -> None:
        """Grey out unavailable chunkers, then open the list."""
        self.refresh_availability()
        super().showPopup()

    def refresh_availability(self) -> None:
        """Disable each chunker that cannot be built here; its tooltip says how to install it."""
        model = self.model()
        for row in range(1, self.count()):
            kind = _kind_or_none(str(self.itemData(row)))
            hint = kind.available() if kind is not None else "this chunker cannot be loaded"
            item = model.item(row) if isinstance(model, QStandardItemModel) else None
            if item is not None:
                item.setEnabled(not hint)
            summary = kind.summary if kind is not None else ""
            self.setItemData(row, f"Not available: {hint}" if hint else summary, Qt.ItemDataRole.ToolTipRole)


class ChunkerKnobs(QWidget):
    """The chunker combo (``combo``, laid out by the panel) and this row of the chosen chunker's parameters."""

    picked = Signal()  # another chunker was chosen (its parameters are at their defaults)
    changed = Signal()  # a parameter shown here was edited

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loading = False
        self._controls: dict[str, _Control] = {}
        self._kind: ChunkerKind | None = None
        self.combo = ChunkerCombo()
        self.combo.setToolTip(TIP)
        self.combo.addItem(BUILT_IN_LABEL, BUILT_IN)
        self.combo.setItemData(0, "Built-in: cut by the unit, size and overlap knobs", Qt.ItemDataRole.ToolTipRole)
        self.combo.setItemData(0, "Fixed windows of the unit, size and overlap below (structure-aware when "
                                  "ticked): the workbench's own cut.", Qt.ItemDataRole.ToolTipRole)
        for kind in chunker_kinds():
            if kind.name not in CONFIG_KINDS:
                self.combo.addItem(kind.name, kind.name)
                self.combo.setItemData(self.combo.count() - 1, kind.summary, Qt.ItemDataRole.ToolTipRole)
        self.error = QLabel("")
        self.error.setObjectName("banner")
        self.error.setWordWrap(True)
        self.error.hide()
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(3)
        self.combo.currentIndexChanged.connect(self._picked)
        self.setVisible(False)

    # ----- value in / out ------------------------------------------------------------------
    def name(self) -> str:
        """The chosen chunker's registry name, or ``""`` for the built-in cut."""
        return str(self.combo.currentData() or BUILT_IN)

    def kind(self) -> ChunkerKind | None:
        """The chosen registry chunker (None: built-in)."""
        return self._kind

    def values(self) -> dict[str, ParamValue]:
        """The parameters shown here (not the ones the size and overlap sliders set)."""
        return {name: control.get() for name, control in self._controls.items()}

    def chunk_changes(self, size: int, overlap: int) -> dict[str, object]:
        """The strategy's chunk fields for the chosen registry chunker with these parameters, ``size`` on its
        size parameter and ``overlap`` on its overlap (where it has them). ``ChunkerError`` when invalid."""
        kind = self._kind
        if kind is None:
            raise ChunkerError("no registry chunker is chosen")
        size_name, overlap_name = mapped_params(kind)
        config = apply_chunker(ChunkConfig(), {"name": kind.name, **self.values()},
                               size=size if size_name else None, overlap=overlap if overlap_name else None)
        return {"unit": config.unit, "size": config.size, "overlap": config.overlap,
                "structure_aware": config.structure_aware, "chunker": config.chunker}

    def show_chunker(self, chunker: str) -> dict[str, ParamValue]:
        """Show a stored chunker (``ChunkConfig.chunker``; ``""`` = built-in) without emitting; returns its
        parameters (those the sliders set included), defaults filled in."""
        self._loading = True
        try:
            if not chunker:
                self.combo.setCurrentIndex(0)
                self._rebuild(None)
                return {}
            name, params = parse_chunker(chunker)
            kind = get_kind(name)
            if self.combo.findData(kind.name) < 0:  # a custom:module:function chunker, or one registered late
                self.combo.addItem(kind.name, kind.name)
            self.combo.setCurrentIndex(self.combo.findData(kind.name))
            values = kind.checked_params(**params)  # shown, not loaded: data may name a custom chunker
            self._rebuild(kind, values)
            return values
        finally:
            self._loading = False

    def set_hand_made(self, names: list[str]) -> None:
        """List the data folder's hand-made chunkings (``edited:NAME``) after the registry's chunkers."""
        for name in names:
            data = HAND_PREFIX + name
            if self.combo.findData(data) < 0:
                self.combo.addItem(data, data)
                self.combo.setItemData(self.combo.count() - 1, f"hand-made chunking {name!r}: a base chunker with "
                                       "cuts edited by hand (workbench cuts show)", Qt.ItemDataRole.ToolTipRole)

    def set_error(self, message: str) -> None:
        """Show why the parameters do not make a chunker (``""`` hides it)."""
        self.error.setText(message)
        self.error.setVisible(bool(message))
        self.setVisible(bool(message or self._controls))

    # ----- controls --------------------------------------------------------------------------
    def _picked(self, _index: int) -> None:
        if self._loading:
            return
        name = self.name()
        if name.startswith(CUSTOM_PREFIX):
            trust(name)  # chosen here by the user: allowed for this run (see workbench.core.consent)
        kind = _kind_or_none(name) if name else None
        self._rebuild(kind)
        self.picked.emit()

    def _rebuild(self, kind: ChunkerKind | None, values: dict[str, ParamValue] | None = None) -> None:
        """Controls for ``kind``'s parameters (its defaults, or ``values``), two to a row."""
        self._kind = kind
        self.set_error("")
        self.combo.setToolTip(f"{kind.name}: {kind.summary}\n\n{TIP}" if kind is not None else TIP)
        loading, self._loading = self._loading, True
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.error:
                widget.hide()
                widget.deleteLater()
        self._controls = {}
        mapped = set(mapped_params(kind)) if kind is not None else set()
        shown = [p for p in (kind.params if kind is not None else ()) if p.name not in mapped]
        for i, spec in enumerate(shown):
            control = self._control(spec)
            control.put((values or {}).get(spec.name, spec.default))
            label = QLabel(param_label(spec.name))
            label.setToolTip(spec.help + REBUILDS)
            label.setBuddy(control.widget)
            row, col = divmod(i, PAIRS_PER_ROW)
            self._grid.addWidget(label, row, col * 2)
            self._grid.addWidget(control.widget, row, col * 2 + 1)
            self._controls[spec.name] = control
        self._grid.addWidget(self.error, -(-len(shown) // PAIRS_PER_ROW), 0, 1, PAIRS_PER_ROW * 2)
        self.setVisible(bool(shown))
        self._loading = loading

    def _control(self, spec: ParamSpec) -> _Control:
        """A control for one parameter, by its default's type, choices and range."""
        tip = spec.help + REBUILDS
        if spec.choices:
            combo = QComboBox()
            combo.addItems(list(spec.choices))
            combo.currentIndexChanged.connect(self._edited)
            control = _Control(combo, combo.currentText, lambda v: combo.setCurrentText(str(v)))
        elif isinstance(spec.default, bool):
            box = QCheckBox()
            box.toggled.connect(self._edited)
            control = _Control(box, box.isChecked, lambda v: box.setChecked(bool(v)))
        elif isinstance(spec.default, int):
            spin = QSpinBox()
            spin.setRange(int(spec.minimum if spec.minimum is not None else -1_000_000),
                          int(spec.maximum if spec.maximum is not None else 1_000_000))
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._edited)
            control = _Control(spin, spin.value, lambda v: spin.setValue(int(v)))
        elif isinstance(spec.default, float):
            real = QDoubleSpinBox()
            real.setRange(spec.minimum if spec.minimum is not None else -1e9,
                          spec.maximum if spec.maximum is not None else 1e9)
            span = real.maximum() - real.minimum()
            real.setDecimals(1 if span >= 10 else 2)
            real.setSingleStep(1.0 if span >= 10 else 0.05)
            real.setKeyboardTracking(False)
            real.valueChanged.connect(self._edited)
            control = _Control(real, lambda: round(real.value(), real.decimals()), lambda v: real.setValue(float(v)))
        else:
            line = QLineEdit()
            line.editingFinished.connect(self._edited)
            control = _Control(line, line.text, lambda v: line.setText(str(v)))
        control.widget.setToolTip(tip)
        return control

    def _edited(self, *_: object) -> None:
        if not self._loading:
            self.changed.emit()


def show_slider_params(kind: ChunkerKind, values: dict[str, ParamValue], size: SliderRow,
                       overlap: SliderRow) -> None:
    """Point the panel's size and overlap sliders at ``kind``'s size and overlap parameters (shown only where
    it has them), labelled and explained by the parameters' own metadata, showing ``values``."""
    specs = {p.name: p for p in kind.params}
    size_name, overlap_name = mapped_params(kind)
    size.setVisible(size_name is not None)
    overlap.setVisible(overlap_name is not None)
    if size_name is not None:
        value = int(values.get(size_name, specs[size_name].default))
        lo, hi, step = size_slider_range(specs[size_name], value)
        size.setStep(step)
        size.setRange(lo, hi)
        size.setValue(value)
        label_row(size, param_label(size_name), specs[size_name].help + REBUILDS)
    if overlap_name is not None:
        value = int(values.get(overlap_name, specs[overlap_name].default))
        overlap.setRange(0, max(max_overlap(size.value()), value))  # a loaded value is shown, not clamped
        overlap.setValue(value)
        label_row(overlap, param_label(overlap_name), specs[overlap_name].help + REBUILDS)


def label_row(row: SliderRow, label: str, tooltip: str) -> None:
    """Give a slider row another label and tooltip."""
    row.label.setText(label)
    for widget in (row, row.label, row.slider, row.spin):
        widget.setToolTip(tooltip)


def _kind_or_none(name: str) -> ChunkerKind | None:
    try:
        return get_kind(name)
    except ChunkerError:
        return None

