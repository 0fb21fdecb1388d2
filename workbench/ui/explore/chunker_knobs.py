"""The chunker knob of one side: every chunking is a chunker spec here too, name + parameters, whatever cuts it.

The combo lists the chunkers by name (``listed_chunkers``: ``fixed``, ``sentence``, ``structure``, ``recursive``,
``semantic``, ``late``, the adapters, …), and the chosen one's controls come from its declared parameters
(``ChunkerKind.params``, the declaration ``workbench chunkers`` and ``--chunker`` read): the panel's size and
overlap sliders (given to ``ChunkerKnobs``) hold its size parameter (``choice.size_param``: ``size`` or
``max_tokens``) and its ``overlap``, shown only where it has them; every other parameter gets a control here: an
int a spin box with its range, a float a decimal spin box, a parameter with choices a combo box, a bool a check
box and free text a line edit, each with the parameter's help as its tooltip.

The value written is the command line's: ``chunk_config(base)`` is ``choice.apply_chunker(base, {"name": …,
**parameters}, size=…, overlap=…)``, what ``--chunker JSON --chunk-size N --overlap M`` makes of ``base``; picking
a chunker is ``--chunker NAME`` over the chunking shown (``apply_chunker(shown, name)``: a built-in cut keeps the
unit, size and overlap of the one before, any other chunker starts at its defaults). Nothing here builds a chunk
set; the stored form of a chunking (and so every chunk set's id) is ``apply_chunker``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

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
from workbench.core.ingest.chunkers.choice import (
    apply_chunker,
    config_chunker,
    size_param,
    spec_unit,
)
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX
from workbench.core.ingest.chunkers.protocol import ParamValue
from workbench.core.ingest.chunkers.registry import CUSTOM_PREFIX
from workbench.core.ingest.values import ChunkConfig, max_overlap
from workbench.ui.widgets.elided_combo import ElidedComboBox
from workbench.ui.widgets.slider_row import SliderRow

OVERLAP = "overlap"
UNIT = "unit"
SIZE_RANGES = {"tokens": (16, 512, 8), "words": (10, 400, 5), "sentences": (1, 10, 1)}
"""The size slider's ``(minimum, maximum, step)`` by the unit the size counts (widened to hold a value)."""
PAIRS_PER_ROW = 2
TIP = ("Chunker: how documents are cut into searchable chunks ('workbench chunkers' lists them, with their "
       "parameters): fixed windows of tokens, words or sentences, whole paragraphs of one section (structure), or "
       "a registry chunker. Changing it builds a new chunk set in the background; a set built before is used at "
       "once.")
REBUILDS = " Changing it re-chunks in the background (cached embeddings are reused)."
SIZE_TIP = " How much text each searchable chunk holds; smaller chunks give sharper search vectors."
OVERLAP_TIP = " Shared by consecutive chunks, so a sentence cut at a boundary is still whole in one chunk."
SLIDER_LABELS = {"size": "Chunk size", OVERLAP: "Overlap"}


class ListedChunker(NamedTuple):
    """One entry of a side's chunker list: the name a chunking is stored under, and its tooltip."""

    name: str
    summary: str


def listed_chunkers() -> list[ListedChunker]:
    """The chunkers both sides' lists offer, in registration order (built-in cuts first, then the other built-in
    chunkers and the adapters): the one place the list is made."""
    return [ListedChunker(kind.name, kind.summary) for kind in chunker_kinds()]


def param_label(name: str) -> str:
    """``max_tokens`` → ``Max tokens`` (the sliders' parameters: ``Chunk size``, ``Overlap``)."""
    return SLIDER_LABELS.get(name, name.replace("_", " ").capitalize())


def mapped_params(kind: ChunkerKind) -> tuple[str | None, str | None]:
    """The parameters the panel's size and overlap sliders set: ``(size parameter, "overlap")``, each or None."""
    has_overlap = any(p.name == OVERLAP for p in kind.params)
    return size_param(kind), OVERLAP if has_overlap else None


