"""Embedding space: one side's chunk set in two dimensions (``core.inspect.embedding_space``: PCA, or UMAP
when installed), coloured by document, with the question (a star) and the hits of each side that searched
this same chunk set (rings in the side's colour). Beyond ``limit`` chunks a seeded sample is shown (the hits
always in it), and the line above the plot says so.

Clicking a point emits ``chunkActivated(span)`` (the window shows the chunk in the document view);
Shift + drag draws a rectangle and lists the chunks inside it (a click on a listed chunk shows it too). The
wheel scrolls the page, Ctrl + wheel zooms, *Reset zoom* gives back the drawn ranges.

The projection runs on a pool thread, only while the view is shown. What it shows is always the side's
*current* result (the current question and strategy): when the side's chunk set, question or hits change,
the plot is cleared at once, a running projection is cancelled, and one that still arrives for an earlier
set or question is dropped; the line above the plot names the set and the question the points belong to.
"""

from __future__ import annotations

import html
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPen, QShowEvent, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.inspect.embedding_space import DEFAULT_LIMIT, Projection, projection_methods, set_projection
from workbench.core.spans import Span
from workbench.ui.basics.colours import line_colour
from workbench.ui.basics.theme import MUTED, SIDE_COLOURS, current_palette
from workbench.ui.explore.text_view import LayeredTextView
from workbench.ui.jobs.workers import JobRunner, Worker
from workbench.ui.model import WorkbenchModel
from workbench.ui.widgets.plot_zoom import CtrlWheelViewBox, reset_button
from workbench.ui.widgets.scrolling import fitted
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace

PLOT_MIN = 200  # the plot's least useful height (pixels)
COLOURED_DOCS = 10  # the documents with the most points get a colour each; the rest share grey
LISTED = 300  # chunks listed by a selection (the rest counted)
UMAP_HINT = "UMAP needs the optional umap-learn package: pip install 'chunk-workbench[umap]'"
SpaceKey = tuple[object, ...]


@dataclass(frozen=True)
class SpaceData:
    """A projection and what the view needs to draw it: per shown point its document and span; the hits
    (chunk-set rows) of each side that searched this set; the set's label and the question."""

    key: SpaceKey
    projection: Projection
    doc_ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    hits: dict[str, list[int]]
    set_label: str
    question: str

    def span_of(self, i: int) -> Span:
        """The span of shown point ``i``."""
        return Span(int(self.doc_ids[i]), int(self.starts[i]), int(self.ends[i]))

    def inside(self, rect: QRectF) -> list[int]:
        """The shown points inside ``rect`` (plot coordinates), in chunk-set order."""
        p = self.projection.points
        if not len(p):
            return []
        mask = ((p[:, 0] >= rect.left()) & (p[:, 0] <= rect.right())
                & (p[:, 1] >= rect.top()) & (p[:, 1] <= rect.bottom()))
        return [int(i) for i in np.nonzero(mask)[0]]


def select_chunk(view: LayeredTextView, span: Span) -> bool:
    """Select ``span``'s text in ``view`` (a document drawn there), so the chunk a point stands for stands out;
    False when the view does not show it."""
    start = view.pmap.position_of(span.doc_id, span.start)
    last = view.pmap.position_of(span.doc_id, span.end - 1)
    if start is None or last is None:
        return False
    end = last + (2 if ord(view.ws.corpus.doc_text(span.doc_id)[span.end - 1]) > 0xFFFF else 1)  # UTF-16 units
    cursor = QTextCursor(view.document())
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    return True


def shown_hit_rows(result: SearchResult) -> list[int]:
    """The chunk-set rows of ``result``'s hits that its passages show (the budget may cut some), sorted."""
    shown = {c for p in result.passages for c in p.hit_chunk_ids}
    return sorted({h.row for h in result.hits if h.chunk_id in shown})


class PassiveScatter(pg.ScatterPlotItem):  # type: ignore[misc]  # pyqtgraph has no type information
    """Marks drawn over the points (the hits' rings, the question's star) that let a click through to the point
    under them: a ring over a chunk of another document must not swallow the click on that chunk."""

    def mouseClickEvent(self, ev: Any) -> None:
        """Never take a click."""
        ev.ignore()


