"""The flip browser of the evaluation lab: for two configurations of a run, the questions A wins, B wins and
ties — by recall, or by answer label when the answers were judged — largest change first, with the
reference spans each side covered ("2/3 refs covered → 3/3") and the judge's one-line reasons.

A double click (or ``open_flip``) emits ``pairActivated(strategy A, strategy B)`` and then
``questionActivated(question, reference spans)``, the lab's own drill-down signal: the question opens side
by side in Explore with the reference spans drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.flips import BY_LABEL, BY_RECALL, Flip, find_flips, flip_counts, judged
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult
from workbench.core.spans import Span
from workbench.ui.evaluate.eval_tables import add_configuration
from workbench.ui.widgets.elided_combo import ElidedComboBox

COLUMNS = ["winner", "#", "question", "|change|", "A", "B", "references", "judge's reasons"]
GROUPS = [("all questions", None), ("B wins", "B"), ("A wins", "A"), ("ties", "tie")]
WINNER_TEXT = {"A": "A wins", "B": "B wins", "tie": "tie"}
CHANGE_COLUMN = 3

ReferenceLookup = Callable[[int, str], Sequence[Span]]


def _score(flip: Flip, side: str, by: str) -> str:
    row = flip.row_a if side == "A" else flip.row_b
    value = flip.before if side == "A" else flip.after
    if by == BY_LABEL:
        return row.label or "-"
    return "-" if value is None else f"{100 * value:.0f}%"


class FlipBrowser(QWidget):
    """Two configuration pickers, a winner filter, and the flips of the pair as a sortable table."""

    questionActivated = Signal(str, list)  # question, reference spans (as the lab's table)
    pairActivated = Signal(object, object)  # Strategy of A, Strategy of B

    def __init__(self, reference_spans: ReferenceLookup | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.reference_spans = reference_spans
        self.results: list[ConfigResult] = []
        self.colours: dict[str, str] = {}
        self.flips: list[Flip] = []
        self._refs: dict[int, list[Span]] = {}
        self.config_a, self.config_b = ElidedComboBox(), ElidedComboBox()
        self.by, self.group = QComboBox(), QComboBox()
        self.by.addItem("recall", BY_RECALL)
        self.by.addItem("answer label", BY_LABEL)
        self.by.setToolTip("Who wins a question: higher recall, or the better judged answer "
                           "(answered / clean no right, partial half, the rest wrong)")
        for text, winner in GROUPS:
            self.group.addItem(text, winner)
        self.counts = QLabel("")
        self.counts.setObjectName("muted")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)  # a narrow header is cut at its end, whole in its tip
        for col, text in enumerate(COLUMNS):
            head = self.table.horizontalHeaderItem(col)
            if head is not None:
                head.setToolTip(text)
        self.table.resizeColumnsToContents()  # the headers whole while the table is empty
        self.table.setToolTip("Double click: open the question side by side (A and B), reference spans drawn")
        row = QHBoxLayout()
        for label, widget in (("A", self.config_a), ("B", self.config_b), ("by", self.by), ("show", self.group)):
            row.addWidget(QLabel(label))
            row.addWidget(widget, 1 if widget in (self.config_a, self.config_b) else 0)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(row)
        lay.addWidget(self.counts)
        lay.addWidget(self.table, 1)
        for combo in (self.config_a, self.config_b, self.by):
            combo.currentIndexChanged.connect(self.refresh)
        self.group.currentIndexChanged.connect(self._fill)
        self.table.itemActivated.connect(self._activated)

    # ----- inputs ----------------------------------------------------------------------------
    def set_results(self, results: Sequence[ConfigResult], colours: Mapping[str, str] | None = None) -> None:
        """The configurations of a finished run (A = the first, B = the second by default), each with a swatch
        of its colour in the run (``colours``: key → colour, as the table and the plots show it)."""
        self.results = list(results)
        self.colours = dict(colours or {})
        self._refs = {}
        for combo, default in ((self.config_a, 0), (self.config_b, 1)):
            combo.blockSignals(True)
            combo.clear()
            for r in self.results:
                add_configuration(combo, r.config.key, self.colours)
            combo.setCurrentIndex(min(default, len(self.results) - 1))
            combo.blockSignals(False)
        judged_run = any(judged(r.rows) for r in self.results)
        self.by.blockSignals(True)
        self.by.setCurrentIndex(1 if judged_run else 0)
        self.by.blockSignals(False)
        self.refresh()

    def choose(self, key_a: str, key_b: str, by: str | None = None) -> None:
        """Compare configuration ``key_a`` (A) with ``key_b`` (B), by ``"recall"`` or ``"label"``."""
        for combo, key in ((self.config_a, key_a), (self.config_b, key_b), (self.by, by)):
            if key is not None:
                combo.blockSignals(True)
                combo.setCurrentIndex(combo.findData(key))
                combo.blockSignals(False)
        self.refresh()

    def _result(self, combo: QComboBox) -> ConfigResult | None:
        key = combo.currentData()
        return next((r for r in self.results if r.config.key == key), None)

    def _references(self, row: QuestionResult) -> list[Span]:
        if self.reference_spans is None:
            return []
        if row.q_index not in self._refs:
            self._refs[row.q_index] = list(self.reference_spans(row.q_index, row.question))
        return self._refs[row.q_index]

    # ----- the table -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the flips of the chosen pair and refill the table."""
        a, b = self._result(self.config_a), self._result(self.config_b)
        self.flips = [] if a is None or b is None else find_flips(a.rows, b.rows, self.by.currentData(),
                                                                  self._references)
        counts = flip_counts(self.flips)
        self.counts.setText(f"{len(self.flips)} questions: B wins {counts['B']}, A wins {counts['A']}, "
                            f"ties {counts['tie']} (by {self.by.currentText()})" if self.flips else "")
        self._fill()

    def shown_flips(self) -> list[Flip]:
        """The flips of the chosen group, in the table's current order."""
        items = (self.table.item(i, 0) for i in range(self.table.rowCount()))
        return [self.flips[item.data(Qt.ItemDataRole.UserRole)] for item in items if item is not None]

    def _fill(self) -> None:
        winner, by = self.group.currentData(), self.by.currentData()
        flips = [(i, f) for i, f in enumerate(self.flips) if winner is None or f.winner == winner]
        winners = {side: self.colours[key] for side, key in (("A", self.config_a.currentData()),
                                                             ("B", self.config_b.currentData()))
                   if key in self.colours}  # a win is shown in the winning configuration's colour
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(flips))
        for row, (i, f) in enumerate(flips):
            reason_a, reason_b = f.reasons
            reasons = " | ".join(x for x in (f"A: {reason_a}" if reason_a else "",
                                             f"B: {reason_b}" if reason_b else "") if x)
            cells: list[object] = [WINNER_TEXT[f.winner], f.q_index, f.question, round(100 * abs(f.change), 1),
                                   _score(f, "A", by), _score(f, "B", by), f.refs_line, reasons]
            for col, value in enumerate(cells):
                item = QTableWidgetItem()
                item.setData(Qt.ItemDataRole.DisplayRole, value)
                item.setData(Qt.ItemDataRole.UserRole, i)
                if col == 0 and f.winner in winners:
                    item.setData(Qt.ItemDataRole.DecorationRole, QColor(winners[f.winner]))
                if col == 6 and f.refs_a.total:
                    item.setToolTip(_refs_tooltip(f))
                elif col in (2, 7):
                    item.setToolTip(str(value))
                self.table.setItem(row, col, item)
        self.table.setSortingEnabled(True)
        self.sort_by_change()

    def sort_by_change(self, descending: bool = True) -> None:
        """Order the table by the size of the change (largest first unless ``descending`` is False)."""
        order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        self.table.sortItems(CHANGE_COLUMN, order)

    # ----- drill-down ------------------------------------------------------------------------
    def _activated(self, item: QTableWidgetItem) -> None:
        self.open_flip(self.flips[item.data(Qt.ItemDataRole.UserRole)])

    def open_flip(self, flip: Flip) -> None:
        """Open ``flip``'s question side by side: A and B get the two configurations' strategies."""
        a, b = self._result(self.config_a), self._result(self.config_b)
        if a is not None and b is not None:
            self.pairActivated.emit(a.config.strategy, b.config.strategy)
        self.questionActivated.emit(flip.question, list(self._references(flip.row_a)))


def _refs_tooltip(flip: Flip) -> str:
    lines = ["retrieved share of each reference span (A → B):"]
    for n, (sa, sb) in enumerate(zip(flip.refs_a.shares, flip.refs_b.shares, strict=True), start=1):
        lines.append(f"  ref {n}: {100 * sa:.0f}% → {100 * sb:.0f}%")
    return "\n".join(lines)
