"""The evaluation lab's tables: the summary (one row per configuration) and the questions of the selected
configuration, filled from the core's summary rows and question results."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QTableWidget, QTableWidgetItem

if TYPE_CHECKING:
    from workbench.core.evaluate.sweep import ConfigResult, QuestionResult

SUMMARY_COLUMNS = ["configuration", "recall %", "precision %", "IoU %", "hit %", "MRR", "ctx tokens", "questions"]
QUESTION_COLUMNS = ["#", "question", "recall %", "precision %", "IoU %", "first hit", "ctx tokens", "vs B"]


def pct(x: float | None) -> str:
    """A rate in percent with one decimal ("-" when there is none)."""
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def make_table(columns: list[str]) -> QTableWidget:
    """A read-only table selecting whole rows, one at a time."""
    t = QTableWidget(0, len(columns))
    t.setHorizontalHeaderLabels(columns)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def fill_summary(table: QTableWidget, rows: Sequence[Mapping[str, Any]], colours: Mapping[str, str]) -> None:
    """One row per configuration (``export.summary_rows``), its description as every cell's tooltip and, in
    the first cell, a swatch of the colour of its line in the plots (``colours``: key → colour)."""
    table.setRowCount(len(rows))
    for i, r in enumerate(rows):
        cells = [r["key"], pct(r["recall"]), pct(r["precision"]), pct(r["iou"]), pct(r["hit_rate"]),
                 "-" if r["mrr"] is None else f"{r['mrr']:.3f}", f"{r['context_tokens']:.0f}", str(r["questions"])]
        for j, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(r["description"])
            if j == 0 and r["key"] in colours:
                item.setData(Qt.ItemDataRole.DecorationRole, QColor(colours[r["key"]]))
            table.setItem(i, j, item)
    table.resizeColumnsToContents()


def fill_questions(table: QTableWidget, rows: Sequence[QuestionResult], changes: Mapping[int, str]) -> None:
    """One row per question (numbers sort as numbers); each item keeps its row's position in ``rows``."""
    table.setRowCount(len(rows))
    for i, r in enumerate(rows):
        m = r.metrics
        cells = [r.q_index, r.question, pct(m.recall), pct(m.precision), pct(m.iou),
                 m.first_rank or "-", m.context_tokens, changes.get(r.q_index, "")]
        for j, value in enumerate(cells):
            item = QTableWidgetItem()
            item.setData(Qt.ItemDataRole.DisplayRole, value if isinstance(value, int) else str(value))
            item.setData(Qt.ItemDataRole.UserRole, i)
            table.setItem(i, j, item)


def fill_compare_to(combo: QComboBox, results: Sequence[ConfigResult], colours: Mapping[str, str]) -> None:
    """The *compare with* choices: none, then every configuration (by key, with its colour's swatch), without
    emitting a change."""
    combo.blockSignals(True)
    combo.clear()
    combo.addItem("—", None)
    for r in results:
        add_configuration(combo, r.config.key, colours)
    combo.blockSignals(False)


def add_configuration(combo: QComboBox, key: str, colours: Mapping[str, str]) -> None:
    """Add configuration ``key`` to ``combo`` (data: the key) with a swatch of its colour and the key as its
    tooltip (a narrow combo elides it)."""
    combo.addItem(key, key)
    index = combo.count() - 1
    if key in colours:
        combo.setItemData(index, QColor(colours[key]), Qt.ItemDataRole.DecorationRole)
    combo.setItemData(index, key, Qt.ItemDataRole.ToolTipRole)


def table_width(t: QTableWidget) -> int:
    """The width ``t`` needs to show every column without scrolling."""
    columns = sum(t.horizontalHeader().sectionSizeHint(i) for i in range(t.columnCount()))
    columns = max(columns, sum(t.columnWidth(i) for i in range(t.columnCount())))
    return (columns + t.verticalHeader().sizeHint().width() + 2 * t.frameWidth()
            + t.verticalScrollBar().sizeHint().width() + 4)