def size_slider_range(spec: ParamSpec, value: int, unit: str = "tokens") -> tuple[int, int, int]:
    """``(minimum, maximum, step)`` of the size slider for a chunker's size parameter holding ``value``, counted
    in ``unit``: the unit's range, widened to hold ``value`` and kept inside the parameter's own range."""
    lo, hi, step = SIZE_RANGES.get(unit, SIZE_RANGES["tokens"])
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
        for row in range(self.count()):
            kind = _kind_or_none(str(self.itemData(row)))
            hint = kind.available() if kind is not None else "this chunker cannot be loaded"
            item = model.item(row) if isinstance(model, QStandardItemModel) else None
            if item is not None:
                item.setEnabled(not hint)
            summary = kind.summary if kind is not None else ""
            self.setItemData(row, f"Not available: {hint}" if hint else summary, Qt.ItemDataRole.ToolTipRole)


class ChunkerKnobs(QWidget):
    """The chunker combo (``combo``, laid out by the panel), the panel's ``size`` and ``overlap`` sliders it
    drives, and this grid of the chosen chunker's other parameters."""

    changed = Signal()  # another chunker was picked, or one of its parameters (a slider's too) was edited

    def __init__(self, size: SliderRow, overlap: SliderRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loading = False
        self._controls: dict[str, _Control] = {}
        self._kind: ChunkerKind | None = None
        self.size_row, self.overlap_row = size, overlap
        self.combo = ChunkerCombo()
        self.combo.setToolTip(TIP)
        for entry in listed_chunkers():
            self.combo.addItem(entry.name, entry.name)
            self.combo.setItemData(self.combo.count() - 1, entry.summary, Qt.ItemDataRole.ToolTipRole)
        self.error = QLabel("")
        self.error.setObjectName("banner")
        self.error.setWordWrap(True)
        self.error.hide()
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(3)
        self.combo.currentIndexChanged.connect(self._picked)
        size.valueChanged.connect(self._size_moved)
        overlap.valueChanged.connect(self._edited)
        self.setVisible(False)

    # ----- value in / out ------------------------------------------------------------------
    def name(self) -> str:
        """The chosen chunker's registered name (``fixed``, ``recursive``, ``custom:m:f`` …)."""
        return str(self.combo.currentData() or "")

    def kind(self) -> ChunkerKind | None:
        """The chosen chunker's kind (None only while a name that cannot be loaded is shown)."""
        return self._kind

    def values(self) -> dict[str, ParamValue]:
        """The chosen chunker's parameters as shown: those here and those the size and overlap sliders hold."""
        out = {name: control.get() for name, control in self._controls.items()}
        if self._kind is not None:
            size_name, overlap_name = mapped_params(self._kind)
            if size_name is not None:
                out[size_name] = self.size_row.value()
            if overlap_name is not None:
                out[overlap_name] = self.overlap_row.value()
        return out

    def chunk_config(self, base: ChunkConfig) -> ChunkConfig:
        """``base`` cut by the chunker shown: the command line's ``--chunker '{"name": …, …}' --chunk-size N
        --overlap M`` over ``base`` (``choice.apply_chunker``). ``ChunkerError`` when the parameters do not fit."""
        kind = self._kind
        if kind is None:
            raise ChunkerError(f"chunker {self.name()!r} cannot be loaded")
        values = self.values()
        size_name, overlap_name = mapped_params(kind)
        size = values.pop(size_name) if size_name else None
        overlap = values.pop(overlap_name) if overlap_name else None
        return apply_chunker(base, {"name": kind.name, **values}, size=None if size is None else int(size),
                             overlap=None if overlap is None else int(overlap))

    def show_config(self, config: ChunkConfig) -> None:
        """Show the chunking ``config`` stores (either of its forms) without emitting: its chunker in the list,
        its parameters (defaults filled in) in the sliders and controls. Naming a custom chunker loads nothing."""
        self._loading = True
        try:
            name, params = config_chunker(config)
            kind = get_kind(name)
            if self.combo.findData(kind.name) < 0:  # a custom:module:function chunker, or one registered late
                self.combo.addItem(kind.name, kind.name)
            self.combo.setCurrentIndex(self.combo.findData(kind.name))
            self._rebuild(kind, kind.checked_params(**params))  # shown, not loaded: data may name a custom chunker
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
        """Another chunker: ``--chunker NAME`` over the chunking shown until now."""
        if self._loading:
            return
        name = self.name()
        if name.startswith(CUSTOM_PREFIX):
            trust(name)  # chosen here by the user: allowed for this run (see workbench.core.consent)
        try:
            try:
                shown = self.chunk_config(ChunkConfig())
            except (ChunkerError, ValueError):  # the controls held a refused edit: from the defaults
                shown = ChunkConfig()
            self.show_config(apply_chunker(shown, name))
        except ChunkerError as exc:
            self._rebuild(_kind_or_none(name))
            self.set_error(str(exc))
        self.changed.emit()

    def _rebuild(self, kind: ChunkerKind | None, values: dict[str, ParamValue] | None = None) -> None:
        """Sliders and controls for ``kind``'s parameters (``values``, else its defaults), two to a row."""
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
        given = {p.name: (values or {}).get(p.name, p.default) for p in (kind.params if kind is not None else ())}
        self._show_sliders(kind, given)
        mapped = set(mapped_params(kind)) if kind is not None else set()
        shown = [p for p in (kind.params if kind is not None else ()) if p.name not in mapped]
        for i, spec in enumerate(shown):
            control = self._control(spec)
            control.put(given[spec.name])
            label = QLabel(param_label(spec.name))
            label.setToolTip(spec.help + REBUILDS)
            label.setBuddy(control.widget)
            row, col = divmod(i, PAIRS_PER_ROW)
            self._grid.addWidget(label, row, col * 2)
            self._grid.addWidget(control.widget, row, col * 2 + 1)
            label.show()  # a child added to a shown widget stays hidden until shown
            control.widget.show()
            self._controls[spec.name] = control
        self._grid.addWidget(self.error, -(-len(shown) // PAIRS_PER_ROW), 0, 1, PAIRS_PER_ROW * 2)
        self.setVisible(bool(shown))
        self._loading = loading

    def _show_sliders(self, kind: ChunkerKind | None, values: dict[str, ParamValue]) -> None:
        """Point the size and overlap sliders at ``kind``'s size and overlap parameters (shown only where it has
        them), labelled and explained by the parameters' own declaration, showing ``values``."""
        specs = {p.name: p for p in kind.params} if kind is not None else {}
        size_name, overlap_name = mapped_params(kind) if kind is not None else (None, None)
        self.size_row.setVisible(size_name is not None)
        self.overlap_row.setVisible(overlap_name is not None)
        if size_name is not None and kind is not None:
            value = int(values[size_name])
            lo, hi, step = size_slider_range(specs[size_name], value, spec_unit(kind.name, values))
            self.size_row.setStep(step)
            self.size_row.setRange(lo, hi)
            self.size_row.setValue(value)
            label_row(self.size_row, param_label(size_name), f"{param_label(size_name)}: {specs[size_name].help}."
                      + SIZE_TIP + REBUILDS)
        if overlap_name is not None:
            value = int(values[overlap_name])
            self.overlap_row.setRange(0, max(max_overlap(self.size_row.value()), value))  # a loaded value: shown
            self.overlap_row.setValue(value)
            label_row(self.overlap_row, param_label(overlap_name), f"{param_label(overlap_name)}: "
                      f"{specs[overlap_name].help}." + OVERLAP_TIP + REBUILDS)

    def _control(self, spec: ParamSpec) -> _Control:
        """A control for one parameter, by its default's type, choices and range."""
        tip = spec.help + REBUILDS
        if spec.choices:
            combo = QComboBox()
            combo.addItems(list(spec.choices))
            combo.currentIndexChanged.connect(self._unit_changed if spec.name == UNIT else self._edited)
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

    def _unit_changed(self, *_: object) -> None:
        """What the size counts changed: the size slider takes that unit's range (sentences start at the
        smallest size, another unit keeps the size, brought into the range)."""
        if self._loading or self._kind is None:
            return
        size_name = size_param(self._kind)
        if size_name is not None:
            unit = spec_unit(self._kind.name, self.values())
            spec = next(p for p in self._kind.params if p.name == size_name)
            lo, hi, step = size_slider_range(spec, SIZE_RANGES.get(unit, SIZE_RANGES["tokens"])[0], unit)
            self._loading = True
            self.size_row.setStep(step)
            self.size_row.setRange(lo, hi)
            self.size_row.setValue(lo if unit == "sentences" else self.size_row.value())
            self.overlap_row.setRange(0, max_overlap(self.size_row.value()))
            self._loading = False
        self.changed.emit()

    def _size_moved(self, size: int) -> None:
        if self._loading:
            return
        self._loading = True
        self.overlap_row.setRange(0, max_overlap(size))
        self._loading = False
        self.changed.emit()

    def _edited(self, *_: object) -> None:
        if not self._loading:
            self.changed.emit()


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
