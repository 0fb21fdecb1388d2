"""Small functions the main window wires between its panels and the model: what the answer panel answers
and judges with, where an extractive answer's quotes are drawn, and the question bar's text."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLineEdit

    from workbench.core.retrieve.strategies import Strategy
    from workbench.core.spans import Span
    from workbench.ui.explore.compare_view import CompareView
    from workbench.ui.model import WorkbenchModel


def answer_context(model: WorkbenchModel, side: str = "A") -> tuple[str, Strategy]:
    """Question and strategy the answer panel uses for ``side`` (A unless told)."""
    return model.question, model.strategy(side)


def judging_reference(model: WorkbenchModel) -> list[Span] | None:
    """The reference spans answers are judged against (empty: the corpus does not cover the question), or
    None when the question does not come from a question set."""
    return model.reference if model.from_question_set else None


def show_side_quotes(compare: CompareView, side: str, spans: list[Span]) -> None:
    """Highlight an extractive answer's quoted sentences in the passages of the side it answered from."""
    (compare.a if side == "A" else compare.b).set_quotes(spans)


def show_question_text(editor: QLineEdit, question: str) -> None:
    """Show the model's ``question`` in the question bar, unless it already says that."""
    if editor.text().strip() != question:
        editor.setText(question)
