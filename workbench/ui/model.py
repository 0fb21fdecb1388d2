"""The window's shared state in one small QObject: the question, the reference spans drawn for it, strategies
A and B and the answering model. Panels observe its signals instead of reaching through each other; whoever
changes a value calls a setter here, and a setter that changes nothing emits nothing (so two panels that
mirror each other cannot loop).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, Signal

from workbench.core.retrieve.strategies import Strategy
from workbench.core.spans import Span
from workbench.ui.app.settings import LLMChoice

SIDES = ("A", "B")


class WorkbenchModel(QObject):
    """Question, reference spans, strategies A and B and the LLM choice of one window.

    Signals (each carries the new value):
      ``questionChanged(str)``: the question being explored (set by a search or a drill-down);
      ``referenceChanged(list)``: ``list[Span]``, the reference spans of an evaluation question ([] when none);
      ``strategyChanged(str, Strategy)``: side name (``"A"`` / ``"B"``) and its strategy;
      ``llmChanged(LLMChoice)``: the backend that answers from the next question on.
    """

    questionChanged = Signal(str)  # noqa: N815 - Qt naming
    referenceChanged = Signal(list)  # noqa: N815 - list[Span]
    strategyChanged = Signal(str, Strategy)  # noqa: N815 - side, strategy
    llmChanged = Signal(LLMChoice)  # noqa: N815

    def __init__(self, strategy_a: Strategy, strategy_b: Strategy, llm: LLMChoice | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._question = ""
        self._reference: list[Span] = []
        self._set_question = ""  # the last question opened from a question set (its answers get judged)
        self._strategies = {"A": strategy_a, "B": strategy_b}
        self._llm = llm or LLMChoice()

    # ----- the question and its reference spans ---------------------------------------------------
    @property
    def question(self) -> str:
        """The question being explored ("" before the first)."""
        return self._question

    def set_question(self, question: str) -> None:
        """Explore ``question`` (stripped)."""
        question = question.strip()
        if question != self._question:
            self._question = question
            self.questionChanged.emit(question)

    @property
    def reference(self) -> list[Span]:
        """Reference spans of the question, when it comes from an evaluation set (a copy)."""
        return list(self._reference)

    def set_reference(self, spans: Iterable[Span]) -> None:
        """Draw and score ``spans`` as the question's reference (empty to clear)."""
        spans = list(spans)
        if spans != self._reference:
            self._reference = spans
            self.referenceChanged.emit(list(spans))

    def mark_from_question_set(self, question: str) -> None:
        """Note that ``question`` comes from a question set: its reference spans (none: the corpus does not
        cover it) are the judge's yardstick while it stays the model's question."""
        self._set_question = question.strip()

    @property
    def from_question_set(self) -> bool:
        """True while the question is the one last opened from a question set (answers to it get judged)."""
        return bool(self._question) and self._question == self._set_question

    # ----- strategies -------------------------------------------------------------------------------
    def strategy(self, side: str) -> Strategy:
        """The strategy of side ``"A"`` or ``"B"``."""
        return self._strategies[side]

    def set_strategy(self, side: str, strategy: Strategy) -> None:
        """Give side ``"A"`` or ``"B"`` a strategy."""
        if side not in SIDES:
            raise ValueError(f"no side {side!r}: A or B")
        if strategy != self._strategies[side]:
            self._strategies[side] = strategy
            self.strategyChanged.emit(side, strategy)

    def swap_strategies(self) -> None:
        """Exchange the strategies of A and B."""
        a, b = self._strategies["A"], self._strategies["B"]
        self.set_strategy("A", b)
        self.set_strategy("B", a)

    def chunk_configs(self) -> list:
        """Chunk configurations to keep built: A's first, then B's when different."""
        return list(dict.fromkeys([self._strategies["A"].chunk, self._strategies["B"].chunk]))

    # ----- the answering model ----------------------------------------------------------------------
    @property
    def llm(self) -> LLMChoice:
        """The backend, model and host that answer."""
        return self._llm

    def set_llm(self, choice: LLMChoice) -> None:
        """Answer with ``choice`` from the next question on."""
        if choice != self._llm:
            self._llm = choice
            self.llmChanged.emit(choice)
