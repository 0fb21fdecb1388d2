"""The room each view of the window declares it needs to be used, and the check of it.

Every view declares its minimum useful size (``MINIMUMS``: a plot at least ``PLOT_MIN`` pixels tall, open knobs at
least ``KNOB_ROWS`` rows, the document view at least ``MARK_LINES`` lines while marking, an answer at least
``ANSWER_LINES`` lines, a table's headers whole or elided with a tooltip); ``shortfalls`` lists every view shown
that has less, and every outer scroll bar shown — the tests and the screenshot script check them at the sizes the
window opens on laptops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractScrollArea, QTableWidget, QWidget

from workbench.ui.answer.answer_column import ANSWER_LINES
from workbench.ui.explore.heights import KNOB_ROWS

if TYPE_CHECKING:
    from workbench.ui.window.main_window import MainWindow

PLOT_MIN = 200  # a plot's least useful height (pixels)
MARK_LINES = 12  # the document view while marking


@dataclass(frozen=True)
class Minimum:
    """One view's declared least useful height: ``need(window)`` pixels for ``widget(window)`` while it is
    shown; ``what`` names it for people."""

    what: str
    widget: Callable[[MainWindow], QWidget | None]
    need: Callable[[MainWindow], int]


def _rows(window: MainWindow, rows: int) -> int:
    """Pixels for ``rows`` rows of knobs."""
    return rows * window.compare.a.strategy_panel.row_height()


def _lines(widget: QWidget, lines: int) -> int:
    """Pixels for ``lines`` lines of ``widget``'s text (its frame and document margin included)."""
    return lines * widget.fontMetrics().lineSpacing() + 12


def _plot_need(_window: MainWindow) -> int:
    return PLOT_MIN


def _knob_need(window: MainWindow) -> int:
    return _rows(window, KNOB_ROWS)


def _answer_need(window: MainWindow) -> int:
    return _lines(window.answer, ANSWER_LINES) - 4


def _document_need(window: MainWindow) -> int:
    return _lines(window.compare.doc_pane.view, MARK_LINES)


def _space_plot(window: MainWindow) -> QWidget | None:
    return window.compare.space.plot  # type: ignore[no-any-return]  # pyqtgraph has no types


def _tradeoff_plot(window: MainWindow) -> QWidget | None:
    return window.eval_view.plot.view if window.eval_view is not None else None


def _curve_plot(window: MainWindow) -> QWidget | None:
    return window.eval_view.curve_plot if window.eval_view is not None else None


def _advise_plot(window: MainWindow) -> QWidget | None:
    return window.eval_view.advise.plot.view if window.eval_view is not None else None


def _knobs_of(side: str) -> Callable[[MainWindow], QWidget | None]:
    def knobs(window: MainWindow) -> QWidget | None:
        return window.compare.a.knob_area if side == "A" else window.compare.b.knob_area

    return knobs


def _answer_of(side: str) -> Callable[[MainWindow], QWidget | None]:
    def answer(window: MainWindow) -> QWidget | None:
        column = window.answer.columns.get(side)
        return column.answer if column is not None else None

    return answer


def _document(window: MainWindow) -> QWidget | None:
    return window.compare.doc_pane.view


MINIMUMS: tuple[Minimum, ...] = (
    Minimum("the embedding view's plot", _space_plot, _plot_need),
    Minimum("the trade-off plots", _tradeoff_plot, _plot_need),
    Minimum("the curves by budget", _curve_plot, _plot_need),
    Minimum("the advisor's plot", _advise_plot, _plot_need),
    *(Minimum(f"side {s}'s open knobs ({KNOB_ROWS} rows)", _knobs_of(s), _knob_need) for s in ("A", "B")),
    *(Minimum(f"the answer of {s} ({ANSWER_LINES} lines)", _answer_of(s), _answer_need) for s in ("A", "B")),
)
DOCUMENT_WHILE_MARKING = Minimum(f"the document view while marking ({MARK_LINES} lines)", _document, _document_need)


def _shown(widget: QWidget | None) -> bool:
    return widget is not None and widget.isVisible() and not widget.visibleRegion().isEmpty()


def _header_problems(table: QTableWidget) -> list[str]:
    """Header sections whose text does not fit, unless their item's tooltip carries it."""
    header = table.horizontalHeader()
    out = []
    for col in range(table.columnCount()):
        item = table.horizontalHeaderItem(col)
        if item is None or header.isSectionHidden(col) or not item.text():
            continue
        text = item.text()
        need = header.sectionSizeHint(col)  # the text, the margins and a sort indicator
        elided = header.textElideMode() != Qt.TextElideMode.ElideNone and text in (item.toolTip() or "")
        if need > header.sectionSize(col) and not elided:
            out.append(f"the header “{text}” of {table.objectName() or type(table.parent()).__name__}: "
                       f"{header.sectionSize(col)} px for {need}")
    return out


def shortfalls(window: MainWindow) -> list[str]:
    """Every view shown now with less than its declared minimum, every table header cut without a tooltip,
    and every outer scroll bar shown (one line each; [] when every view has its room)."""
    out = []
    for minimum in MINIMUMS + ((DOCUMENT_WHILE_MARKING,) if window.task == "mark" else ()):
        widget = minimum.widget(window)
        if widget is None or not _shown(widget):
            continue
        need, got = minimum.need(window), widget.height()
        if got + 1 < need:
            out.append(f"{minimum.what}: {got} px of {need}")
    for table in window.findChildren(QTableWidget):
        if _shown(table):
            out += _header_problems(table)
    for area in window.outer_scroll_areas():
        if _shown(area) and isinstance(area, QAbstractScrollArea) and area.verticalScrollBar().isVisible():
            inner = area.widget()
            least = inner.minimumSizeHint().height() if inner is not None else 0
            out.append(f"{area.objectName() or 'a page'} scrolls as a page ({area.viewport().height()} px for {least})")
    return out
