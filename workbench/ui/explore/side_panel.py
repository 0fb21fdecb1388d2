"""One side of the workbench (A or B): header, strategy knobs, re-chunk progress and the results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from workbench.core.index.embedder_pool import model_label
from workbench.core.ingest.chunkers.choice import chunker_label, chunker_name
from workbench.core.ingest.chunking import ChunkConfig
from workbench.core.retrieve.strategies import Strategy
from workbench.core.spans import Span
from workbench.ui.app.theme import SIDE_COLOURS
from workbench.ui.app.trust_dialog import ask_to_trust
from workbench.ui.explore.compare_stats import metrics_line, side_line
from workbench.ui.explore.evidence import EVIDENCE_LABELS, side_legend_kinds
from workbench.ui.explore.legend import Legend
from workbench.ui.explore.model_knob import ModelKnob, side_model_knob
from workbench.ui.explore.results_view import ResultsView
from workbench.ui.explore.side_controller import SideController
from workbench.ui.explore.strategy_panel import StrategyPanel
from workbench.ui.model import WorkbenchModel
from workbench.ui.window.job_progress import JobProgress
from workbench.ui.window.workers import JobRunner

if TYPE_CHECKING:
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace


class SidePanel(QWidget):
    """Strategy panel + results of one side, driven by a ``SideController``."""

    resultShown = Signal(object)  # SearchResult, after the results view was redrawn
    passageActivated = Signal(object, object)  # SearchResult, Passage
    message = Signal(str)  # for the status bar

    def __init__(self, name: str, workspace: Workspace, model: WorkbenchModel, store_jobs: JobRunner,
                 search_jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.model = model
        strategy = model.strategy(name)
        self.reference: list[Span] = model.reference
        self.controller = SideController(workspace, strategy, store_jobs, search_jobs, name, self)
        self.ask_trust: Callable[[QWidget | None, str, str], bool] = ask_to_trust  # tests answer it
        self.strategy_panel = StrategyPanel(strategy)
        self.model_knob: ModelKnob = side_model_knob(workspace, strategy.model)
        self.results = ResultsView(workspace)
        self.progress = JobProgress()
        self.progress.title.setMinimumWidth(60)  # a long chunk-set label is clipped, never widens the side
        self.title = QLabel(f"<span style='color:{SIDE_COLOURS[name]}'>■</span> Strategy {name}")
        self.title.setObjectName("sideTitle")
        self.describe = ClickableLabel(knob_summary(strategy))
        self.describe.setObjectName("knobSummary")
        self.describe.setToolTip(f"{strategy.describe()}\nClick (or Ctrl+K) to open or close the knobs")
        self.describe.setCursor(Qt.CursorShape.PointingHandCursor)
        self.describe.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.stats = QLabel("")
        self.stats.setObjectName("stats")
        self.legend = Legend(["hit", "window", "boundary"],
                             labels={"hit": "hit", "window": "neighbours", "boundary": "boundary",
                                     "quote": "quoted in the answer", **EVIDENCE_LABELS})
        self.legend.setWordWrap(False)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # clipped, never wider
        self.legend.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.metrics = QLabel("")
        self.metrics.setObjectName("stats")
        self.metrics.hide()
        self.banner = QLabel("")
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
        self._layout()
        self._wire()

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
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addWidget(self.strategy_panel)
        lay.addWidget(self.sets_row)
        lay.addWidget(self.progress)
        lay.addWidget(self.banner)
        stats = QHBoxLayout()
        stats.addWidget(self.stats)
        stats.addWidget(self.metrics)
        stats.addSpacing(12)
        stats.addWidget(self.legend, 1)
        lay.addLayout(stats)
        lay.addWidget(self.results, 1)

    def _wire(self) -> None:
        c = self.controller
        self.strategy_panel.changed.connect(self._strategy_changed)
        self.model_knob.changed.connect(lambda _spec: self._strategy_changed(self.strategy_panel.strategy()))
        c.resultReady.connect(self._show_result)
        c.staleChanged.connect(self.results.set_stale)
        c.buildStarted.connect(self._build_started)
        c.buildProgress.connect(self.progress.update_event)
        c.buildFinished.connect(lambda _info: self.progress.finish())
        c.buildCancelled.connect(self.progress.finish)
        c.failed.connect(self._failed)
        c.untrusted.connect(self._untrusted)
        self.progress.cancelRequested.connect(c.cancel_build)
        self.results.passageActivated.connect(self.passageActivated)
        self.model.strategyChanged.connect(self._model_strategy)
        self.model.referenceChanged.connect(self.set_reference)

    # ----- actions --------------------------------------------------------------------------
    def search(self, question: str) -> None:
        """Run this side's strategy for ``question``."""
        self.banner.hide()
        self.controller.search(question)

    def strategy(self) -> Strategy:
        """The strategy shown in the knobs."""
        return self.controller.strategy

    def set_strategy(self, strategy: Strategy) -> None:
        """Load a strategy into the knobs and run it."""
        self.strategy_panel.set_strategy(strategy)
        self.model_knob.set_model(strategy.model)
        self._strategy_changed(self.strategy_panel.strategy())

    def set_reference(self, spans: Sequence[Span]) -> None:
        """Reference spans of an evaluation question (drawn and scored); empty to clear."""
        self.reference = list(spans)
        if self.controller.result is not None:
            self._show_result(self.controller.result)
        else:
            self.metrics.setVisible(bool(self.reference))
            self._update_legend()

    def set_quotes(self, spans: Sequence[Span]) -> None:
        """Sentences quoted by an extractive answer, highlighted in the results (the legend names their
        colour while there are any); empty to clear."""
        self.results.set_quotes(list(spans))
        self._update_legend()

    def _update_legend(self) -> None:
        kinds = side_legend_kinds(self.reference, self.results.quotes)
        if kinds != self.legend.kinds:
            self.legend.set_kinds(kinds)

    def _strategy_changed(self, strategy: Strategy) -> None:
        if strategy.model != self.model_knob.model():  # the knobs keep the side's embedding model
            strategy = replace(strategy, model=self.model_knob.model())
        self.describe.setText(knob_summary(strategy))
        self.describe.setToolTip(f"{strategy.describe()}\nClick (or Ctrl+K) to open or close the knobs")
        self.banner.hide()
        self.controller.set_strategy(strategy)
        self.model.set_strategy(self.name, strategy)

    def _build_started(self, config: ChunkConfig) -> None:
        """The re-chunk line names a registry chunker only (its parameters are in the tooltip and the chip:
        a long label would widen the side past a laptop screen)."""
        self.progress.start(f"Re-chunking ({chunker_name(config) if config.chunker else config.label()})")
        self.progress.setToolTip(f"Building the chunk set {config.label()}")

    def _model_strategy(self, side: str, strategy: Strategy) -> None:
        """Another panel gave this side a strategy (swap, benchmark tour): load it into the knobs."""
        if side == self.name and strategy != self.controller.strategy:
            self.set_strategy(strategy)

    def _show_result(self, result: SearchResult) -> None:
        self.results.show_result(result, self.reference)
        self.stats.setText(side_line(result))
        if self.reference:
            self.metrics.setText(metrics_line(result.spans(), self.reference))
        self.metrics.setVisible(bool(self.reference))
        self._update_legend()
        self.resultShown.emit(result)

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

    def set_knobs_shown(self, shown: bool) -> None:
        """Open the knobs, or collapse them to the one-line summary in the header."""
        self.toggle.setChecked(shown)
        self._toggle_knobs(shown)

    def _toggle_knobs(self, shown: bool) -> None:
        self.strategy_panel.setVisible(shown)
        self.sets_row.setVisible(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)


class ClickableLabel(QLabel):
    """A label that emits ``clicked`` (the strategy summary opens the knobs)."""

    clicked = Signal()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        """Emit ``clicked`` on a left click."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


UNIT_SHORT = {"tokens": "tok", "words": "words", "sentences": "sent"}


def knob_summary(strategy: Strategy) -> str:
    """The knobs in one line of chips, e.g. ``neighbours · 100 tok · ±1 · top-5 · no budget``."""
    c = strategy.chunk
    parts = [strategy.name or "custom"]
    if c.chunker:
        parts.append(chunker_label(c.chunker))
    else:
        parts.append(f"{c.size} {UNIT_SHORT.get(c.unit, c.unit)}")
        if c.overlap:
            parts.append(f"overlap {c.overlap}")
    parts.append(strategy.expander.chip())
    parts.append(f"top-{strategy.top_k}")
    if strategy.search_config.mode != "dense":
        parts.append(strategy.search_config.mode)
    if c.heading_prefix:
        parts.append("headings")
    if c.contextual:
        parts.append("contextual")
    if strategy.model:
        parts.append(model_label(strategy.model))
    parts.append(f"budget {strategy.budget} tok" if strategy.budget else "no budget")
    return " · ".join(parts)
