"""The lab's *Curves by budget* tab: the recall-per-context-token plot (``CurvePlot``) beside a table of each
strategy's recall at 1,000 mean context tokens and area under its curve up to 2,000 tokens, both as the
core computed them (``core.evaluate.curves.budget_curves``). The table is the plot's legend: each row has its
curve's colour, outside the data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QTableWidgetItem, QWidget

from workbench.core.evaluate.curves import AT_TOKENS, AUC_TOKENS
from workbench.ui.evaluate.curve_plot import CurvePlot
from workbench.ui.evaluate.eval_tables import make_table, pct

FIGURE_COLUMNS = ["strategy", "recall\n@1k %", "AUC\n≤2k %"]
MAX_NAME_WIDTH = 200  # pixels; longer names are elided (the full one is in the row's tooltip)
COLUMN_TIPS = ["the configuration without its budget (one curve)",
               f"recall at {AT_TOKENS:,} mean context tokens, interpolated between the points around it",
               f"mean recall over 0–{AUC_TOKENS:,} mean context tokens (trapezoids from (0, 0))"]


class CurvePanel(QWidget):
    """``plot`` (the curves) and ``figures`` (one row per curve); ``show_curves(curves, colours)``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = CurvePlot()
        self.figures = make_table(FIGURE_COLUMNS)
        self.figures.verticalHeader().hide()
        self.figures.horizontalHeader().setStretchLastSection(False)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.figures.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideNone)  # two-line headers: sized whole
        for column, tip in enumerate(COLUMN_TIPS):
            header = self.figures.horizontalHeaderItem(column)
            if header is not None:
                header.setToolTip(tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.figures)
        self.curves: list[dict[str, Any]] = []

    def show_curves(self, curves: Sequence[Mapping[str, Any]], colours: Mapping[str, str] | None = None) -> None:
        """Draw ``curves`` (``budget_curves`` entries; [] for a run without budgets) and list their figures."""
        self.curves = [dict(c) for c in curves]
        self.plot.set_curves(self.curves, colours)
        self.figures.setRowCount(len(self.curves))
        for i, (c, colour) in enumerate(zip(self.curves, self.plot.colours, strict=True)):
            cells = [c["key"], pct(c["recall_at_1000"]), pct(c["auc_2000"])]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{c['key']}: {len(c['points'])} budgets")
                if j == 0:
                    item.setData(Qt.ItemDataRole.DecorationRole, QColor(colour))
                else:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.figures.setItem(i, j, item)
        self.figures.resizeColumnsToContents()
        for j in range(1, self.figures.columnCount()):  # the two-line headers read whole (a bold header is wider)
            self.figures.setColumnWidth(j, self.figures.columnWidth(j) + 8)
        self.figures.setColumnWidth(0, min(self.figures.columnWidth(0), MAX_NAME_WIDTH))
        columns = sum(self.figures.columnWidth(j) for j in range(self.figures.columnCount()))
        scroll = self.figures.verticalScrollBar().sizeHint().width() if self.figures.rowCount() > 8 else 0
        self.figures.setFixedWidth(columns + 2 * self.figures.frameWidth() + scroll + 2)
        self.figures.setVisible(bool(self.curves))
