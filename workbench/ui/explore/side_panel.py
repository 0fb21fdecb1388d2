"""One side of the workbench (A or B): header, strategy knobs, re-chunk progress and the results, a view of the
window's model: it draws the side's latest result, with the question's reference spans scored and coloured
only when the result belongs to the current question, and says in words when the passages shown are not the
current question's or strategy's (greyed until the new ones arrive)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget

from workbench.core.ingest.chunkers.choice import chunker_name
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.names import chips
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.spans import Span
from workbench.ui.basics.theme import SIDE_COLOURS
from workbench.ui.dialogs.trust_dialog import ask_to_trust
from workbench.ui.explore.compare_stats import metrics_line, side_line
from workbench.ui.explore.evidence import EVIDENCE_LABELS, side_legend_kinds
from workbench.ui.explore.legend import Legend
from workbench.ui.explore.model_knob import ModelKnob, side_model_knob
from workbench.ui.explore.results_view import ResultsView
from workbench.ui.explore.side_controller import SideController
from workbench.ui.explore.strategy_panel import StrategyPanel
from workbench.ui.jobs.job_progress import JobProgress
from workbench.ui.jobs.workers import JobRunner
from workbench.ui.model import WorkbenchModel, as_side
from workbench.ui.widgets.elided_label import ElidedLabel
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.core.jobs import ProgressEvent
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace

LEGEND_LABELS = {"hit": "hit", "alt": "next hit", "window": "neighbours", "boundary": "chunk boundary",
                 "quote": "quoted in the answer", **EVIDENCE_LABELS}


class SidePanel(QWidget):
    """Strategy panel + results of one side; its ``SideController`` runs the work, the model holds the state."""

    resultShown = Signal(object)  # SearchResult, after the results view was redrawn
    passageActivated = Signal(object, object)  # SearchResult, Passage
    message = Signal(str)  # for the status bar

    def __init__(self, name: str, workspace: Workspace, model: WorkbenchModel, store_jobs: JobRunner,
                 search_jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = as_side(name)
        self.model = model
        strategy = model.strategy(name)
        self.banner = WrappedLabel("")  # why the side did not run; a new strategy clears it before it runs
        model.strategyChanged.connect(self._clear_banner)  # before the controller runs the new strategy
        self.controller = SideController(workspace, model, store_jobs, search_jobs, name, self)
        self.ask_trust: Callable[[QWidget | None, str, str], bool] = ask_to_trust  # tests answer it
        self.strategy_panel = StrategyPanel(model, name)
        self.strategy_panel.chunker.set_hand_made(workspace.cuts.names())  # edited:NAME chunkers
        self.model_knob: ModelKnob = side_model_knob(workspace, strategy.model)
        self.results = ResultsView(workspace)
        self.progress = JobProgress(label=ElidedLabel)  # never wider than the side: the A/B divider stays
        self.title = QLabel(f"<span style='color:{SIDE_COLOURS[self.name]}'>■</span> Strategy {name}")
        self.title.setObjectName("sideTitle")
        self.describe = ClickableLabel()
        self.describe.setObjectName("knobSummary")
        self.describe.setCursor(Qt.CursorShape.PointingHandCursor)
        self.stats = ElidedLabel("")
        self.stats.setObjectName("stats")
        self.metrics = QLabel("")
        self.metrics.setObjectName("stats")
        self.metrics.hide()
        self.legend = Legend(["hit", "window", "boundary"], labels=LEGEND_LABELS)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.stale_note = WrappedLabel("")  # why the passages shown are not the current question's or strategy's
        self.stale_note.setObjectName("staleNote")
        self.stale_note.setWordWrap(True)
        self.stale_note.hide()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.toggle = QToolButton()
        self.toggle.setText("Knobs")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)  # the summary beside it says what
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.setToolTip("Open or close the strategy knobs (Ctrl+K: both sides)")
        self.toggle.toggled.connect(self._toggle_knobs)
        self.describe.clicked.connect(self.toggle.toggle)
        self._drawn: tuple[object, ...] | None = None  # what the results view shows: (result, reference, quotes)
        self.knob_room: int | None = None  # the most the open knobs may take (the compare view's share)
        self._knob_need = 0
        self._layout()
        self._wire()
        self._show_strategy(strategy)

    def _layout(self) -> None:
        self.sets_row = QWidget()  # which chunk sets are searched: the embedding model, the coarse levels
        sets = QHBoxLayout(self.sets_row)
        sets.setContentsMargins(0, 0, 0, 0)
        sets.addWidget(self.model_knob, 1)
        coarse_label = QLabel("Coarse sets")
        coarse_label.setToolTip(self.strategy_panel.coarse.toolTip())
        coarse_label.setBuddy(self.strategy_panel.coarse)
        sets.addWidget(coarse_label)
        sets.addWidget(self.strategy_panel.coarse)
        self.strategy_panel.coarse.show()
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addWidget(self.describe, 1)
        head.addWidget(self.toggle)
        knobs = QWidget()  # the knobs scroll when the side is too small for them, never crushing a label
        col = QVBoxLayout(knobs)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        col.addWidget(self.strategy_panel)
        col.addWidget(self.sets_row)
        self.knob_area = QScrollArea()
        self.knob_area.setWidget(knobs)
        self.knob_area.setWidgetResizable(True)
        self.knob_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.knob_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addWidget(self.knob_area)
        lay.addWidget(self.progress)
        lay.addWidget(self.banner)
        lay.addWidget(self.stale_note)
        stats = QHBoxLayout()  # one line when there is room: the legend wraps below itself when there is not
        stats.addWidget(self.stats)
        stats.addSpacing(10)
        stats.addWidget(self.metrics)
        stats.addSpacing(12)
        stats.addWidget(self.legend, 1)
        lay.addLayout(stats)
        lay.addWidget(self.results, 1)

    def _wire(self) -> None:
        c = self.controller
        self.model_knob.changed.connect(self._model_chosen)
        c.buildStarted.connect(self._build_started)
        c.buildProgress.connect(self._build_progress)
        c.buildFinished.connect(lambda _info: self._build_over())
        c.buildCancelled.connect(self._build_over)
        c.staleChanged.connect(lambda _busy: self.redraw())
        c.failed.connect(self._failed)
        c.untrusted.connect(self._untrusted)
        self.progress.cancelRequested.connect(c.cancel_build)
        self.results.passageActivated.connect(self.passageActivated)
        self.model.strategyChanged.connect(self._strategy_changed)  # after the controller: its state is drawn
        self.model.resultChanged.connect(self._result_changed)
        self.model.questionChanged.connect(lambda _q: self.redraw())
        self.model.referenceChanged.connect(lambda _spans: self.redraw())
        self.model.answerChanged.connect(self._result_changed)

    # ----- actions --------------------------------------------------------------------------
    def search(self, question: str | None = None) -> None:
        """Run this side's strategy for ``question`` (default: the model's question)."""
        self.banner.hide()
        self.controller.search(question)

    def strategy(self) -> Strategy:
        """The side's strategy (the model's)."""
        return self.model.strategy(self.name)

    def set_strategy(self, strategy: Strategy) -> None:
        """Give the side ``strategy`` (through the model: the knobs and the search follow)."""
        self.model.set_strategy(self.name, strategy)

    @property
    def reference(self) -> list[Span]:
        """The reference spans scored and drawn over the side's result ([] when its result is not the
        current question's, or the question is not from a question set)."""
        result = self.model.result(self.name)
        if result is None or result.question != self.model.question:
            return []
        return self.model.reference

    def quotes(self) -> list[Span]:
        """The sentences the side's answer quoted (an extractive answer), while both the answer and the
        result shown belong to the current question and the side's strategy; else none."""
        answer = self.model.current_answer(self.name)
        if answer is None or self.model.current_result(self.name) is None:
            return []
        return [Span(*q) for q in answer.quotes]

    # ----- reactions ------------------------------------------------------------------------
    def _model_chosen(self, spec: str) -> None:
        """Another embedding model for this side: the side's strategy with it goes to the model."""
        self.model.set_strategy(self.name, replace(self.model.strategy(self.name), model=spec))

    def _clear_banner(self, side: str, _strategy: Strategy) -> None:
        """A new strategy for this side: the last failure's banner goes (a new failure says it again)."""
        if side == self.name:
            self.banner.hide()

    def _strategy_changed(self, side: str, strategy: Strategy) -> None:
        """The model's strategy of this side changed (a knob, a swap, the lab): the header and the model choice
        show it."""
        if side != self.name:
            return
        self._show_strategy(strategy)
        self.redraw()

    def _show_strategy(self, strategy: Strategy) -> None:
        if strategy.model != self.model_knob.model():
            self.model_knob.set_model(strategy.model)
        self.describe.setText(knob_summary(strategy))
        self.describe.set_tip(f"{strategy.describe()}\nClick (or Ctrl+K) to open or close the knobs")

    def _result_changed(self, side: str) -> None:
        if side == self.name:
            self.redraw()

    def redraw(self) -> None:
        """Show the side's latest result as the model has it: scored and coloured against the reference spans
        when it is the current question's, greyed with a note in words when it is not current."""
        result = self.model.result(self.name)
        if result is None:
            self.stale_note.hide()
            self.results.set_stale(False)
            self._update_legend()
            return
        reference = self.reference
        self.results.quotes = self.quotes()
        key = (result, tuple(reference), tuple(self.results.quotes))
        redraw = self._drawn is None or self._drawn[0] is not result or self._drawn[1:] != key[1:]
        if redraw:
            new_question = self._drawn is None or getattr(self._drawn[0], "question", None) != result.question
            self.results.show_result(result, reference, keep_scroll=not new_question)
            self._drawn = key
            self.stats.setText(side_line(result))
        self.metrics.setText(metrics_line(result.spans(), reference) if reference else "")
        self.metrics.setVisible(bool(reference))
        self._update_legend()
        words = self.model.stale_words(self.name, result, "Passages")
        if words:
            words += self._stale_reason(result)
        self.stale_note.setText(words)
        self.stale_note.setVisible(bool(words))
        self.results.set_stale(bool(words))
        if redraw:
            self.resultShown.emit(result)

    def _stale_reason(self, result: SearchResult) -> str:
        c = self.controller
        if c.building:
            return " — re-chunking for the new strategy…"
        if c.searching:
            return " — searching…"
        if result.question != self.model.question:
            return " — press Enter (or Search) to search the question above."
        return " — its new chunk set was not built."

    def _update_legend(self) -> None:
        kinds = side_legend_kinds(self.reference, self.results.quotes)
        if kinds != self.legend.kinds:
            self.legend.set_kinds(kinds)

    def _build_started(self, config: ChunkConfig) -> None:
        """The re-chunk line names a registry chunker only (its parameters are in the tooltip and the chip:
        a long label would widen the side past a laptop screen)."""
        self.progress.start(f"Re-chunking ({chunker_name(config) if config.chunker else chunking_label(config)})")
        self.progress.setToolTip(f"Building the chunk set {chunking_label(config)}")
        self.redraw()

    def _build_progress(self, event: ProgressEvent) -> None:
        self.progress.update_event(event)

    def _build_over(self) -> None:
        self.progress.finish()
        self.redraw()

    def _untrusted(self, target: str, what: str) -> None:
        """The strategy names code read from data: run it only when the user allows it here."""
        if self.ask_trust(self, target, what):
            self.controller.refresh()
        else:
            self._failed(f"Side {self.controller.name} did not run: the strategy names {what}, which you "
                         "did not allow. Choose another chunker or model, or allow it when asked.")

    def _failed(self, message: str) -> None:
        self.progress.finish()
        self.banner.setText(message)
        self.banner.show()
        self.message.emit(message)
        self.redraw()

    def set_knobs_shown(self, shown: bool) -> None:
        """Open the knobs, or collapse them to the one-line summary in the header."""
        self.toggle.setChecked(shown)
        self._toggle_knobs(shown)

    def _toggle_knobs(self, shown: bool) -> None:
        self.knob_area.setVisible(shown)
        self.strategy_panel.setVisible(shown)
        self.sets_row.setVisible(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self._fit_knobs()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The knobs take one or two columns by the side's width, and no more height than they need."""
        super().resizeEvent(event)
        self._fit_knobs()

    def _fit_knobs(self) -> None:
        if self.knob_area.isHidden():
            return
        area = self.knob_area
        self.strategy_panel.fit_width(area.viewport().width() or area.width())
        content = area.widget()
        if content is None:
            return
        content.adjustSize()
        need = content.sizeHint().height() + 2 * area.frameWidth()
        if area.horizontalScrollBar().isVisible():
            need += area.horizontalScrollBar().sizeHint().height()
        self._knob_need = need
        room = need if self.knob_room is None else min(need, self.knob_room)
        if area.maximumHeight() != room:
            area.setMaximumHeight(room)  # less than they need: the knobs scroll up and down, the passages keep theirs

    def knob_need(self) -> int:
        """The open knobs' whole height (0 when they are closed)."""
        return 0 if self.knob_area.isHidden() else self._knob_need

    def fixed_height(self) -> int:
        """The side's height besides its passages and its knobs (header, stats line, notes, margins)."""
        knobs = self.knob_area.height() if not self.knob_area.isHidden() else 0
        return max(0, self.height() - self.results.height() - knobs)

    def set_knob_room(self, room: int | None) -> None:
        """At most ``room`` pixels for the open knobs (None: all they need); they scroll within it."""
        if room != self.knob_room:
            self.knob_room = room
            self._fit_knobs()

    def show_cited(self, span: Span) -> bool:
        """Scroll to the passage holding ``span`` (a citation of this side's answer) and flash it, the sentence
        the answer quoted from it at the top (when it quoted one); False (with a message) when the passages
        shown are not the ones the answer read."""
        result = self.model.current_result(self.name)
        answer = self.model.current_answer(self.name)
        if result is None or answer is None:
            self.message.emit(f"The passages {self.name} shows are not the ones its answer read: ask again.")
            return False
        index = next((i for i, p in enumerate(result.passages) if p.span.doc_id == span.doc_id
                      and p.span.start < span.end and span.start < p.span.end), None)
        if index is None:
            self.message.emit(f"The cited passage is not among {self.name}'s passages.")
            return False
        passage = result.passages[index].span
        quoted = [q for q in self.quotes() if q.doc_id == passage.doc_id and passage.start <= q.start < passage.end]
        return self.results.show_passage(index, at=min(quoted, key=lambda q: q.start) if quoted else None)

    def activate_passage(self, passage: Passage) -> None:
        """Open ``passage`` of the shown result in the document view (as clicking its card does)."""
        result = self.model.result(self.name)
        if result is not None and passage in result.passages:
            self.passageActivated.emit(result, passage)


class ClickableLabel(ElidedLabel):
    """The strategy summary: one line, elided when narrow; a click opens the knobs (``clicked``)."""

    clicked = Signal()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Emit ``clicked`` on a left click."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


def knob_summary(strategy: Strategy) -> str:
    """The knobs in one line of chips, e.g. ``neighbours · 100 tok · ±1 · top-5 · no budget``."""
    return " · ".join([strategy.name or "custom", *(text for _aspect, text in chips(strategy))])


__all__ = ["ClickableLabel", "SidePanel", "knob_summary"]
