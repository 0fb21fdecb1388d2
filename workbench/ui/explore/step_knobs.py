"""The later steps' knobs (LLM rerank, per-document cap, whole documents …), built from each registered step's
declaration (``Step.knobs`` in ``core/retrieve/steps``): a yes/no field or a field of two choices is a check
box, a number a spin box with the knob's range, step, text for its minimum and unit. A step registered later
gets its controls here without a change to the window.

Each control is enabled only where it changes what the strategy does (``Step.applies``: parent reranking only
with LLM rerank and an expansion that groups hits); ``changes()`` gives the step fields they set.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QHBoxLayout, QLabel, QSpinBox, QWidget

from workbench.core.retrieve.expansions.base import Expansion
from workbench.core.retrieve.knobs import Knob, ParamValue
from workbench.core.retrieve.steps.base import Step, all_steps, step_field_types, step_knobs, with_step_changes
from workbench.core.retrieve.strategy.presets import Strategy

PER_ROW = 3  # controls per row: a narrow side keeps every label whole


def is_check_box(knob: Knob) -> bool:
    """True when ``knob`` is shown as a check box (a yes/no field, or a field of two choices: off, on)."""
    return step_field_types()[knob.field] == "bool" or len(knob.choices) == 2


class StepKnobs(QWidget):
    """One control per knob of every registered later step, ``PER_ROW`` to a row."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controls: dict[str, QCheckBox | QSpinBox] = {}
        self.knobs: dict[str, Knob] = {}
        self._steps: tuple[Step, ...] = Strategy().steps
        lay = QGridLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setHorizontalSpacing(6)
        lay.setVerticalSpacing(3)
        for i, (_cls, knob) in enumerate(step_knobs()):
            self.knobs[knob.field] = knob
            cell = QHBoxLayout()
            control: QCheckBox | QSpinBox
            if is_check_box(knob):
                control = QCheckBox(knob.label)
                control.toggled.connect(self.changed)
            else:
                label = QLabel(knob.label)
                label.setToolTip(knob.tooltip)
                cell.addWidget(label)
                control = QSpinBox()
                control.setRange(int(knob.minimum), int(knob.maximum))
                control.setSingleStep(int(knob.step))
                control.setSpecialValueText(knob.special)
                control.setSuffix(knob.suffix)
                control.valueChanged.connect(self.changed)
            control.setToolTip(knob.tooltip)
            cell.addWidget(control)
            lay.addLayout(cell, i // PER_ROW, i % PER_ROW)
            self.controls[knob.field] = control
        lay.setColumnStretch(PER_ROW, 1)

    def show_strategy(self, strategy: Strategy) -> None:
        """Show ``strategy``'s step values (emits nothing)."""
        self.blockSignals(True)
        try:
            self._steps = strategy.steps
            for name, control in self.controls.items():
                value = strategy.setting(name)
                if isinstance(control, QCheckBox):
                    knob = self.knobs[name]
                    control.setChecked(value == knob.choices[-1] if knob.choices else bool(value))
                else:
                    control.setValue(int(value))
            self.enable_for(strategy.expander)
        finally:
            self.blockSignals(False)

    def enable_for(self, expander: Expansion) -> None:
        """Enable the controls that change anything with ``expander`` and the values shown."""
        for step in all_steps(with_step_changes(self._steps, self.changes())):
            for knob in step.knobs:
                self.controls[knob.field].setEnabled(step.applies(knob.field, expander))

    def changes(self) -> dict[str, ParamValue]:
        """The step fields these controls set."""
        out: dict[str, ParamValue] = {}
        for name, control in self.controls.items():
            knob = self.knobs[name]
            if isinstance(control, QCheckBox):
                out[name] = (knob.choices[-1] if control.isChecked() else knob.choices[0]) if knob.choices \
                    else control.isChecked()
            else:
                out[name] = control.value()
        return out
