"""The evaluation lab's tables: the summary (one row per configuration) and the questions of the selected
configuration, filled from the core's summary rows and question results."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QTableWidget, QTableWidgetItem

from workbench.core.evaluate.metrics import METRICS, Metric, table_metrics

if TYPE_CHECKING:
    from workbench.core.evaluate.sweep import Comparison, ConfigResult, QuestionResult



def summary_columns() -> list[str]:
    """The summary table's headings: the configuration, every registered metric shown in tables
    (``metrics.table_metrics``), the questions."""
    return ["configuration", *(m.column for m in table_metrics()), "questions"]


def question_columns() -> list[str]:
    """The question table's headings: number, question, every registered per-question metric, the first hit,
    the context tokens and the change against configuration B."""
    return ["#", "question", *(m.column for m in _question_metrics()), "first hit", "ctx tokens", "vs compared"]


def change_words(comparison: Comparison) -> dict[int, str]:
    """The *vs compared* cell of each question whose recall moved, for ``compare_rows(compared, this)``: which
    configuration is better on it and by how many points, e.g. ``this better by 100`` (this one answered it
    fully, the compared one not at all) or ``compared better by 40``."""
    words = {c.q_index: f"this better by {100 * c.delta:.0f}" for c in comparison.fixed}
    words |= {c.q_index: f"compared better by {-100 * c.delta:.0f}" for c in comparison.broke}
    return words


def _question_metrics() -> list[Metric]:
    return [m for m in METRICS.values() if m.per_question]


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
    t.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # never cut at both ends ("ecall % (in-samp")
    t.resizeColumnsToContents()  # the headers whole while the table is empty
    for col, text in enumerate(columns):  # a header narrower than its text is elided: the tooltip has it whole
        item = t.horizontalHeaderItem(col)
        if item is not None and not item.toolTip():
            item.setToolTip(text)
    return t


def fill_summary(table: QTableWidget, rows: Sequence[Mapping[str, Any]], colours: Mapping[str, str]) -> None:
    """One row per configuration (``export.summary_rows``), its description as every cell's tooltip and, in
    the first cell, a swatch of the colour of its line in the plots (``colours``: key → colour); the columns of
    ``summary_columns``."""
    metrics = table_metrics()
    table.setColumnCount(len(metrics) + 2)
    table.setHorizontalHeaderLabels(summary_columns())
    table.setRowCount(len(rows))
    for i, r in enumerate(rows):
        cells = [r["key"], *(m.cell(r[m.name]) for m in metrics), str(r["questions"])]
        for j, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(r["description"])
            if j == 0 and r["key"] in colours:
                item.setData(Qt.ItemDataRole.DecorationRole, QColor(colours[r["key"]]))
            table.setItem(i, j, item)
    table.resizeColumnsToContents()


def fill_questions(table: QTableWidget, rows: Sequence[QuestionResult], changes: Mapping[int, str]) -> None:
    """One row per question (numbers from 1, as the Questions tab numbers them, sort as numbers; the columns of
    ``question_columns``); each item keeps its row's position in ``rows``."""
    metrics = _question_metrics()
    table.setColumnCount(len(metrics) + 5)
    table.setHorizontalHeaderLabels(question_columns())
    table.setRowCount(len(rows))
    for i, r in enumerate(rows):
        m = r.metrics
        # numbered from 1, as in the Questions tab
        cells: list[int | str] = [r.q_index + 1, r.question, *(metric.cell(metric.value(m)) for metric in metrics),
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
