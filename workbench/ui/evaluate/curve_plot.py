"""The lab's recall-per-context-token curves (a run with budgets), drawn with QPainter: x = mean context
tokens per question, y = recall %, one curve per strategy (the core's ``budget_curves``), a point per budget.

The curve starts at (0, 0) as the core's summary figures read it (a dashed segment up to the first point);
the 1,000-token line is marked. The axes are fixed (recall 0–100 %, tokens from 0) and nothing is drawn over
the data: the curves' names and colours are listed beside the plot (``CurvePanel``'s figures table).
Hovering a point shows its strategy, budget, recall, IoU and tokens; clicking one emits ``pointClicked(key)``
with its configuration key (points that coincide share one tooltip). ``point_position(key)`` is where a
point is drawn (tests click there).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from workbench.core.evaluate.curves import AT_TOKENS, AUC_TOKENS
from workbench.ui.basics.colours import line_colour
from workbench.ui.basics.theme import current_palette

MARGINS = (40, 24, 22, 38)  # left, top, right, bottom (pixels around the plot area)
HIT_RADIUS = 9.0  # a point answers hover and clicks this close (pixels)
EMPTY_HINT = "Run with Budgets (e.g. 250,500,1000,1500,2000) to see recall per context token"


def curve_colours(curves: Sequence[Mapping[str, Any]], colours: Mapping[str, str]) -> list[str]:
    """The colour of each curve: its configurations' colour in the run (``colours``: key → colour, as the
    summary table's swatches and the trade-off plot show them), else a line colour of its own."""
    out: list[str] = []
    for n, c in enumerate(curves):
        first = c["points"][0]["key"] if c["points"] else ""
        out.append(colours.get(first) or line_colour(n))
    return out


def point_tip(strategy: str, point: Mapping[str, Any]) -> str:
    """A point's hover text: strategy, budget, recall, IoU and mean context tokens."""
    return (f"{strategy} · budget {point['budget']:,} tokens\nrecall {100 * point['recall']:.1f}% · "
            f"IoU {100 * point['iou']:.1f}%\nmean context {point['context_tokens']:.0f} tokens per question")


def _step(span: float) -> int:
    """A round tick step giving about five ticks over ``span`` tokens."""
    for step in (100, 250, 500, 1000, 2000, 5000, 10000):
        if span / step <= 6:
            return step
    return int(10 ** math.ceil(math.log10(span / 6)))


