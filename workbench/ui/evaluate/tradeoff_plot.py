"""The evaluation lab's trade-off plots: recall and IoU against mean context tokens, one line per strategy,
in the app's light palette with axis units and a legend."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from workbench.core.evaluate.export import plot_lines
from workbench.ui.app.theme import CARD, MUTED, TEXT

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


class TradeoffPlot(pg.GraphicsLayoutWidget):
    """Two plots side by side (``recall_plot``, ``iou_plot``); ``draw(rows)`` shows a sweep's summary rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground(CARD)  # the app's light palette, not pyqtgraph's black
        self.recall_plot = self.addPlot()
        self.iou_plot = self.addPlot()
        self.recall_plot.addLegend(offset=(-10, -10), labelTextColor=TEXT)
        for p, metric in ((self.recall_plot, "recall"), (self.iou_plot, "IoU")):
            p.setTitle(f"{metric} vs context size", color=TEXT)
            p.showGrid(x=True, y=True, alpha=0.3)
            p.setLabel("bottom", "mean context per question (tokens)", color=TEXT)
            p.setLabel("left", f"{metric} (%)", color=TEXT)
            for axis in ("bottom", "left"):
                p.getAxis(axis).setPen(MUTED)
                p.getAxis(axis).setTextPen(TEXT)

    def draw(self, rows: list[dict]) -> None:
        """One line per strategy (``plot_lines``): its configurations' mean context tokens against recall / IoU."""
        for plot in (self.recall_plot, self.iou_plot):
            plot.clear()
        for n, (label, points) in enumerate(plot_lines(rows)):
            colour = PALETTE[n % len(PALETTE)]
            pen = pg.mkPen(colour, width=2)
            xs = [p["context_tokens"] for p in points]
            for plot, metric in ((self.recall_plot, "recall"), (self.iou_plot, "iou")):
                ys = [100 * (p[metric] or 0.0) for p in points]
                plot.plot(xs, ys, pen=pen, symbol="o", symbolBrush=colour,
                          name=label if plot is self.recall_plot else None)