class SelectingViewBox(CtrlWheelViewBox):
    """A view box where Shift + drag draws a rectangle and reports it (plot coordinates) to ``on_select``."""

    def __init__(self) -> None:
        super().__init__()
        self.on_select: Any = None
        self.band = QGraphicsRectItem()
        pen = QPen(Qt.GlobalColor.darkGray)
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine)
        self.band.setPen(pen)
        self.band.hide()
        self.addItem(self.band, ignoreBounds=True)

    def mouseDragEvent(self, ev: Any, axis: int | None = None) -> None:
        """Shift + left drag selects; any other drag pans as usual."""
        if ev.button() != Qt.MouseButton.LeftButton or not ev.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        rect = QRectF(self.mapToView(ev.buttonDownPos()), self.mapToView(ev.pos())).normalized()
        self.band.setRect(rect)
        self.band.show()
        if ev.isFinish():
            self.band.hide()
            if self.on_select is not None:
                self.on_select(rect)


class EmbeddingSpaceView(QWidget):
    """The embedding-space tab; see the module docstring."""

    chunkActivated = Signal(object)  # Span
    drawn = Signal()  # after a projection was drawn (tests wait for it)

    def __init__(self, workspace: Workspace, model: WorkbenchModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model
        self.limit: int | None = DEFAULT_LIMIT
        self.jobs = JobRunner(1, self)
        self.side = QComboBox()
        self.side.addItems(["A", "B"])
        self.side.setToolTip("Whose chunk set to show (B: in side-by-side mode)")
        self.method = QComboBox()
        self.method.addItems(projection_methods())
        more = "; UMAP: neighbourhoods kept (slower)" if self.method.count() > 1 else f"\n{UMAP_HINT}"
        self.method.setToolTip("PCA: the two directions of most variance (linear, fast)" + more)
        self.status = WrappedLabel("")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.box = SelectingViewBox()
        self.box.on_select = self.select_rect
        self.plot: Any = pg.PlotWidget(viewBox=self.box)  # pyqtgraph has no type information
        self.plot.hideAxis("bottom")
        self.plot.hideAxis("left")
        self.plot.setMinimumHeight(PLOT_MIN)  # the window makes room for it when the tab is in front
        self.reset = reset_button([self.box], self.set_ranges, self)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.listed = QListWidget()
        self.listed.setMinimumHeight(24)
        self.listed.setToolTip("Shift + drag over the plot to list the chunks inside; click one to show it")
        self.listed.itemClicked.connect(self._list_clicked)
        self.data: SpaceData | None = None
        self.scatters: list[Any] = []
        self._key: SpaceKey | None = None  # what the view is asked to show now
        self._worker: Worker | None = None
        self._layout()
        self.side.currentTextChanged.connect(lambda _t: self.refresh())
        self.method.currentTextChanged.connect(lambda _t: self.refresh())
        for signal in (model.resultChanged, model.questionChanged, model.sideBySideChanged):
            signal.connect(lambda *_: self.refresh())
        model.strategyChanged.connect(lambda *_: self.refresh())
        model.documentsChanged.connect(self._documents_changed)
        self._outdated: list[SearchResult] = []  # results made before the documents changed: never drawn
        self.refresh()

    def _layout(self) -> None:
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(QLabel("Chunk set of"))
        head.addWidget(self.side)
        head.addWidget(self.method)
        head.addWidget(self.status, 1)
        head.addWidget(self.reset)
        side = QVBoxLayout()
        side.setContentsMargins(0, 0, 0, 0)
        legend = QScrollArea()  # a short pane scrolls the legend rather than growing the tab
        legend.setWidget(self.legend)
        legend.setWidgetResizable(True)
        legend.setFrameShape(QScrollArea.Shape.NoFrame)
        legend.setMinimumHeight(24)
        side.addWidget(legend, 1)
        hint = QLabel("Click a point: its chunk in the document. Shift + drag: list the chunks inside.")
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        side.addWidget(hint)
        side.addWidget(self.listed, 1)
        column = QWidget()
        column.setLayout(side)
        column.setFixedWidth(250)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.plot, 1)
        body.addWidget(column)
        inner = QWidget()
        lay = QVBoxLayout(inner)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addLayout(body, 1)
        outer = QVBoxLayout(self)  # a short tab scrolls rather than taking height from the passages above
        outer.setContentsMargins(0, 0, 0, 0)
        self.page = fitted(inner)
        self.page.setObjectName("embeddingPage")
        outer.addWidget(self.page)

    def least_height(self) -> int:
        """The least height the tab is of use in: its plot ``PLOT_MIN`` pixels tall with its line above."""
        inner = self.page.widget()
        return (inner.minimumSizeHint().height() if inner is not None else PLOT_MIN) + 2

    # ----- what to show ------------------------------------------------------------------------
    @property
    def key(self) -> SpaceKey | None:
        """What the view is asked to show: (side, set id, question, method, limit, hits); None: nothing."""
        return self._key

    def shown_side(self) -> str:
        """The side whose chunk set is shown (B only in side-by-side mode)."""
        side = self.side.currentText() or "A"
        return side if side == "A" or self.model.side_by_side else "A"

    def _hit_rows(self, result: SearchResult | None, set_id: str) -> list[int]:
        """The rows of the hits ``result`` shows: those inside its passages after the budget (a hit the budget
        cut is not ringed: the side does not show it)."""
        if result is None or result.set_id != set_id:
            return []
        return shown_hit_rows(result)

    def _current(self, side: str) -> SearchResult | None:
        """``side``'s current result, unless it was made before the library's documents changed."""
        result = self.model.current_result(side)
        return None if result is None or any(result is r for r in self._outdated) else result

    def _documents_changed(self) -> None:
        """Documents were added or removed (here or by another process): the points drawn belong to the chunk
        set as it was, so they go at once; the side's next result is drawn (the window searches again)."""
        self._outdated = [r for r in (self.model.result("A"), self.model.result("B")) if r is not None]
        self._key = None
        self.refresh()

    def _wanted(self) -> tuple[SpaceKey | None, SearchResult | None, dict[str, list[int]]]:
        side = self.shown_side()
        result = self._current(side)
        if result is None:
            return None, None, {}
        sides = ["A", "B"] if self.model.side_by_side else ["A"]
        hits = {s: self._hit_rows(self._current(s), result.set_id) for s in sides}
        hits = {s: rows for s, rows in hits.items() if rows}
        key = (side, result.set_id, result.question, self.method.currentText(), self.limit,
               tuple((s, tuple(rows)) for s, rows in sorted(hits.items())))
        return key, result, hits

    def refresh(self) -> None:
        """Follow the model: clear at once what is no longer current, and project the side's current chunk set
        (when the view is shown; else when it is shown next)."""
        self.side.model().item(1).setEnabled(self.model.side_by_side)  # type: ignore[attr-defined]
        if not self.model.side_by_side and self.side.currentText() != "A":
            self.side.blockSignals(True)  # B is hidden: its chunk set is not offered
            self.side.setCurrentText("A")
            self.side.blockSignals(False)
        key, result, hits = self._wanted()
        if key == self._key and (self.data is not None or self._worker is not None):
            return
        self._cancel()
        self._key = key
        self._clear_plot()
        side = self.shown_side()
        if key is None or result is None:
            current = self.model.current_result(side)
            if current is not None and any(current is r for r in self._outdated):
                self.status.setText(f"<span style='color:{MUTED}'>The library's documents changed since {side}'s "
                                    "result: its chunk set is drawn again when the search has run again.</span>")
                return
            self.status.setText(f"<span style='color:{MUTED}'>No current result for {side}: search the question "
                                "to see its chunk set and hits here.</span>")
            return
        label = chunking_label(result.strategy.chunk)
        self.status.setText(f"<span style='color:{MUTED}'>Projecting {side}'s chunk set "
                            f"{html.escape(label)}…</span>")
        if self.isVisible():
            self._start(key, result, hits, label)

    def showEvent(self, event: QShowEvent) -> None:
        """Project what the tab should show when it is first shown (nothing runs while it is hidden)."""
        super().showEvent(event)
        key, result, hits = self._wanted()
        if key is not None and result is not None and (key != self._key or self.data is None) and self._worker is None:
            self._key = key
            self._start(key, result, hits, chunking_label(result.strategy.chunk))

    def _start(self, key: SpaceKey, result: SearchResult, hits: dict[str, list[int]], label: str) -> None:
        ws, method, limit = self.ws, self.method.currentText(), self.limit
        keep = sorted({r for rows in hits.values() for r in rows})

        def job(_progress: ProgressSink, cancel: CancelToken) -> SpaceData:
            rt = ws.sets.runtime(result.set_id)
            query = ws.corpus.query_vector(result.question, result.strategy.model)
            projection = set_projection(rt, query, keep, method, limit, seed=0, cancel=cancel)
            rows = projection.rows
            return SpaceData(key, projection, rt.table.doc_ids[rows], rt.table.starts[rows], rt.table.ends[rows],
                             hits, label, result.question)

        worker = Worker(job, "embedding space")
        me = weakref.ref(self)  # the pool keeps a finished worker's wrapper: its slots must not keep this view

        def projected(data: object) -> None:
            view = me()
            if view is not None and isValid(view):
                view._projected(data)

        def failed(message: str, trace: str) -> None:
            view = me()
            if view is not None and isValid(view):
                view._failed(key, message, trace)

        worker.signals.result.connect(projected)
        worker.signals.error.connect(failed)
        self._worker = worker
        self.jobs.start(worker)

    def _cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None

    def _failed(self, key: SpaceKey, message: str, _trace: str) -> None:
        if key == self._key:
            self._worker = None
            self.status.setText(f"<span style='color:{MUTED}'>No embedding space: {html.escape(message)}</span>")

    def _projected(self, data: object) -> None:
        if not isinstance(data, SpaceData) or data.key != self._key:
            return  # made for an earlier chunk set, question or hits: never drawn
        self._worker = None
        self.draw(data)

    # ----- drawing -----------------------------------------------------------------------------
    def _clear_plot(self) -> None:
        self.data, self.scatters = None, []
        self.plot.clear()
        self.legend.setText("")
        self.listed.clear()

    def draw(self, data: SpaceData) -> None:
        """Draw ``data``: points coloured by document, the hits ringed, the question as a star."""
        self._clear_plot()
        self.data = data
        palette = current_palette()
        self.plot.setBackground(palette.card)
        p = data.projection
        docs, counts = np.unique(data.doc_ids, return_counts=True)
        top = [int(d) for d in docs[np.argsort(-counts, kind="stable")][:COLOURED_DOCS]]
        colour_of = {d: line_colour(n) for n, d in enumerate(top)}
        groups = np.asarray([top.index(int(d)) if int(d) in colour_of else len(top) for d in data.doc_ids])
        self.scatters = []  # one item per colour: thousands of points with one brush each draw slowly
        for g in range(len(top) + 1):
            shown = np.nonzero(groups == g)[0]
            if not len(shown):
                continue
            brush = pg.mkBrush(colour_of[top[g]] if g < len(top) else palette.border)
            item = pg.ScatterPlotItem(p.points[shown, 0], p.points[shown, 1], size=6, pen=None, brush=brush,
                                      data=shown.tolist(), hoverable=True, tip=self._tip)
            item.sigClicked.connect(self._clicked)
            self.plot.addItem(item)
            self.scatters.append(item)
        index = {int(r): i for i, r in enumerate(p.rows)}
        for side, rows in data.hits.items():
            ringed = [index[r] for r in rows if r in index]
            self.plot.addItem(PassiveScatter(p.points[ringed, 0], p.points[ringed, 1], size=13, brush=None,
                                             pen=pg.mkPen(SIDE_COLOURS[side], width=2)))
        if p.query is not None:
            self.plot.addItem(PassiveScatter([p.query[0]], [p.query[1]], size=18, symbol="star",
                                             brush=pg.mkBrush(palette.text), pen=pg.mkPen(palette.card)))
        self._write_legend(data, top, colour_of)
        side = str(data.key[0])
        axes = (f" · axes hold {100 * p.explained[0]:.0f}% and {100 * p.explained[1]:.0f}% of the variance"
                if p.explained else "")
        question = data.question if len(data.question) <= 80 else data.question[:79] + "…"
        if not len(p.rows):
            self.status.setText(f"<span style='color:{MUTED}'>{side}'s chunk set ({html.escape(data.set_label)}) "
                                "holds no chunks: the library has no documents. Add files or a folder.</span>")
            self.drawn.emit()
            return
        self.status.setText(f"<b style='color:{SIDE_COLOURS[side]}'>{side}</b>'s chunk set "
                            f"({html.escape(data.set_label)}) · {p.method} · {p.describe()}{axes} · question "
                            f"<i>{html.escape(question)}</i>")
        self.set_ranges()
        self.drawn.emit()

    def _write_legend(self, data: SpaceData, top: list[int], colour_of: dict[int, str]) -> None:
        def swatch(colour: str, text: str, mark: str = "■") -> str:
            return f"<span style='color:{colour}'>{mark}</span> {html.escape(text)}<br>"

        palette = current_palette()
        rows = [swatch(palette.text, "the question", "★")]
        rows += [swatch(SIDE_COLOURS[s], f"{s}'s hits ({len(r)})", "◯") for s, r in data.hits.items()]
        other = "B" if data.key[0] == "A" else "A"
        if self.model.side_by_side and other not in data.hits:
            rows.append(f"<span style='color:{MUTED}'>{other} searched another chunk set: its hits are not in "
                        "this space</span><br>")
        for d in top:
            doc = self.ws.corpus.document(d)
            rows.append(swatch(colour_of[d], doc.title or Path(doc.path).name))
        rest = len(set(data.doc_ids.tolist()) - set(top))
        if rest:
            rows.append(swatch(palette.border, f"{rest} other document(s)"))
        self.legend.setText("".join(rows))

    def set_ranges(self) -> None:
        """Every point and the question in view."""
        if self.data is None or not len(self.data.projection.points):
            return
        p = self.data.projection
        points = p.points if p.query is None else np.vstack([p.points, p.query[None, :]])
        (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
        self.plot.setXRange(float(x0), float(x1), padding=0.05)
        self.plot.setYRange(float(y0), float(y1), padding=0.05)
        self.reset.hide()

    def _tip(self, x: float, y: float, data: object) -> str:  # pyqtgraph's tip signature
        if self.data is None or not isinstance(data, int):
            return ""
        span = self.data.span_of(data)
        return f"{self._chunk_line(span)}\nclick: show it in the document view"

    def _chunk_line(self, span: Span) -> str:
        doc = self.ws.corpus.document(span.doc_id)
        snippet = " ".join(doc.text[span.start:span.end].split())
        snippet = snippet if len(snippet) <= 90 else snippet[:89] + "…"
        return f"{doc.title or Path(doc.path).name} · {span.start:,}–{span.end:,} · {snippet}"

    def point_position(self, i: int) -> QPointF:
        """Where shown point ``i`` is drawn, in the plot widget's coordinates (tests click there)."""
        assert self.data is not None
        x, y = self.data.projection.points[i]
        return QPointF(self.plot.mapFromScene(self.box.mapViewToScene(QPointF(float(x), float(y)))))

    def _clicked(self, _item: object, points: Any, _event: object = None) -> None:
        if self.data is not None and len(points):
            self.chunkActivated.emit(self.data.span_of(int(points[0].data())))

    def select_rect(self, rect: QRectF) -> list[Span]:
        """List the chunks whose points lie inside ``rect`` (plot coordinates); returns their spans."""
        self.listed.clear()
        if self.data is None:
            return []
        spans = [self.data.span_of(i) for i in self.data.inside(rect)]
        for span in spans[:LISTED]:
            item = QListWidgetItem(self._chunk_line(span))
            item.setData(Qt.ItemDataRole.UserRole, span)
            self.listed.addItem(item)
        if len(spans) > LISTED:
            self.listed.addItem(f"… and {len(spans) - LISTED:,} more (select a smaller area)")
        return spans

    def _list_clicked(self, item: QListWidgetItem) -> None:
        span = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(span, Span):
            self.chunkActivated.emit(span)
