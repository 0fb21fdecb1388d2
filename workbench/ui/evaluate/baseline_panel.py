"""Every configuration of a run against a chosen baseline: the paired differences of recall, IoU and context
tokens with Holm-adjusted p-values and the intervals of the same test at the same levels, worded as ``workbench
eval --baseline`` prints them (``core.evaluate.baseline``), so a researcher sees at once which differences are
noise; a table of the recall differences with what the questions detect and how many a chosen difference
would need (``core.evaluate.power``), and that said in words above it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.baseline import BaselineComparison, compare_to_baseline
from workbench.core.evaluate.power import TARGET_POINTS
from workbench.core.evaluate.statistics import MetricDifference, format_p, interval_end, signed_value
from workbench.core.evaluate.sweep import ConfigResult
from workbench.ui.widgets.elided_combo import ElidedComboBox
from workbench.ui.widgets.wrapped_label import WrappedLabel

NEEDS_TWO = "Run two or more configurations over the same questions to compare them with a baseline."
CONFIGURATION_WIDTH = 260  # the configuration column's widest (longer keys elide, whole in the tooltip)


def power_columns(target_points: float) -> list[str]:
    """The table's headings; the last names the difference whose questions-needed figure it gives."""
    return ["configuration", "Δ recall", "CI", "p", "detects ≥", f"n for {target_points:g} pts"]


COLUMN_TIPS = ["B: the configuration compared with the baseline (A)",
               "B − A mean recall, points, over the questions both answered",
               "the interval of the sign-flip test (Holm-adjusted level with several comparisons)",
               "the sign-flip p-value (Holm-adjusted with several comparisons)",
               "the smallest true difference in recall (points) these questions detect 80% of the time at α 0.05",
               "about how many questions like these a difference of this many points needs (80% power, α 0.05)"]


def power_cells(m: MetricDifference, target_points: float) -> list[str]:
    """One comparison's recall cells after the configuration: difference, interval, p, detectable, needed."""
    power = m.power(target_points)
    p = format_p(m.p).removeprefix("p = ").replace("p < ", "< ")
    interval = f"[{interval_end(m.ci_low, 'points')}, {interval_end(m.ci_high, 'points')}]"
    return [signed_value(m.diff, "points"), interval, p, power.detects_cell(), power.needed_cell()]


def power_summary(comparison: BaselineComparison, target_points: float) -> str:
    """The recall claim in words, from the comparison whose spread is the middle one of the run's: ``Recall,
    [plain window=1] against [plain]: these 40 questions detect about 16 points (80% power, α 0.05); to tell 5
    points apart you need about 387 questions like these.``"""
    found = [(c.metrics["recall"], key) for key, c in comparison.comparisons.items() if "recall" in c.metrics]
    if not found:
        return ""
    found.sort(key=lambda mk: (math.isnan(mk[0].sd), mk[0].sd))
    middle, key = found[(len(found) - 1) // 2]
    which = f"[{key}] against [{comparison.baseline}]"
    if len(found) > 1:
        which += f" (the middle spread of {len(found)} comparisons)"
    return f"Recall, {which}: {middle.power(target_points).words()}."


class BaselinePanel(QWidget):
    """A baseline chooser, the difference to detect, a table of each configuration's recall against the
    baseline with what the questions detect, the claim in words, and the comparison text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[ConfigResult] = []
        self.comparison: BaselineComparison | None = None
        self.baseline = ElidedComboBox()
        self.baseline.setToolTip("The configuration every other one is compared with (A = baseline, B = row)")
        self.detect = QDoubleSpinBox()
        self.detect.setRange(0.5, 100.0)
        self.detect.setSingleStep(0.5)
        self.detect.setDecimals(1)
        self.detect.setValue(TARGET_POINTS)
        self.detect.setSuffix(" points")
        self.detect.setToolTip("The difference in recall whose questions-needed figure the table and the summary "
                               "give (80% power, α 0.05)")
        self.summary = WrappedLabel()
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(COLUMN_TIPS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)  # a long key elides on its one line (whole in its tooltip)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        row = QHBoxLayout()
        row.addWidget(QLabel("Baseline"))
        row.addWidget(self.baseline, 1)
        row.addWidget(QLabel("Detect"))
        row.addWidget(self.detect)
        self.split = QSplitter(Qt.Orientation.Horizontal)  # side by side: the lab's lower pane is wide, not tall
        self.split.addWidget(self.table)
        self.split.addWidget(self.text)
        self.split.setChildrenCollapsible(False)
        lines = self.text.fontMetrics().lineSpacing()
        self.table.setMinimumHeight(3 * lines)  # the heading and a row; the lab fits 1280×720 without scrolling
        self.text.setMinimumHeight(2 * lines)
        self.split.setStretchFactor(0, 3)  # the table first; the comparison text beside it (drag for more)
        self.split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(self.split, 1)
        self.baseline.currentIndexChanged.connect(self._update)
        self.detect.valueChanged.connect(self._show)
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
        """Compare again (a new run or baseline), then show."""
        self.comparison = None
        if len(self.results) >= 2:
            self.comparison = compare_to_baseline(self.results, max(0, self.baseline.currentIndex()))
        self._show()

    def _show(self) -> None:
        """The table, the words and the text of the current comparison at the chosen difference to detect."""
        target = self.detect.value()
        comparison = self.comparison
        self.table.setRowCount(0)
        self._set_headers(target)
        if comparison is None:
            self.summary.setText("")
            self.summary.setVisible(False)
            self.text.setPlainText(NEEDS_TWO)
            return
        for c in comparison.comparisons.values():
            c.target_points = target
        self.text.setPlainText("\n".join(comparison.lines()))
        self.summary.setText(power_summary(comparison, target))
        self.summary.setVisible(bool(self.summary.text()))
        for key, c in comparison.comparisons.items():
            m = c.metrics.get("recall")
            if m is None:
                continue
            i = self.table.rowCount()
            self.table.insertRow(i)
            why = m.power(target).why_not
            for j, text in enumerate([key, *power_cells(m, target)]):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(key if j == 0 else (why if why and j >= 4 else m.sentence()))
                self.table.setItem(i, j, item)
        self._fit_columns()

    def _set_headers(self, target: float) -> None:
        for j, (title, tip) in enumerate(zip(power_columns(target), COLUMN_TIPS, strict=True)):
            item = QTableWidgetItem(title)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(j, item)

    def _fit_columns(self) -> None:
        """Every column as wide as its heading and cells (never clipped: a narrow pane scrolls sideways), but
        the configuration, which keeps at most ``CONFIGURATION_WIDTH`` and elides longer keys."""
        header = self.table.horizontalHeader()
        self.table.resizeColumnsToContents()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        first = max(header.sectionSizeHint(0), min(self.table.columnWidth(0), CONFIGURATION_WIDTH))
        self.table.setColumnWidth(0, first)
