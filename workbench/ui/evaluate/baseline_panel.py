"""Every configuration of a run against a chosen baseline: the paired differences of recall, IoU and context
tokens with Holm-adjusted p-values and the intervals of the same test at the same levels, worded as ``workbench
eval --baseline`` prints them (``core.evaluate.baseline``), so a researcher sees at once which differences are
noise."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from workbench.core.evaluate.baseline import compare_to_baseline
from workbench.core.evaluate.sweep import ConfigResult
from workbench.ui.widgets.elided_combo import ElidedComboBox

NEEDS_TWO = "Run two or more configurations over the same questions to compare them with a baseline."


class BaselinePanel(QWidget):
    """A baseline chooser and the comparison text of every other configuration against it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[ConfigResult] = []
        self.baseline = ElidedComboBox()
        self.baseline.setToolTip("The configuration every other one is compared with (A = baseline, B = row)")
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        row = QHBoxLayout()
        row.addWidget(QLabel("Baseline"))
        row.addWidget(self.baseline, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.text, 1)
        self.baseline.currentIndexChanged.connect(self._update)
        self.set_results([])

    def set_results(self, results: Sequence[ConfigResult]) -> None:
        """A run's configurations; the first is the baseline until the user picks another."""
        self.results = list(results)
        self.baseline.blockSignals(True)
        self.baseline.clear()
        for r in self.results:
            self.baseline.addItem(r.config.key, r.config.key)
        self.baseline.blockSignals(False)
        self.baseline.setEnabled(len(self.results) > 1)
        self._update()

    def _update(self) -> None:
        if len(self.results) < 2:
            self.text.setPlainText(NEEDS_TWO)
            return
        comparison = compare_to_baseline(self.results, max(0, self.baseline.currentIndex()))
        self.text.setPlainText("\n".join(comparison.lines()))
