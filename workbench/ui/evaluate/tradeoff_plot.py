"""The evaluation lab's trade-off plots: recall and IoU against mean context tokens, one line per strategy,
with axis units and a legend, in the app's palette (dark only when the system is dark).

Each strategy line has one colour (``line_colours``; the summary table shows the same colour as a swatch);
hovering a point shows its exact values (``point_tip``) and clicking one emits ``pointClicked(key)`` with
its configuration key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QWidget

from workbench.core.evaluate.export import plot_lines
from workbench.ui.app.theme import Palette, current_palette

SCHEME_EVENTS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange, QEvent.Type.ThemeChange)
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def line_colours(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Configuration key → the colour of its plot line (one colour per strategy line)."""
    return {p["key"]: PALETTE[n % len(PALETTE)] for n, (_label, points) in enumerate(plot_lines(rows))
            for p in points}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def point_tip(row: dict[str, Any]) -> str:
    """The exact values of one configuration, as its plot point's tooltip."""
    tokens = row.get("context_tokens")
    return (f"{row['key']}\nrecall {_pct(row.get('recall'))} · precision {_pct(row.get('precision'))} · "
            f"IoU {_pct(row.get('iou'))}\nmean context {'-' if tokens is None else f'{tokens:.1f}'} tokens "
            f"per question")


class TradeoffPlot(pg.GraphicsLayoutWidget):
    """Two plots side by side (``recall_plot``, ``iou_plot``); ``draw(rows)`` shows a sweep's summary rows."""

    pointClicked = Signal(str)  # noqa: N815 - Qt naming; a configuration key

    def __init__(self, parent: QWidget | None = None, palette: Palette | None = None) -> None:
        super().__init__(parent)
        self.recall_plot = self.addPlot()
        self.iou_plot = self.addPlot()
        self.recall_plot.addLegend(offset=(-10, -10))
        self.rows: list[dict[str, Any]] = []
        self.colours: dict[str, str] = {}
        self._follows_system = palette is None  # then it follows the system between light and dark
        self.apply_palette(palette or current_palette())

    def apply_palette(self, palette: Palette) -> None:
        """Background, titles, axes and legend text in ``palette``."""
        self.palette_used = palette
        self.setBackground(palette.card)
        self.recall_plot.legend.setLabelTextColor(palette.text)
        for p, metric in ((self.recall_plot, "recall"), (self.iou_plot, "IoU")):
            p.setTitle(f"{metric} vs context size", color=palette.text)
            p.showGrid(x=True, y=True, alpha=0.3)
            p.setLabel("bottom", "mean context per question (tokens)", color=palette.text)
            p.setLabel("left", f"{metric} (%)", color=palette.text)
            for axis in ("bottom", "left"):
                p.getAxis(axis).setPen(palette.muted)
                p.getAxis(axis).setTextPen(palette.text)
        if self.rows:
            self.draw(self.rows)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        """A system switch between light and dark (a palette or theme change) redraws in the new palette."""
        super().changeEvent(event)
        if getattr(self, "_follows_system", False) and event.type() in SCHEME_EVENTS and current_palette() != self.palette_used:
            self.apply_palette(current_palette())

    def draw(self, rows: list[dict]) -> None:
        """One line per strategy (``plot_lines``): its configurations' mean context tokens against recall / IoU."""
        self.rows = list(rows)
        self.colours = line_colours(rows)
        for plot in (self.recall_plot, self.iou_plot):
            plot.clear()
        for label, points in plot_lines(rows):
            colour = self.colours[points[0]["key"]]
            pen = pg.mkPen(colour, width=2)
            xs = [p["context_tokens"] for p in points]
            for plot, metric in ((self.recall_plot, "recall"), (self.iou_plot, "iou")):
                ys = [100 * (p[metric] or 0.0) for p in points]
                item = plot.plot(xs, ys, pen=pen, symbol="o", symbolBrush=colour, symbolSize=9,
                                 data=[p["key"] for p in points],
                                 name=label if plot is self.recall_plot else None)
                item.scatter.opts.update(hoverable=True, tip=self._tip)
                item.scatter.setAcceptHoverEvents(True)
                item.sigPointsClicked.connect(self._clicked)

    def _tip(self, x: float, y: float, data: object) -> str:  # noqa: ARG002 - pyqtgraph's tip signature
        row = next((r for r in self.rows if r["key"] == data), None)
        return point_tip(row) if row is not None else ""

    def _clicked(self, _item: object, points: Sequence[Any], _event: object) -> None:
        if len(points):
            self.pointClicked.emit(str(points[0].data()))
