"""The multi-granularity knob of one side: which coarser chunk sets also lend their best hits.

A short text field (``100:1+200:1``: the best hit of the same documents cut at 100 and at 200 units; empty =
off). The spec is parsed and checked by core (``search_config.parse_coarse``); coarse hits are windows of
chunks, so the field is off for expansions that grow a chunk themselves (``coarse_hits.COARSE_EXPANSIONS``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QWidget

from workbench.core.retrieve.coarse_hits import COARSE_EXPANSIONS
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.retrieve.strategy.search_config import CoarseLevel, coarse_text, parse_coarse

TIP = ("Multi-granularity search: SIZE:HITS joined by +, e.g. 100:1+200:1 also searches the same documents cut "
       "into 100- and 200-unit chunks (same chunker and model) and adds the best hit of each as a window of "
       "this side's chunks, ranked by reciprocal rank fusion. Empty = off. The coarse chunk sets are built on "
       "the first search (in the background, like a chunk-size change); works with neighbour windows or no "
       "expansion.")


class CoarseField(QLineEdit):
    """``SIZE:HITS+…`` or empty; emits ``changed`` when an edit is finished and the text changed."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("off")
        self.setToolTip(TIP)
        self.setAccessibleName("Coarse chunk sets")
        self.setMaximumWidth(120)
        self._shown = ""
        self.editingFinished.connect(self._finished)

    def _finished(self) -> None:
        if self.text().strip() != self._shown:
            self._shown = self.text().strip()
            self.changed.emit()

    def levels(self, expansion: str) -> tuple[CoarseLevel, ...]:
        """The levels typed (``ValueError`` with core's message when malformed); none when the expansion
        cannot use coarse hits."""
        if expansion not in COARSE_EXPANSIONS:
            return ()
        return parse_coarse(self.text().strip())

    def show_strategy(self, strategy: Strategy) -> None:
        """Show ``strategy``'s coarse levels; disabled for expansions that cannot use them."""
        self._shown = coarse_text(strategy.search_config.coarse)
        self.setText(self._shown)
        self.set_expansion(strategy.expander.kind)

    def set_expansion(self, expansion: str) -> None:
        """Enable the field only for expansions that take coarse hits."""
        self.setEnabled(expansion in COARSE_EXPANSIONS)
