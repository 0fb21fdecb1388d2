"""Why a semantic chunker cut here: under the chunk map of a side cut by ``semantic`` or ``cluster_semantic``,
the chunker's similarity between neighbouring sentences (or pieces) along the document, the threshold line
it compared them with and the cuts it made (``core.ingest.chunkers.cut_explanation``; cuts the score asked
for in the side's colour, cuts forced by the size limit grey). Hovering a point shows the two sentences and
their score; clicking the plot emits ``boundaryClicked(doc_id, offset)`` for the document view to scroll
there. The wheel scrolls the page, Ctrl + wheel zooms, *Reset zoom* gives back the drawn ranges.

The explanation is computed on a pool thread from the vectors the build cached (nothing is embedded again)
and drawn only while it is still the one asked for: a curve of another chunk set or document is never shown.
For any other chunker the curve is hidden.
"""

from __future__ import annotations

import html
from functools import partial
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from workbench.core.index.cut_explain import explains_cuts
from workbench.core.ingest.chunkers.cut_explanation import BY_SCORE, BY_SIZE, NO_CUT, CutExplanation
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.ui.basics.theme import MUTED, SIDE_COLOURS, current_palette
from workbench.ui.jobs.workers import JobRunner, Worker, while_alive
from workbench.ui.widgets.plot_zoom import CtrlWheelViewBox, reset_button

if TYPE_CHECKING:
    from workbench.core.ingest.documents import Document
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

CURVE_HEIGHT = 150
TIP_CHARS = 160  # each sentence of a hover tip, elided to this many characters


def _elided(text: str, keep_end: bool) -> str:
    text = " ".join(text.split())
    if len(text) <= TIP_CHARS:
        return text
    return "…" + text[-TIP_CHARS:] if keep_end else text[:TIP_CHARS] + "…"


def boundary_tip(why: CutExplanation, text: str, i: int) -> str:
    """The hover text of boundary ``i``: its score against the line, whether it was cut, and the two units."""
    (a0, a1), (b0, b1) = why.units[i], why.units[i + 1]
    line = f" (line {why.threshold:.3f})" if why.threshold is not None else ""
    verdict = {BY_SCORE: "cut here", BY_SIZE: "cut here by the size limit", NO_CUT: "no cut"}[why.reasons[i]]
    return (f"{why.unit} {i + 1} → {i + 2}: similarity {why.similarity[i]:.3f}{line} · {verdict}\n"
            f"« {_elided(text[a0:a1], keep_end=True)} »\n« {_elided(text[b0:b1], keep_end=False)} »")


