"""The main window's links between the evaluation lab and Explore: a question, a configuration or a flip
opened from the lab shows side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QPushButton, QTabWidget

    from workbench.core.retrieve.strategies import Strategy
    from workbench.core.spans import Span
    from workbench.ui.explore.compare_view import CompareView
    from workbench.ui.model import WorkbenchModel


class LabLinks:
    """Mixed into ``MainWindow`` (which provides the attributes and methods declared here)."""

    model: WorkbenchModel
    compare: CompareView
    side_by_side: QPushButton
    back_to_lab: QPushButton
    left_tabs: QTabWidget

    def set_mode(self, mode: str) -> None:  # provided by MainWindow
        raise NotImplementedError

    def show_message(self, text: str) -> None:  # provided by MainWindow
        raise NotImplementedError

    def set_library_shown(self, shown: bool) -> None:  # provided by MainWindow
        raise NotImplementedError

    def show_document_tab(self) -> None:  # provided by MainWindow
        raise NotImplementedError

    def fit_to_screen(self) -> None:  # provided by MainWindow
        raise NotImplementedError

    def _open_pair(self, strategy_a: Strategy, strategy_b: Strategy) -> None:
        """A flip or a configuration opened in the lab: its two configurations become strategies A and B."""
        self.model.set_strategy("A", strategy_a)
        self.model.set_strategy("B", strategy_b)

    def _drill_down(self, question: str, reference_spans: Sequence[Span]) -> None:
        """A question clicked in the lab: Explore it side by side with its reference spans drawn and scored,
        the document view on its first reference span."""
        self.side_by_side.setChecked(True)
        self.set_mode("explore")
        self.back_to_lab.show()
        self.show_document_tab()
        self.fit_to_screen()
        self.compare.show_question(question, reference_spans)
        self.show_message("Reference spans are underlined; Ctrl+Shift+E goes back to the lab where you left it.")
