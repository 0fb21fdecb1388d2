"""The whole document: every chunk boundary, the hits and the windows drawn over it.

With one result it shows windows (light) and hits (strong); with two (A/B) it colours text returned
only by A, only by B, and by both. Reference spans of an evaluation question are underlined, and then the
*Colour* picker offers evidence colouring of one side (``evidence.py``): reference text retrieved, retrieved
text outside every reference, reference text missed — the default with one result, a choice beside A/B.
The picker's *chunks of A* / *chunks of B* draw that side's chunk map (``chunk_map.py``): its chunks in
alternating tints, overlaps marked, with a size histogram and the boundary diagnostics beside the text,
and for a semantic chunker the curve of why it cut there below (``cut_curve.py``); *cuts of A and B*
draws both sides' cuts on the one text (``cut_view.py``) with their figures in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from workbench.core.spans import Span, intersect_spans, subtract_spans
from workbench.core.store.values import DocumentGone
from workbench.ui.explore.chunk_export_dialog import ExportChunksDialog
from workbench.ui.explore.chunk_map import CHUNK_MAP_KINDS, CHUNK_MAP_LABELS, ChunkMapSummary, chunk_layers
from workbench.ui.explore.cut_curve import CutCurve
from workbench.ui.explore.cut_view import (
    CUT_VIEW_KINDS,
    CUTS_AB,
    CutSummary,
    cut_layers,
    cut_marker_formats,
    document_cuts,
)
from workbench.ui.explore.evidence import EVIDENCE_LABELS, evidence_layers
from workbench.ui.explore.legend import Legend
from workbench.ui.explore.render import chunk_markers, every_second, insert_layers, overlap_ranges
from workbench.ui.explore.text_view import LayeredTextView
from workbench.ui.widgets.elided_combo import ElidedComboBox
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.core.ingest.cut_agreement import DocumentCuts
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace

SINGLE_KINDS = ["hit", "alt", "window", "boundary", "overlap", "heading"]
COMPARE_KINDS = ["only_a", "only_b", "both", "hit_dark", "boundary", "heading"]
EVIDENCE_VIEW_KINDS = ["evidence", "noise", "missed", "hit_evidence", "hit_noise", "boundary", "heading"]
# picker entries: (label, evidence side, chunk-map side or "", needs reference spans)
SINGLE_COLOURS = [("evidence", "A", True), ("returned text", "", False), ("chunks of A", "chunks:A", False)]
COMPARE_COLOURS = [("returned by A / B", "", False), ("evidence of A", "A", True), ("evidence of B", "B", True),
                   ("chunks of A", "chunks:A", False), ("chunks of B", "chunks:B", False),
                   ("cuts of A and B", "chunks:" + CUTS_AB, False)]
CHUNKS = "chunks:"  # the picker data of a chunk-map entry: "chunks:A", "chunks:B"


def _spans(result: SearchResult | None, doc_id: int) -> list[Span]:
    return [p.span for p in result.passages if p.span.doc_id == doc_id] if result is not None else []


def _hits(result: SearchResult | None, doc_id: int) -> list[Span]:
    if result is None:
        return []
    return [s for p in result.passages for s in p.hit_spans if s.doc_id == doc_id]


def diff_layers(result_a: SearchResult | None, result_b: SearchResult | None, doc_id: int) -> dict[str, list[Span]]:
    """Text of ``doc_id`` returned only by A, only by B, and by both (core span arithmetic)."""
    a, b = _spans(result_a, doc_id), _spans(result_b, doc_id)
    return {"only_a": subtract_spans(a, b), "only_b": subtract_spans(b, a), "both": intersect_spans(a, b)}


class DocumentView(LayeredTextView):
    """The text of one document with its layers."""

    cuts: DocumentCuts | None = None  # what *cuts of A and B* drew last

    def show_document(self, doc_id: int, result_a: SearchResult | None, result_b: SearchResult | None = None,
                      reference: Sequence[Span] = (), evidence: str | None = None,
                      chunk_map: str | None = None) -> None:
        """Draw document ``doc_id`` with A's result (and B's, for the A/B diff); ``evidence`` ``"A"`` or
        ``"B"`` colours that side's retrieved text as evidence / noise and the reference it missed;
        ``chunk_map`` ``"A"`` or ``"B"`` draws that side's chunks instead (alternating tints, overlaps)."""
        if chunk_map == CUTS_AB and result_a is not None and result_b is not None:
            self.show_cuts(doc_id, result_a, result_b, reference)
            return
        doc = self.ws.corpus.document(doc_id)
        base = result_a if result_a is not None else result_b
        if chunk_map is not None:
            base = {"A": result_a, "B": result_b}.get(chunk_map) or base
        rt = self.runtime = self.ws.sets.runtime(base.set_id) if base is not None else None
        chunk_spans = [rt.span(r) for r in range(*rt.doc_rows(doc_id))] if rt is not None else []
        layers: dict[str, list[tuple[int, int]]] = {
            "heading": [(h.start, h.end) for h in doc.headings],
            "overlap": overlap_ranges(chunk_spans),
            "reference": [(s.start, s.end) for s in reference if s.doc_id == doc_id],
            "hit": [(s.start, s.end) for s in _hits(result_a, doc_id) + _hits(result_b, doc_id)],
            "alt": every_second(_hits(result_a, doc_id) if result_b is None else []),
        }
        side = {"A": result_a, "B": result_b}.get(evidence or "")
        if chunk_map is not None:
            del layers["hit"], layers["overlap"], layers["alt"]
            layers |= chunk_layers(chunk_spans)
        elif side is not None and reference:
            layers["hit"] = [(s.start, s.end) for s in _hits(side, doc_id)]
            layers["alt"] = every_second(_hits(side, doc_id))
            layers |= evidence_layers(_spans(side, doc_id), reference, doc_id)
        elif result_b is not None and result_a is not None:
            for kind, spans in diff_layers(result_a, result_b, doc_id).items():
                layers[kind] = [(s.start, s.end) for s in spans]
        else:
            layers["window"] = [(s.start, s.end) for s in _spans(base, doc_id)]
        cursor = self.begin()
        insert_layers(cursor, doc_id, doc.text, 0, len(doc.text), layers, chunk_markers(chunk_spans, doc.text),
                      self.pmap, tag=doc_id)
        self.commit()

    def show_cuts(self, doc_id: int, result_a: SearchResult, result_b: SearchResult,
                  reference: Sequence[Span] = ()) -> None:
        """Draw document ``doc_id`` with A's and B's cuts on it, agreement marked (``cut_view``)."""
        doc = self.ws.corpus.document(doc_id)
        rt_a, rt_b = self.ws.sets.runtime(result_a.set_id), self.ws.sets.runtime(result_b.set_id)
        self.runtime, self.cuts = rt_a, document_cuts(rt_a, rt_b, doc_id, reference)
        layers = {"heading": [(h.start, h.end) for h in doc.headings],
                  "reference": [(s.start, s.end) for s in reference if s.doc_id == doc_id], **cut_layers(self.cuts)}
        insert_layers(self.begin(), doc_id, doc.text, 0, len(doc.text), layers, {*self.cuts.a, *self.cuts.b},
                      self.pmap, tag=doc_id, marker_formats=cut_marker_formats(self.cuts))
        self.commit()