class CutCurve(QWidget):
    """The curve of one side's semantic cuts on one document; ``show_cuts`` asks for it, ``clear`` hides it."""

    boundaryClicked = Signal(int, int)  # doc_id, character offset
    drawn = Signal()  # after a curve was drawn (tests wait for it)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.jobs = JobRunner(1, self)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.plot: Any = pg.PlotWidget(viewBox=CtrlWheelViewBox())  # pyqtgraph has no type information
        self.plot.setMinimumHeight(90)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.scene().sigMouseClicked.connect(self._scene_clicked)
        self.reset = reset_button([self.plot.getViewBox()], self.set_ranges, self)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.reset)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.plot, 1)
        self.setFixedHeight(CURVE_HEIGHT)
        self.explanation: CutExplanation | None = None
        self.text = ""
        self.doc_id = -1
        self.side = "A"
        self._key: tuple[object, ...] | None = None  # what the curve is asked to show: (set id, doc id)
        self._worker: Worker | None = None
        self.hide()

    @property
    def key(self) -> tuple[object, ...] | None:
        """``(chunk set id, doc id)`` of the curve asked for (None when hidden)."""
        return self._key

    def show_cuts(self, side: str, set_id: str, config: ChunkConfig, model: str, doc_id: int,
                  doc: Document) -> None:
        """Show why ``config`` cut ``doc`` (document ``doc_id``; side ``side``'s chunk set ``set_id``,
        embedded by ``model``), computed on a pool thread; hidden when its chunker does not explain its cuts."""
        if not explains_cuts(config):
            self.clear()
            return
        key = (set_id, doc_id)
        self.show()
        if key == self._key:
            return
        self._cancel()
        self._key, self.side, self.explanation = key, side, None
        self.plot.clear()
        self.title.setText(f"<span style='color:{MUTED}'>Reading the similarities of "
                           f"{html.escape(chunking_label(config))}…</span>")
        ws = self.ws

        def job(_progress: ProgressSink, _cancel: CancelToken) -> CutExplanation:
            return ws.sets.explain_cuts(config, doc, model)

        worker = Worker(job, "explain cuts")
        worker.signals.result.connect(while_alive(self, partial(self._explained, key, doc_id, doc.text)))
        worker.signals.error.connect(while_alive(self, partial(self._failed, key)))
        self._worker = worker
        self.jobs.start(worker)

    def clear(self) -> None:
        """Hide the curve (another chunker, or no chunk map shown); a curve still being computed is dropped."""
        self._cancel()
        self._key, self.explanation = None, None
        self.plot.clear()
        self.hide()

    def _cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None

    def _failed(self, key: tuple[object, ...], message: str, _trace: str) -> None:
        if key == self._key:
            self._worker = None
            self.title.setText(f"<span style='color:{MUTED}'>No similarity curve: {html.escape(message)}</span>")

    def _explained(self, key: tuple[object, ...], doc_id: int, text: str, why: object) -> None:
        if key != self._key or not isinstance(why, CutExplanation):
            return  # asked for another set or document since: never draw an earlier one
        self._worker = None
        self.draw(why, text, doc_id)

    def draw(self, why: CutExplanation, text: str, doc_id: int) -> None:
        """Draw ``why`` (of ``text``, document ``doc_id``)."""
        self.explanation, self.text, self.doc_id = why, text, doc_id
        palette = current_palette()
        colour = SIDE_COLOURS.get(self.side, SIDE_COLOURS["A"])
        plot = self.plot
        plot.clear()
        plot.setBackground(palette.card)
        cuts = why.cut_indices()
        line = (f" · dashed line: {html.escape(why.threshold_label)} = {why.threshold:.3f}"
                if why.threshold is not None else f" · {html.escape(why.threshold_label)}")
        self.title.setText(f"<b style='color:{colour}'>Why {html.escape(why.chunker.split(' ')[0])} cut here</b> "
                           f"<span style='color:{MUTED}'>· {html.escape(why.score_label)}{line} · "
                           f"{len(cuts)} cut(s) of {len(why.similarity)} boundaries</span>")
        self.title.setToolTip(f"{why.chunker}\nHover a point for its two {why.unit}s; click the curve to scroll the "
                              "text to that boundary")
        if not why.similarity:
            self.title.setText(self.title.text() + f" <span style='color:{MUTED}'>— one {why.unit}, no boundary</span>")
            self.drawn.emit()
            return
        xs = list(why.boundaries)
        ys = list(why.similarity)
        plot.plot(xs, ys, pen=pg.mkPen(palette.muted, width=1))
        points = pg.ScatterPlotItem(xs, ys, size=5, brush=pg.mkBrush(palette.muted), pen=None,
                                    data=list(range(len(xs))), hoverable=True, tip=self._tip,
                                    hoverSize=9, hoverBrush=pg.mkBrush(colour))
        plot.addItem(points)
        self.points = points
        for reason, brush in ((BY_SCORE, colour), (BY_SIZE, MUTED)):
            chosen = [i for i in cuts if why.reasons[i] == reason]
            if chosen:
                plot.addItem(pg.ScatterPlotItem([xs[i] for i in chosen], [ys[i] for i in chosen], size=10,
                                                symbol="t", brush=pg.mkBrush(brush), pen=None))
                for i in chosen:
                    plot.addItem(pg.InfiniteLine(pos=xs[i], angle=90,
                                                 pen=pg.mkPen(brush, width=1, style=Qt.PenStyle.DotLine)))
        if why.threshold is not None:
            plot.addItem(pg.InfiniteLine(pos=why.threshold, angle=0,
                                         pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine)))
        plot.setLabel("bottom", "character in the document", color=palette.text)
        plot.setLabel("left", "similarity", color=palette.text)
        for axis in ("bottom", "left"):
            plot.getAxis(axis).setPen(palette.muted)
            plot.getAxis(axis).setTextPen(palette.text)
        self.set_ranges()
        self.drawn.emit()

    def set_ranges(self) -> None:
        """The whole document across, every score (and the line) up and down."""
        why = self.explanation
        if why is None or not why.similarity:
            return
        values = [*why.similarity, *([why.threshold] if why.threshold is not None else [])]
        low, high = min(values), max(values)
        pad = max(0.02, 0.08 * (high - low))
        self.plot.setXRange(0, max(1, len(self.text)), padding=0.01)
        self.plot.setYRange(low - pad, high + pad, padding=0)
        self.reset.hide()

    def _tip(self, x: float, y: float, data: object) -> str:  # pyqtgraph's tip signature
        why = self.explanation
        if why is None or not isinstance(data, int):
            return ""
        return boundary_tip(why, self.text, data)

    def point_position(self, i: int) -> QPointF:
        """Where boundary ``i`` is drawn, in the plot widget's coordinates (tests click there)."""
        why = self.explanation
        assert why is not None
        scene = self.plot.getViewBox().mapViewToScene(QPointF(why.boundaries[i], why.similarity[i]))
        return QPointF(self.plot.mapFromScene(scene))

    def _scene_clicked(self, event: Any) -> None:
        why = self.explanation
        if why is None or not why.similarity or event.button() != Qt.MouseButton.LeftButton:
            return
        view = self.plot.getViewBox()
        if not view.sceneBoundingRect().contains(event.scenePos()):
            return
        x = view.mapSceneToView(event.scenePos()).x()
        i = why.boundary_at(int(round(x)))
        if i is not None:
            self.boundaryClicked.emit(self.doc_id, why.boundaries[i])