class CurvePlot(QWidget):
    """Recall against mean context tokens, one curve per strategy; ``set_curves(curves, colours)``."""

    pointClicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.curves: list[dict[str, Any]] = []
        self.colours: list[str] = []
        self.selected = ""
        self.x_max = float(AUC_TOKENS)
        self.setMouseTracking(True)
        self.setMinimumSize(260, 180)

    def set_curves(self, curves: Sequence[Mapping[str, Any]], colours: Mapping[str, str] | None = None) -> None:
        """Show ``curves`` (``budget_curves`` entries); ``colours`` maps configuration keys to their colours in
        the run (the summary table's swatches)."""
        self.curves = [dict(c) for c in curves]
        self.colours = curve_colours(self.curves, colours or {})
        tokens = [p["context_tokens"] for c in self.curves for p in c["points"]]
        span = max([float(AUC_TOKENS), *tokens]) * 1.04
        step = _step(span)
        self.x_max = float(math.ceil(span / step) * step)
        self.update()

    def set_selected(self, key: str | None) -> None:
        """Ring the point of configuration ``key`` (none when it is not on a curve)."""
        self.selected = key or ""
        self.update()

    # ----- geometry ------------------------------------------------------------------------------
    def plot_rect(self) -> QRectF:
        """The area inside the axes, in widget pixels."""
        left, top, right, bottom = MARGINS
        return QRectF(left, top, max(1, self.width() - left - right), max(1, self.height() - top - bottom))

    def to_pixel(self, tokens: float, recall: float) -> QPointF:
        """Widget position of ``tokens`` mean context tokens and ``recall`` (0–1)."""
        r = self.plot_rect()
        return QPointF(r.left() + r.width() * tokens / self.x_max, r.bottom() - r.height() * recall)

    def points(self) -> list[tuple[str, dict[str, Any], QPointF]]:
        """(strategy, point, widget position) of every drawn point."""
        return [(c["key"], p, self.to_pixel(p["context_tokens"], p["recall"]))
                for c in self.curves for p in c["points"]]

    def point_position(self, key: str) -> QPoint:
        """Where configuration ``key``'s point is drawn (widget pixels); KeyError when it has none."""
        for _strategy, p, at in self.points():
            if p["key"] == key:
                return at.toPoint()
        raise KeyError(key)

    def points_at(self, pos: QPointF) -> list[tuple[str, dict[str, Any]]]:
        """(strategy, point) of the points nearest ``pos`` within ``HIT_RADIUS`` pixels, the one drawn on top
        (the last curve's) first; several when their points coincide; [] when none is that close."""
        near = [(math.hypot(at.x() - pos.x(), at.y() - pos.y()), n, s, p) for n, (s, p, at) in enumerate(self.points())]
        near = [n for n in near if n[0] <= HIT_RADIUS]
        if not near:
            return []
        best = min(d for d, *_ in near)
        return [(s, p) for _d, _n, s, p in sorted(near, key=lambda n: -n[1]) if _d <= best + 1.0]

    # ----- events --------------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        """Hover tooltips: a point's values, nothing elsewhere."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hits = self.points_at(QPointF(event.pos()))
            if not hits:
                QToolTip.hideText()
                event.ignore()
            else:
                QToolTip.showText(event.globalPos(), "\n\n".join(point_tip(*hit) for hit in hits), self)
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A left click on a point emits ``pointClicked`` with its configuration key (of the point drawn on top
        where points coincide)."""
        hits = self.points_at(event.position()) if event.button() == Qt.MouseButton.LeftButton else []
        if not hits:
            super().mousePressEvent(event)
            return
        self.pointClicked.emit(str(hits[0][1]["key"]))

    def changeEvent(self, event: QEvent) -> None:
        """Repaint in the new colours when the system switches between light and dark."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.update()

    # ----- painting ------------------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        """Axes, grid, the 1,000-token line and the curves with their points."""
        palette = current_palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(palette.card))
        self._axes(painter, QColor(palette.text), QColor(palette.border))
        if not self.curves:
            painter.setPen(QColor(palette.muted))
            painter.drawText(self.plot_rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, EMPTY_HINT)
            painter.end()
            return
        for curve, colour in zip(self.curves, self.colours, strict=True):
            self._curve(painter, curve, QColor(colour), QColor(palette.text))
        painter.end()

    def _axes(self, painter: QPainter, text: QColor, grid: QColor) -> None:
        r = self.plot_rect()
        metrics = painter.fontMetrics()
        step = _step(self.x_max)
        for tokens in range(0, int(self.x_max) + 1, step):
            x = self.to_pixel(tokens, 0).x()
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
            painter.setPen(text)
            label = str(tokens)
            left = min(x - metrics.horizontalAdvance(label) / 2, self.width() - metrics.horizontalAdvance(label) - 2)
            painter.drawText(QPointF(left, r.bottom() + metrics.ascent() + 3), label)
        for pct in range(0, 101, 20):
            y = self.to_pixel(0, pct / 100).y()
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
            painter.setPen(text)
            label = str(pct)
            painter.drawText(QPointF(r.left() - metrics.horizontalAdvance(label) - 5, y + metrics.ascent() / 2 - 1),
                             label)
        painter.setPen(QPen(text, 1))
        painter.drawRect(r)
        at = self.to_pixel(AT_TOKENS, 0).x()
        painter.setPen(QPen(text, 1.2, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(at, r.top()), QPointF(at, r.bottom()))
        painter.setPen(text)
        mark = f"{AT_TOKENS:,} tokens"  # along the line, low on its left: curves rise early, then run high
        painter.save()
        painter.translate(at - 4, r.bottom() - 6)
        painter.rotate(-90)
        painter.drawText(QPointF(0, 0), mark)
        painter.restore()
        title = metrics.elidedText("recall (%) by context budget", Qt.TextElideMode.ElideRight, int(r.width()))
        painter.drawText(QPointF(r.left(), r.top() - 7), title)
        caption = "mean context per question (tokens)"
        painter.drawText(QPointF(r.center().x() - metrics.horizontalAdvance(caption) / 2, self.height() - 4), caption)

    def _curve(self, painter: QPainter, curve: Mapping[str, Any], colour: QColor, ring: QColor) -> None:
        pts = [self.to_pixel(p["context_tokens"], p["recall"]) for p in curve["points"]]
        if not pts:
            return
        painter.setPen(QPen(colour, 1.2, Qt.PenStyle.DashLine))
        painter.drawLine(self.to_pixel(0, 0), pts[0])  # the core's curves start at (0, 0)
        painter.setPen(QPen(colour, 2))
        for a, b in zip(pts, pts[1:], strict=False):
            painter.drawLine(a, b)
        painter.setBrush(colour)
        for p, at in zip(curve["points"], pts, strict=True):
            painter.setPen(QPen(colour, 1))
            painter.drawEllipse(at, 4.5, 4.5)
            if p["key"] == self.selected:
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.setPen(QPen(ring, 2))
                painter.drawEllipse(at, 8, 8)
                painter.setBrush(colour)
        painter.setBrush(Qt.BrushStyle.NoBrush)
