"""The chunk map of one side: its chunks painted in alternating tints with overlaps marked (the layers),
and beside the document a compact summary — a size histogram and the boundary diagnostics
(``core.inspect.chunk_map``) of the shown document and of the whole chunk set.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from workbench.core.ingest.chunk_diagnostics import ChunkDiagnostics, counts_in_bins, with_references
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.inspect.chunk_map import document_diagnostics, reference_splits, set_diagnostics
from workbench.core.spans import Span
from workbench.ui.basics.theme import MUTED, SIDE_COLOURS
from workbench.ui.explore.render import overlap_ranges

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.workspace import Workspace

CHUNK_MAP_KINDS = ["chunk_odd", "chunk_even", "chunk_overlap", "boundary", "heading"]
CHUNK_MAP_LABELS = {"chunk_odd": "chunks 1, 3, 5 …", "chunk_even": "chunks 2, 4, 6 …",
                    "chunk_overlap": "overlap (in two chunks)"}


def chunk_layers(chunk_spans: Sequence[Span]) -> dict[str, list[tuple[int, int]]]:
    """Render layers of a document's chunks (in position order): ``chunk_odd`` holds chunks 1, 3, 5 …,
    ``chunk_even`` chunks 2, 4, 6 …, and ``chunk_overlap`` the text that two chunks share."""
    return {
        "chunk_odd": [(s.start, s.end) for s in chunk_spans[0::2]],
        "chunk_even": [(s.start, s.end) for s in chunk_spans[1::2]],
        "chunk_overlap": overlap_ranges(chunk_spans),
    }


class SizeHistogram(QWidget):
    """Bars of the chunk set's size histogram, with the shown document's chunks as darker bars in front."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edges: tuple[int, ...] = ()
        self.set_counts: tuple[int, ...] = ()
        self.doc_counts: tuple[int, ...] = ()
        self.colour = QColor(SIDE_COLOURS["A"])
        self.setMinimumSize(120, 64)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        """Compact: a strip of bars with a line of axis labels."""
        return QSize(200, 72)

    def show_counts(self, edges: Sequence[int], set_counts: Sequence[int], doc_counts: Sequence[int],
                    colour: str) -> None:
        """Draw ``set_counts`` (light) and ``doc_counts`` (dark) over the bins of ``edges``."""
        self.edges, self.set_counts, self.doc_counts = tuple(edges), tuple(set_counts), tuple(doc_counts)
        self.colour = QColor(colour)
        bins = [f"{a}–{b - 1} tokens: {n} in the set, {m} here"
                for a, b, n, m in zip(self.edges, self.edges[1:], self.set_counts, self.doc_counts, strict=False)]
        self.setToolTip("Chunk sizes (tokens)\n" + "\n".join(bins))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Bars scaled to the tallest set bin; axis labels at both ends."""
        painter = QPainter(self)
        try:
            label_h = painter.fontMetrics().height()
            area = QRectF(0, 2, self.width(), max(1, self.height() - label_h - 4))
            peak = max(self.set_counts, default=0)
            if peak:
                step = area.width() / len(self.set_counts)
                light = QColor(self.colour)
                light.setAlpha(70)
                for i, (n, m) in enumerate(zip(self.set_counts, self.doc_counts or (0,) * len(self.set_counts),
                                               strict=False)):
                    x = area.left() + i * step + 1
                    for count, colour in ((n, light), (m, self.colour)):
                        h = max(2.0, area.height() * count / peak) if count else 0.0  # one chunk shows
                        painter.fillRect(QRectF(x, area.bottom() - h, max(1.0, step - 2), h), colour)
            painter.setPen(QColor(MUTED))
            painter.drawLine(int(area.left()), int(area.bottom()), int(area.right()), int(area.bottom()))
            if self.edges:
                text_y = self.height() - 2
                painter.drawText(0, text_y, str(self.edges[0]))
                last = f"{self.edges[-1]} tokens"
                painter.drawText(self.width() - painter.fontMetrics().horizontalAdvance(last), text_y, last)
        finally:
            painter.end()


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def _shares(doc: ChunkDiagnostics, whole: ChunkDiagnostics) -> list[tuple[str, int, int, int, int, str]]:
    """``(what, part here, of here, part in the set, of the set, of what)`` of each share."""
    rows = [("mid-sentence ends", doc.mid_sentence, doc.chunks, whole.mid_sentence, whole.chunks, "chunks"),
            ("headings cut off", doc.separated_headings, doc.headings, whole.separated_headings, whole.headings,
             "headings")]
    if whole.split_reference_share is not None:
        rows.append(("references split", doc.split_references, doc.references, whole.split_references,
                     whole.references, "reference spans"))
    return rows


def diagnostics_rows(doc: ChunkDiagnostics, whole: ChunkDiagnostics) -> list[tuple[str, str, str]]:
    """``(what, this document, whole set)`` rows of the summary table (shares as percentages)."""
    rows = [("chunks", str(doc.chunks), str(whole.chunks)),
            ("tokens mean", f"{doc.tokens_mean:.0f}", f"{whole.tokens_mean:.0f}"),
            ("p10–p90", f"{doc.tokens_p10:.0f}–{doc.tokens_p90:.0f}", f"{whole.tokens_p10:.0f}–{whole.tokens_p90:.0f}")]
    return rows + [(what, _share(a, b), _share(c, d)) for what, a, b, c, d, _of in _shares(doc, whole)]


def diagnostics_tip(doc: ChunkDiagnostics, whole: ChunkDiagnostics) -> str:
    """The counts behind the shares and what each one means (the table's tooltip)."""
    counts = [f"{what}: {a} of {b} {of} here, {c} of {d} in the set"
              for what, a, b, c, d, of in _shares(doc, whole)]
    return "\n".join([*counts, "",
                      "mid-sentence ends: the chunk's end (trailing white space ignored) is not a sentence end",
                      "headings cut off: a chunk ends right after the heading, so its text starts in the next",
                      "references split: reference spans of the question that no single chunk contains"])


class ChunkMapSummary(QWidget):
    """The chunk map's side panel: which chunk set, its size histogram and the diagnostics table."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.histogram = SizeHistogram()
        self.table = QLabel()
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.title)
        lay.addWidget(self.histogram)
        lay.addWidget(self.table)
        lay.addStretch(1)
        self.setFixedWidth(248)
        self._set_cache: dict[tuple[str, int], ChunkDiagnostics] = {}
        self.document: ChunkDiagnostics | None = None
        self.whole: ChunkDiagnostics | None = None

    def whole_set(self, rt: LoadedSet, reference: Sequence[Span]) -> ChunkDiagnostics:
        """The set's diagnostics (computed once per chunk set) with the references' splits."""
        key = (rt.info.id, len(rt))
        base = self._set_cache.get(key)
        if base is None:
            base = self._set_cache[key] = set_diagnostics(rt, self.ws.corpus.document)
        return with_references(base, *reference_splits(rt, self.ws.corpus.document, reference)) if reference else base

    def show_map(self, side: str, rt: LoadedSet, doc_id: int, reference: Sequence[Span]) -> None:
        """Summarise side ``side``'s chunk set ``rt`` for document ``doc_id`` and the whole set."""
        doc = document_diagnostics(rt, doc_id, self.ws.corpus.document(doc_id), reference)
        whole = self.whole_set(rt, reference)
        self.document, self.whole = doc, whole
        colour = SIDE_COLOURS.get(side, SIDE_COLOURS["A"])
        self.title.setText(f"<b style='color:{colour}'>Chunk map of {side}</b> "
                           f"<span style='color:{MUTED}'>· {html.escape(chunking_label(rt.info.config))}</span>")
        first, end = rt.doc_rows(doc_id)
        doc_counts = counts_in_bins(rt.table.tokens[first:end].tolist(), whole.histogram.edges)
        self.histogram.show_counts(whole.histogram.edges, whole.histogram.counts, doc_counts, colour)
        cells = "".join(f"<tr><td style='color:{MUTED}'>{html.escape(what)}</td><td align='right'>{html.escape(d)}"
                        f"</td><td align='right'>{html.escape(s)}</td></tr>"
                        for what, d, s in diagnostics_rows(doc, whole))
        self.table.setText(f"<table cellspacing='0' cellpadding='1'><tr><th></th><th align='right'>&nbsp;this doc</th>"
                           f"<th align='right'>&nbsp;all docs</th></tr>{cells}</table>")
        self.table.setToolTip(diagnostics_tip(doc, whole))
