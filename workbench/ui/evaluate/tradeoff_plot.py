"""The evaluation lab's trade-off plots: recall and IoU against mean context tokens, one line per strategy,
with axis units and a legend below both plots (never over the data), in the app's palette (dark only when
the system is dark). Both axes read in the unit they name and start at 0: recall in percent up to 100, IoU
in percent up to a little above its largest value (IoU of 1–12 % on a 0–100 axis was a flat line), tokens up
to a little above the largest mean context. The wheel scrolls the page; Ctrl + wheel zooms, and *Reset zoom*
gives back the drawn ranges (``plot_zoom``).

Each line has its configurations' colour (the lab's model gives one colour per configuration line; the
summary table, the curves and the flips show the same); hovering a point shows its exact values
(``point_tip``) and clicking one emits ``pointClicked(key)`` with its configuration key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from workbench.core.evaluate.export import plot_lines
from workbench.ui.basics.colours import line_colour
from workbench.ui.basics.theme import Palette, current_palette
from workbench.ui.widgets.plot_zoom import CtrlWheelViewBox, reset_button

SCHEME_EVENTS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange, QEvent.Type.ThemeChange)
EMPTY_TOKENS = 2000.0  # the token axis of a plot with nothing on it
LEGEND_COLUMNS = 3


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def point_tip(row: dict[str, Any]) -> str:
    """The exact values of one configuration, as its plot point's tooltip."""
    tokens = row.get("context_tokens")
    return (f"{row['key']}\nrecall {_pct(row.get('recall'))} · precision {_pct(row.get('precision'))} · "
            f"IoU {_pct(row.get('iou'))}\nmean context {'-' if tokens is None else f'{tokens:.1f}'} tokens "
            f"per question")


class TradeoffPlot(QWidget):
    """Two plots side by side (``recall_plot``, ``iou_plot``) in pyqtgraph's graphics view (``view``) and the
    legend below them; ``draw(rows, colours)`` shows a sweep's summary rows."""

    pointClicked = Signal(str)

    def __init__(self, parent: QWidget | None = None, palette: Palette | None = None) -> None:
        super().__init__(parent)
        self.view: Any = pg.GraphicsLayoutWidget()  # a QGraphicsView (pyqtgraph has no type information)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.recall_plot: Any = self.view.addPlot(row=0, col=0, viewBox=CtrlWheelViewBox())
        self.iou_plot: Any = self.view.addPlot(row=0, col=1, viewBox=CtrlWheelViewBox())
        self.legend: Any = pg.LegendItem(colCount=LEGEND_COLUMNS)  # in its own row below both plots
        self.view.addItem(self.legend, row=1, col=0, colspan=2)
        self.rows: list[dict[str, Any]] = []
        self.colours: dict[str, str] = {}
        self.reset = reset_button([self.recall_plot.vb, self.iou_plot.vb], self.set_ranges, self)
        layout.addWidget(self.reset)
        for plot in (self.recall_plot, self.iou_plot):
            plot.enableAutoRange(enable=False)
        self.set_ranges()
        self._follows_system = palette is None  # then it follows the system between light and dark
        self.apply_palette(palette or current_palette())

    def apply_palette(self, palette: Palette) -> None:
        """Background, titles, axes and legend text in ``palette``."""
        self.palette_used = palette
        self.view.setBackground(palette.card)
        self.legend.setLabelTextColor(palette.text)
        for p, metric in ((self.recall_plot, "recall"), (self.iou_plot, "IoU")):
            p.setTitle(f"{metric} vs context size", color=palette.text)
            p.showGrid(x=True, y=True, alpha=0.3)
            p.setLabel("bottom", "tokens per question (mean)", color=palette.text)
            p.setLabel("left", f"{metric} (%)", color=palette.text)
            for axis in ("bottom", "left"):
                p.getAxis(axis).setPen(palette.muted)
                p.getAxis(axis).setTextPen(palette.text)
        if self.rows:
            self.draw(self.rows, self.colours)

    def changeEvent(self, event: QEvent) -> None:
        """A system switch between light and dark (a palette or theme change) redraws in the new palette."""
        super().changeEvent(event)
        if (getattr(self, "_follows_system", False) and event.type() in SCHEME_EVENTS
                and current_palette() != self.palette_used):
            self.apply_palette(current_palette())

    def draw(self, rows: Sequence[dict[str, Any]], colours: Mapping[str, str]) -> None:
        """One line per strategy (``plot_lines``): its configurations' mean context tokens against recall / IoU,
        in ``colours`` (configuration key → colour); the axes start at 0 and recall / IoU end at 100."""
        self.rows = list(rows)
        self.colours = dict(colours)
        self.legend.clear()
        for plot in (self.recall_plot, self.iou_plot):
            plot.clear()
        self.set_ranges()
        for n, (label, points) in enumerate(plot_lines(self.rows)):
            colour = self.colours.get(points[0]["key"]) or line_colour(n)
            pen = pg.mkPen(colour, width=2)
            xs = [p["context_tokens"] for p in points]
            for plot, metric in ((self.recall_plot, "recall"), (self.iou_plot, "iou")):
                ys = [100 * (p[metric] or 0.0) for p in points]
                item = plot.plot(xs, ys, pen=pen, symbol="o", symbolBrush=colour, symbolSize=9,
                                 data=[p["key"] for p in points])
                if plot is self.recall_plot:
                    self.legend.addItem(item, label)
                item.scatter.opts.update(hoverable=True, tip=self._tip)
                item.scatter.setAcceptHoverEvents(True)
                item.sigPointsClicked.connect(self._clicked)

    def ranges(self) -> dict[str, tuple[float, float, float, float]]:
        """The ranges the data is drawn with, per plot (``"recall"``, ``"iou"``): x from, x to, y from, y to."""
        tokens = [float(r["context_tokens"] or 0.0) for r in self.rows]
        right = max([*tokens, 1.0]) * 1.08 if tokens else EMPTY_TOKENS
        iou = [100 * float(r["iou"] or 0.0) for r in self.rows]
        top = min(100.0, max(1.0, max(iou, default=100.0) * 1.15))
        return {"recall": (0.0, right, 0.0, 100.0), "iou": (0.0, right, 0.0, top)}

    def set_ranges(self) -> None:
        """Show each plot at the ranges its data is drawn with (after a zoom: *Reset zoom*)."""
        for plot, (x0, x1, y0, y1) in zip((self.recall_plot, self.iou_plot), self.ranges().values(), strict=True):
            plot.setXRange(x0, x1, padding=0.02)
            plot.setYRange(y0, y1, padding=0.02)
        self.reset.hide()

    def _tip(self, x: float, y: float, data: object) -> str:  # pyqtgraph's tip signature
        row = next((r for r in self.rows if r["key"] == data), None)
        return point_tip(row) if row is not None else ""

    def _clicked(self, _item: object, points: Sequence[Any], _event: object) -> None:
        if len(points):
            self.pointClicked.emit(str(points[0].data()))
