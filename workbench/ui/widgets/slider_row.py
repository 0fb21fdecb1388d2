"""A labelled slider with its number: the slider and the spin box always show the same value."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QSpinBox, QWidget


class SliderRow(QWidget):
    """``label  [slider]  [spin]``; ``valueChanged`` fires once per distinct value."""

    valueChanged = Signal(int)

    def __init__(self, label: str, minimum: int, maximum: int, value: int, tooltip: str, step: int = 1,
                 suffix: str = "", special: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value: int | None = None
        self.label = QLabel(label)
        self.label.setMinimumWidth(70)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(50)
        self.spin = QSpinBox()
        self.spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.spin.setKeyboardTracking(False)
        if suffix:
            self.spin.setSuffix(f" {suffix}")
        if special:
            self.spin.setSpecialValueText(special)
        self._step = max(1, step)
        self.setRange(minimum, maximum)
        self.slider.setSingleStep(1)
        self.slider.setPageStep(max(1, (maximum - minimum) // self._step // 10))
        for w in (self, self.label, self.slider, self.spin):
            w.setToolTip(tooltip)
        self.label.setBuddy(self.slider)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)
        lay.addWidget(self.label)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)
        self.setValue(value)
        self.slider.valueChanged.connect(lambda i: self._set(self._minimum + i * self._step))
        self.spin.valueChanged.connect(self._set)

    def setStep(self, step: int) -> None:
        """Slider increment (call ``setRange`` afterwards to apply it)."""
        self._step = max(1, step)

    def setRange(self, minimum: int, maximum: int) -> None:
        """Allowed values (the slider moves in ``step`` increments from ``minimum``)."""
        self._minimum, self._maximum = minimum, maximum
        self.slider.blockSignals(True)
        self.spin.blockSignals(True)
        self.slider.setRange(0, (maximum - minimum) // self._step)
        self.spin.setRange(minimum, maximum)
        self.spin.setSingleStep(self._step)
        self.slider.blockSignals(False)
        self.spin.blockSignals(False)
        if self._value is not None:
            self._set(self._value)  # clamp into the new range (emits when it changed)

    def value(self) -> int:
        """The current value."""
        return self._value if self._value is not None else self._minimum

    def setValue(self, value: int) -> None:
        """Set the value (clamped); emits ``valueChanged`` when it changes."""
        self._set(value)

    def _set(self, value: int) -> None:
        value = min(max(int(value), self._minimum), self._maximum)
        self.slider.blockSignals(True)
        self.spin.blockSignals(True)
        self.slider.setValue(round((value - self._minimum) / self._step))
        self.spin.setValue(value)
        self.slider.blockSignals(False)
        self.spin.blockSignals(False)
        if value != self._value:
            self._value = value
            self.valueChanged.emit(value)
