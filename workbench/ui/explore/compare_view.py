"""Side-by-side comparison: strategies A and B on the same question, a summary line, and the document
view that colours text returned only by A, only by B, and by both (plus reference spans, when the
question comes from an evaluation set)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QStyle, QTabWidget, QVBoxLayout, QWidget

from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.spans import Span
from workbench.ui.explore.compare_stats import side_line, summary_line
from workbench.ui.explore.cut_editor import CutEditor
from workbench.ui.explore.doc_view import DocumentPane
from workbench.ui.explore.embedding_space import EmbeddingSpaceView, select_chunk
from workbench.ui.explore.heights import document_want, knob_floor, share_heights
from workbench.ui.explore.side_panel import SidePanel
from workbench.ui.jobs.workers import JobRunner
from workbench.ui.model import WorkbenchModel
from workbench.ui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace

log = logging.getLogger(__name__)
START_HINT = "Ask a question to see the passages each strategy returns."


class CompareView(QWidget):
    """Sides A and B, the summary line and the bottom tabs (document view; the window adds more)."""

    message = Signal(str)

    def __init__(self, workspace: Workspace, model: WorkbenchModel, store_jobs: JobRunner,
                 search_jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model
        self.a = SidePanel("A", workspace, model, store_jobs, search_jobs)
        self.b = SidePanel("B", workspace, model, store_jobs, search_jobs)
        self.summary = ElidedLabel(START_HINT)
        self.summary.setObjectName("summary")
        self.sides = QSplitter(Qt.Orientation.Horizontal)
        self.sides.setObjectName("sidesSplitter")
        self.sides.addWidget(self.a)
        self.sides.addWidget(self.b)
        self.sides.setStretchFactor(0, 1)  # A and B share the width evenly ...
        self.sides.setStretchFactor(1, 1)
        self._sides_moved = False  # ... until the divider is dragged (then B comes back at the dragged size)
        self._focused_question = ""  # the question whose results last moved the document view
        self.sides.splitterMoved.connect(self._sides_dragged)
        self.doc_pane = DocumentPane(workspace)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.doc_pane, "Document")
        self.space = EmbeddingSpaceView(workspace, model)  # a side's chunk set, the question and the hits in 2-D
        self.bottom_tabs.addTab(self.space, "Embedding space")
        self.space.chunkActivated.connect(self.show_chunk)
        self.space.drawn.connect(self.refit)  # its legend and lines may need more room: share out again
        self.cut_editor = CutEditor(self.doc_pane, model.strategy, self)  # the chunk map's cuts edited by hand
        self.cut_editor.edited.connect(self._run_hand_made)
        self.cut_editor.message.connect(self.message)
        # (its minimum is its content's: the splitter may make it small, never cut its lines)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("resultsSplitter")
        self.split.addWidget(self.sides)
        self.split.addWidget(self.bottom_tabs)
        self.split.setStretchFactor(0, 1)  # a taller window gives its height to the passages
        self.split.setStretchFactor(1, 0)
        # the heights are shared out (``fit_heights``) until the person moves the divider
        self.split_moved = False
        self.arrangement = "explore"  # the window's task on this page: explore, mark or cuts (``fit_heights``)
        self.split.splitterMoved.connect(self._split_dragged)
        self._content_heights: dict[QWidget, Callable[[], int]] = {}
        self._least_heights: dict[QWidget, Callable[[], int]] = {}
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_heights)
        self.bottom_tabs.currentChanged.connect(lambda _i: self.refit())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.summary)
        lay.addWidget(self.split, 1)
        for side in (self.a, self.b):
            side.passageActivated.connect(self.open_passage)
            side.message.connect(self.message)
            side.toggle.toggled.connect(lambda _on: self.refit())
            side.results.installEventFilter(self)  # a note or progress line in a side takes from its passages
        model.strategyChanged.connect(lambda *_: self.refit())  # the knobs shown may change their height
        model.resultChanged.connect(self._redraw)
        model.referenceChanged.connect(self._redraw)
        model.questionChanged.connect(self._redraw)
        model.sideBySideChanged.connect(self._side_by_side)
        self._side_by_side(model.side_by_side)

    # ----- actions --------------------------------------------------------------------------
    def sides_shown(self) -> list[SidePanel]:
        """The visible sides (A, and B in side-by-side mode: the model's)."""
        return [self.a, self.b] if self.model.side_by_side else [self.a]

    @property
    def reference(self) -> list[Span]:
        """The reference spans of the question (the model's)."""
        return self.model.reference

    def search(self) -> None:
        """Run the visible sides for the model's question."""
        if not self.model.question:
            self.message.emit("Type a question first.")
            return
        for side in self.sides_shown():
            side.search()

    def _side_by_side(self, on: bool) -> None:
        """The model shows side B, or not: B appears (and runs on the current question once A has searched)."""
        self.b.setVisible(on)
        self.refit()
        total = sum(self.sides.sizes())
        if on and not self._sides_moved and total > 0:
            self.sides.setSizes([total // 2, total - total // 2])
        if on and self.model.searched("A") and self.model.question and self.model.current_result("B") is None:
            self.b.search()
        self._update_summary()
        self._update_document()

    def _run_hand_made(self, side: str, chunker: str) -> None:
        """Side ``side`` runs with the hand-made chunking ``chunker`` just edited (listed on both sides)."""
        names = self.ws.cuts.names()
        for panel in (self.a, self.b):
            panel.strategy_panel.chunker.set_hand_made(names)
        panel = self.a if side == "A" else self.b
        strategy = panel.strategy()
        chunk = apply_chunker(strategy.chunk, chunker)
        if chunk != strategy.chunk:
            panel.set_strategy(replace(strategy, chunk=chunk))
        elif self.model.question:
            panel.search()  # the same name, other edits: another chunk set

    def _sides_dragged(self, *_: object) -> None:
        self._sides_moved = True

    def _split_dragged(self, *_: object) -> None:
        self.split_moved = True

    def size_to_content(self, tab: QWidget, height: Callable[[], int], least: Callable[[], int] | None = None) -> None:
        """The bottom pane, while ``tab`` is in front, asks ``height()`` for the pixels its content needs and
        ``least()`` for the least it is of use in (the passages give way to that much)."""
        self._content_heights[tab] = height
        if least is not None:
            self.set_least(tab, least)

    def set_least(self, tab: QWidget, least: Callable[[], int]) -> None:
        """While ``tab`` is in front the bottom pane holds at least ``least()`` pixels (the passages give way);
        its layout changing (a column shown, a legend grown) shares the height out again."""
        self._least_heights[tab] = least
        for widget in (tab, *tab.findChildren(QWidget)):
            if widget.layout() is not None:
                widget.installEventFilter(self)

    def refit(self) -> None:
        """Share the height out again once the layout has settled (``fit_heights``)."""
        self._fit_timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A side's passages resized (a note, a progress line or the knobs came or went): share out again."""
        resized = event.type() == QEvent.Type.Resize and watched in (self.a.results, self.b.results)
        relaid = event.type() == QEvent.Type.LayoutRequest and self.bottom_tabs.currentWidget() in self._least_heights
        if resized or relaid:  # (a tab that declared its least height changed its layout)
            self.refit()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new size shares the height out again."""
        super().resizeEvent(event)
        self.refit()

    def fit_heights(self) -> None:
        """The passages keep at least half the window's height, open knobs take what is left after the bottom
        pane's minimum (scrolling when it is less than they need), the bottom pane (document view or answer)
        the height its content needs up to what remains (``heights.share_heights``). Once the person has
        moved the divider the bottom pane keeps their size; the knobs still make room for the passages."""
        total = sum(self.split.sizes())
        sides = self.sides_shown()
        if total <= 0 or not self.isVisible():
            return
        passages = self.passages_keep()
        fixed = max(side.fixed_height() for side in sides)
        need = max(side.knob_need() for side in sides)
        if self.arrangement == "cuts":  # the knobs share the column with the chunk map below them
            need = min(need, max(self.knob_floor(), int(0.45 * total)))
        shown = self.document_shown()
        bottom_min = self.bottom_tabs.minimumSizeHint().height() if shown else 0
        front = self.bottom_tabs.currentWidget()
        content = self._content_heights.get(front) if front is not None else None
        tabs = self.bottom_tabs.tabBar().sizeHint().height() + 2 * self.bottom_tabs.style().pixelMetric(
            QStyle.PixelMetric.PM_DefaultFrameWidth)
        want = (content() + tabs if content is not None else document_want(total)) if shown else 0
        least = self._least_heights.get(front) if front is not None and shown else None
        if least is not None and front is not None:  # the tab in front is of no use below its least: the passages
            frame = self.bottom_tabs.height() - front.height() if front.isVisible() else 0  # give way
            bottom_min = max(bottom_min, least() + max(tabs, frame))
            passages = min(passages, max(0, total - fixed - bottom_min))
        if self.arrangement in ("mark", "cuts") and front is self.doc_pane:
            want = total  # marking and shaping cuts: the document takes what the passages and knobs leave
        floor = self.knob_floor()
        if self.split_moved:  # the person's bottom pane: the knobs share what the sides have
            bottom = self.split.sizes()[1] if shown else 0
            knobs = share_heights(total - bottom, fixed, passages, need, 0, 0, floor).knobs
            for side in sides:
                side.set_knob_room(knobs if need else None)
            return
        heights = share_heights(total, fixed, passages, need, bottom_min, max(want, bottom_min), floor)
        for side in sides:
            side.set_knob_room(heights.knobs if need else None)
        if shown and self.split.sizes() != [total - heights.bottom, heights.bottom]:
            self.split.setSizes([total - heights.bottom, heights.bottom])

    def passages_keep(self) -> int:
        """The height the passages keep before the knobs and the bottom pane get theirs: half the window while
        exploring, a quarter while marking (the document view is the work), a few lines while shaping cuts."""
        height = self.window().height()
        return {"mark": height // 4, "cuts": 90}.get(self.arrangement, height // 2 + 1)

    def knob_floor(self) -> int:
        """The least height of open knobs: ``KNOB_ROWS`` rows of them (a spin box and the grid's spacing)."""
        return knob_floor(self.a.strategy_panel.row_height())

    def show_question(self, question: str, reference_spans: Iterable[Span | dict[str, Any]]) -> None:
        """Show an evaluation question: set it with its reference spans (drawn and scored), run the sides."""
        self.model.open_question(question, normalise_spans(self.ws, reference_spans))
        self.search()

    def open_passage(self, result: SearchResult, passage: Passage) -> None:
        """Show the document of ``passage`` scrolled to it."""
        self._update_document()
        self.set_document_shown(True)
        self.doc_pane.show_passage(passage)
        self.bottom_tabs.setCurrentWidget(self.doc_pane)

    def show_document_at(self, doc_id: int, offset: int) -> None:
        """Open document ``doc_id`` in the document tab, scrolled to character ``offset``."""
        self.doc_pane.show_doc(doc_id, offset)
        self.bottom_tabs.setCurrentWidget(self.doc_pane)

    def show_chunk(self, span: Span) -> None:
        """Open ``span``'s document in the document tab, scrolled to it with its text selected (a chunk clicked
        in the embedding space)."""
        self.show_document_at(span.doc_id, span.start)
        select_chunk(self.doc_pane.view, span)

    def focus_document(self) -> None:
        """Show the document pane and put the keyboard focus in its text."""
        self.set_document_shown(True)
        self.bottom_tabs.setCurrentWidget(self.doc_pane)
        self.doc_pane.view.setFocus()

    def show_bottom_tab(self, widget: QWidget) -> None:
        """Bring ``widget`` (a tab of the bottom pane, e.g. the answer) to the front."""
        self.bottom_tabs.setCurrentWidget(widget)

    def set_knobs_shown(self, shown: bool) -> None:
        """Open the strategy knobs of both sides, or collapse them to their one-line summaries."""
        for side in (self.a, self.b):
            side.set_knobs_shown(shown)

    def knobs_shown(self) -> bool:
        """Whether the knobs are open (side A decides; both sides follow the shortcut)."""
        return self.a.toggle.isChecked()

    def set_document_shown(self, shown: bool) -> None:
        """Show or hide the document view (and answer) pane below the passages."""
        self.bottom_tabs.setVisible(shown)
        self.refit()

    def document_shown(self) -> bool:
        """Whether the document pane is shown."""
        return not self.bottom_tabs.isHidden()

    def refresh(self) -> None:
        """Re-run the visible sides (after the library changed)."""
        for side in self.sides_shown():
            side.controller.refresh()

    # ----- reactions ------------------------------------------------------------------------
    def _redraw(self, *_: object) -> None:
        self._update_summary()
        self._update_document()

    def results(self) -> tuple[SearchResult | None, SearchResult | None]:
        """The results of A and (in side-by-side mode) B that belong to the current question and strategies."""
        return self.model.current_result("A"), self.model.current_result("B") if self.model.side_by_side else None

    def _update_summary(self) -> None:
        ra, rb = self.results()
        if ra is not None and rb is not None:
            self.summary.setText(summary_line(ra, rb))
        elif ra is not None:
            self.summary.setText(f"A: {side_line(ra)}" + ("   |   B: searching…" if self.model.side_by_side else ""))
        elif self.model.result("A") is not None:
            self.summary.setText(self.model.stale_words("A", self.model.result("A"), "The passages shown are") + ".")
        else:
            self.summary.setText(START_HINT)

    def _update_document(self) -> None:
        """The document view draws the current results; when there are none yet, the latest ones, greyed with
        a note. Results of a new question move it to the question's first reference span, else to the first
        passage."""
        ra, rb = self.results()
        note = ""
        if ra is None and rb is None:
            ra = self.model.result("A")
            rb = self.model.result("B") if self.model.side_by_side else None
            if rb is not None and ra is not None and rb.question != ra.question:
                rb = None
            if ra is None and rb is None:
                return
            note = self.model.stale_words("A" if ra is not None else "B", ra or rb, "Highlights")
        shown = ra or rb
        reference = self.model.reference if shown is not None and shown.question == self.model.question else []
        focus = None
        if shown is not None and shown.question != self._focused_question and not note:
            self._focused_question = shown.question
            first = min(reference, key=lambda s: (s.doc_id, s.start)) if reference else None
            focus = first or (shown.passages[0].span if shown.passages else None)
        self.doc_pane.set_results(ra, rb, reference, focus=focus, note=note)


def normalise_spans(ws: Workspace, spans: Iterable[Span | dict[str, Any]]) -> list[Span]:
    """Reference spans as ``Span`` values: accepts ``Span`` (what the evaluation view sends) and dicts with
    ``doc_path``, ``start`` and ``end`` (a stored document's path). Unknown documents are skipped."""
    by_path: dict[str, int] | None = None
    out: list[Span] = []
    for item in spans or ():
        try:
            if isinstance(item, Span):
                out.append(item)
                continue
            if by_path is None:
                by_path = {d["path"]: d["id"] for d in ws.records.documents()}
            doc_id = by_path.get(str(item["doc_path"]))
            if doc_id is None:
                continue
            out.append(Span(int(doc_id), int(item["start"]), int(item["end"])))
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignored reference span %r: %s", item, exc)
    return out