class DocumentPane(QWidget):
    """Document picker, legend and the document view (redrawn only when what it shows changed)."""

    rendered = Signal(int)  # doc_id, after the view was redrawn

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.view = DocumentView(workspace)
        self.view.setMinimumHeight(40)  # a short pane keeps a few lines of text: the passages above come first
        self.picker = ElidedComboBox()
        self.picker.setToolTip("Documents with returned passages or reference spans first, then every other "
                               "document of the library (to mark a reference the passages missed)")
        self.picker.setMinimumContentsLength(28)
        self.info = QLabel()
        self.info.setObjectName("muted")
        self.legend = Legend(SINGLE_KINDS, labels=EVIDENCE_LABELS | CHUNK_MAP_LABELS | {"alt": "next hit chunk"})
        self.colour = ElidedComboBox()
        self.colour.setToolTip("Colour the returned text; with reference spans one side's evidence (reference "
                               "text retrieved), noise (retrieved outside every reference) and missed reference "
                               "text; or one side's chunk map (its chunks, overlaps and boundary diagnostics)")
        self.colour.hide()
        self.chunk_summary = ChunkMapSummary(workspace)
        self.chunk_summary.hide()
        self.cut_summary = CutSummary()  # the figures of cuts of A and B, one line
        self.cut_summary.hide()
        self.export_button = QPushButton("Export chunks…")  # the chunk map's set, as 'workbench chunks export'
        self.export_button.setToolTip("Write the chunks of this chunk map's set (spans, text, embedded text, "
                                      "tokens, heading path, chunker) to JSON Lines, CSV or Parquet")
        self.export_button.clicked.connect(self.export_chunks)
        self.export_button.hide()
        self.cut_curve = CutCurve(workspace)  # under the chunk map of a semantic chunker: why it cut there
        self.cut_curve.boundaryClicked.connect(lambda doc_id, offset: self.show_doc(doc_id, offset))
        self._picked: str | None = None  # the picker's entry chosen by hand ("", "A" or "B")
        self._results_note = ""  # why the highlights are not the current question's ("" when they are)
        self._scroll_to: int | None = None  # where the next drawing scrolls to (a new question's focus)
        self.note = WrappedLabel("")  # why the highlights are not the current question's
        self.note.setObjectName("staleNote")
        self.note.setWordWrap(True)
        self.note.hide()
        head = QHBoxLayout()
        head.addWidget(QLabel("Document"))
        head.addWidget(self.picker, 1)
        head.addWidget(self.colour)
        head.addWidget(self.export_button)
        head.addWidget(self.info)
        head.addWidget(self.legend, 1)  # one compact line beside the picker: the text keeps the height
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(head)
        lay.addWidget(self.note)
        lay.addWidget(self.cut_summary)
        body = QHBoxLayout()
        body.addWidget(self.view, 1)
        body.addWidget(self.chunk_summary)
        lay.addLayout(body, 1)
        lay.addWidget(self.cut_curve)
        self.result_a: SearchResult | None = None
        self.result_b: SearchResult | None = None
        self.reference: list[Span] = []
        self.doc_id: int | None = None
        self._passage_docs: dict[int, int] = {}  # documents with passages or reference spans: passage count
        self._library: dict[int, str] | None = None  # every stored document's name by id (None: not read yet)
        self._seen: dict[int, str] = {}  # every name read, removed documents' too (a removal names what went)
        # what the view shows: (doc_id, result A, result B, reference, evidence side, chunk-map side)
        self._drawn: tuple[object, ...] | None = None
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refresh)
        self.picker.activated.connect(lambda i: self.show_doc(self.picker.itemData(i)))
        self.colour.activated.connect(lambda _i: self._colour_changed())

    def set_results(self, result_a: SearchResult | None, result_b: SearchResult | None = None,
                    reference: Sequence[Span] = (), focus: Span | None = None, note: str = "") -> None:
        """New results (B is None outside side-by-side mode); redraws the shown document. ``focus`` moves the
        view to that span's document and start (a new question: its first reference span or first passage);
        ``note`` says in words why the highlights are not the current question's (the view is greyed)."""
        self.result_a, self.result_b, self.reference = result_a, result_b, list(reference)
        self._results_note = note
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self.view.set_stale(bool(note))
        docs: dict[int, int] = {}
        for result in (result_a, result_b):
            for p in (result.passages if result is not None else ()):
                docs[p.span.doc_id] = docs.get(p.span.doc_id, 0) + 1
        for s in self.reference:
            docs.setdefault(s.doc_id, 0)
        self._passage_docs = docs
        self._fill()
        compare = result_a is not None and result_b is not None
        self._fill_colours(COMPARE_COLOURS if compare else SINGLE_COLOURS)
        self._set_legend()
        if focus is not None and focus.doc_id in docs:
            self.doc_id, self._scroll_to = focus.doc_id, focus.start
        elif self.doc_id not in docs:
            self.doc_id = next(iter(docs), None)
        if self.doc_id is None:
            self._timer.stop()
            self.view.reset()
            self._drawn = None
            self.info.setText("")
        else:
            self._timer.start()  # redraw on the next event-loop turn: the results view comes first

    def fill_picker(self) -> None:
        """Read the data folder's documents again and list them (``_fill``); called when they change (another
        process or a job here), so a removed document leaves the list and the view."""
        before = self._library or {}
        self._library = {int(r["id"]): str(r.get("title") or Path(str(r["path"])).name)
                         for r in self.ws.records.documents()}
        self._seen.update(self._library)
        self._fill()
        if self.doc_id is not None and self.doc_id not in self._library:  # removed from the data folder meanwhile
            self._gone(self.doc_id, before.get(self.doc_id, ""))

    def _fill(self) -> None:
        """List the documents with passages or reference spans (with their passage counts), then, after a
        separator, every other document of the library ("no passages"), by name; the shown one stays chosen. New
        results redraw it from the names read last (a knob change does not read the store)."""
        if self._library is None:
            self.fill_picker()
            return
        self.picker.blockSignals(True)
        self.picker.clear()
        for doc_id, count in self._passage_docs.items():
            name = self._library.get(doc_id)
            if name is None:  # indexed since the names were read, or removed since the results were made
                try:
                    doc = self.ws.corpus.document(doc_id)
                except DocumentGone:
                    continue  # its passages are of a document the library no longer holds
                name = doc.title or Path(doc.path).name
            self.picker.addItem(f"{name}  ({count} passage(s))", doc_id)
        rest = sorted(((i, n) for i, n in self._library.items() if i not in self._passage_docs),
                      key=lambda item: item[1].casefold())
        if rest and self.picker.count():
            self.picker.insertSeparator(self.picker.count())
        for doc_id, name in rest:
            self.picker.addItem(f"{name}  (no passages)", doc_id)
        self.picker.setCurrentIndex(self.picker.findData(self.doc_id) if self.doc_id is not None else -1)
        self.picker.blockSignals(False)

    def evidence_side(self) -> str | None:
        """The side whose evidence is coloured (``"A"``, ``"B"``), or None (returned text / no reference)."""
        data = self.colour.currentData() or ""
        return data if self.reference and data in ("A", "B") else None

    def chunk_map_side(self) -> str | None:
        """The side whose chunk map is drawn (``"A"``, ``"B"``), or None."""
        data = self.colour.currentData() or ""
        return data.removeprefix(CHUNKS) if data.startswith(CHUNKS) else None

    def set_chunk_map_side(self, side: str | None) -> None:
        """Draw ``side``'s chunk map (``"A"``, ``"B"``), as if picked by hand; None: the default colouring."""
        i = self.colour.findData(CHUNKS + side) if side else 0
        if i >= 0:
            self.colour.setCurrentIndex(i)
            self._colour_changed()
        elif side:  # not offered yet (no results): chosen when the results come
            self._picked = CHUNKS + side

    def set_evidence_side(self, side: str | None) -> None:
        """Colour ``side``'s evidence (``"A"``, ``"B"``) or the returned text (None), as if picked by hand,
        when the picker offers it."""
        i = self.colour.findData(side or "")
        if i >= 0:
            self.colour.setCurrentIndex(i)
            self._colour_changed()

    def _fill_colours(self, entries: list[tuple[str, str, bool]]) -> None:
        """The colour picker's entries (evidence ones only with reference spans): the entry picked by hand
        when still offered, else the first."""
        self.colour.clear()
        for label, data, needs_reference in entries:
            if self.reference or not needs_reference:
                self.colour.addItem(label, data)
        picked = self.colour.findData(self._picked) if self._picked is not None else -1
        self.colour.setCurrentIndex(max(0, picked))
        self.colour.setVisible(self.colour.count() > 1)

    def _set_legend(self) -> None:
        if self.chunk_map_side() == CUTS_AB:
            self.legend.set_kinds(CUT_VIEW_KINDS + (["reference"] if self.reference else []))
            return
        if self.chunk_map_side() is not None:
            self.legend.set_kinds(CHUNK_MAP_KINDS + (["reference"] if self.reference else []))
            return
        if self.evidence_side() is not None:
            kinds = EVIDENCE_VIEW_KINDS
        else:
            kinds = COMPARE_KINDS if self.result_a is not None and self.result_b is not None else SINGLE_KINDS
        self.legend.set_kinds(kinds + (["reference"] if self.reference else []))

    def _colour_changed(self) -> None:
        self._picked = self.colour.currentData()
        self._set_legend()
        if self.doc_id is not None:
            self.show_doc(self.doc_id)

    def flush(self) -> None:
        """Draw a pending update now."""
        if self._timer.isActive():
            self._timer.stop()
            self._refresh()

    def _refresh(self) -> None:
        if not self.isVisible():
            self._dirty = True  # drawn when the pane is shown again
            return
        offset, self._scroll_to = self._scroll_to, None
        self.show_doc(self.doc_id, offset)

    def showEvent(self, event: QShowEvent) -> None:
        """Catch up with results that arrived while the pane was hidden."""
        super().showEvent(event)
        if self._dirty:
            self._dirty = False
            self._timer.start()

    def show_doc(self, doc_id: int | None, offset: int | None = None) -> None:
        """Show document ``doc_id`` now (scrolled to character ``offset`` when given)."""
        if doc_id is None:
            return
        self._timer.stop()
        try:
            self.ws.corpus.document(doc_id)
        except DocumentGone:
            self._gone(doc_id)
            return
        self.doc_id = doc_id
        if self.note.text() != self._results_note:  # a document shown again: only the results' note stays
            self.note.setText(self._results_note)
            self.note.setVisible(bool(self._results_note))
        i = self.picker.findData(doc_id)
        if i >= 0:
            self.picker.setCurrentIndex(i)
        key = (doc_id, self.result_a, self.result_b, tuple(self.reference), self.evidence_side(),
               self.chunk_map_side())
        drawn = self._drawn
        if drawn is None or not (drawn[0] == doc_id and drawn[1] is key[1] and drawn[2] is key[2]
                                 and drawn[3:] == key[3:]):
            scroll = self.view.verticalScrollBar().value()
            same_doc = self._drawn is not None and self._drawn[0] == doc_id
            anchor = self.view.top_place() if same_doc and scroll > 0 else None  # the reader's place, by text
            self.view.show_document(doc_id, self.result_a, self.result_b, self.reference, key[4], key[5])
            self._drawn = key
            self._show_chunk_summary(doc_id, key[5])
            if same_doc and not (anchor is not None and anchor[0] == doc_id and self.view.scroll_to(*anchor)):
                self.view.verticalScrollBar().setValue(scroll)
            doc = self.ws.corpus.document(doc_id)
            self.info.setText(f"{Path(doc.path).name} · {len(doc.text):,} chars")
            self.rendered.emit(doc_id)
        if offset is not None:
            self.view.scroll_to(doc_id, offset)

    def _gone(self, doc_id: int, name: str = "") -> None:
        """Document ``doc_id`` is no longer stored (removed here or by another process): the view says so in
        words instead of drawing it."""
        name = name or self._seen.get(doc_id) or f"document {doc_id}"
        self.doc_id, self._drawn = None, None
        self.view.reset()
        self.picker.setCurrentIndex(-1)
        self.info.setText("")
        self.note.setText(f"{name} was removed from the library: its text and highlights are gone. Choose "
                          "another document in the list, or search again.")
        self.note.show()
        self._show_chunk_summary(doc_id, None)

    def _show_chunk_summary(self, doc_id: int, side: str | None) -> None:
        rt = self.view.runtime
        self.export_button.setVisible(side in ("A", "B") and rt is not None)
        both = self.result_b if side == CUTS_AB and rt is not None else None  # cuts of A and B were drawn
        self.cut_summary.setVisible(both is not None and self.view.cuts is not None)
        if both is not None and rt is not None and self.view.cuts is not None:
            self.chunk_summary.hide()
            self.cut_curve.clear()
            whole = self.cut_summary.whole_sets(rt, self.ws.sets.runtime(both.set_id), self.reference)
            self.cut_summary.show_cuts(self.view.cuts, whole)
            return
        if side is None or rt is None:
            self.chunk_summary.hide()
            self.cut_curve.clear()
            return
        self.chunk_summary.show_map(side, rt, doc_id, self.reference)
        self.chunk_summary.show()
        result = {"A": self.result_a, "B": self.result_b}.get(side) or self.result_a or self.result_b
        model = result.strategy.model if result is not None else ""
        self.cut_curve.show_cuts(side, rt.info.id, rt.info.config, model, doc_id,
                                 self.ws.corpus.document(doc_id))

    def export_chunks(self) -> ExportChunksDialog | None:
        """Open *Export chunks…* for the chunk map's set (None when no chunk map is shown)."""
        if self.view.runtime is None or self.chunk_map_side() not in ("A", "B"):
            return None
        dialog = ExportChunksDialog(self.ws, self.view.runtime, self)
        dialog.open()
        return dialog

    def show_passage(self, passage: Passage) -> None:
        """Open the passage's document scrolled to it."""
        self.show_doc(passage.span.doc_id, passage.span.start)
