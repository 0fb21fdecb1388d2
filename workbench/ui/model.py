"""The window's state in one observable QObject (the evented model; the panels are thin views of it).

It owns Explore's state (the mode, side by side or not, the question and its reference spans or none, each
side's strategy, the question it last searched, its latest result and answer), the answering model, the
strategies saved in the data folder, and the evaluation lab's state (its question set and the stored documents
of its corpora, its current run, selected configuration and configuration colours).
Every result and answer carries the question and strategy that produced it; ``current_result`` and
``current_answer`` give it only while both still match, and ``stale_words`` says in words why a shown one
does not. Panels observe the signals and keep no copies; whoever changes a value calls a setter here, and a
setter that changes nothing emits nothing (so views that mirror each other cannot loop). A control that shows
a value (the side-by-side button and its menu action, the mode buttons) connects to the value's signal and
writes back through the setter, as napari's evented models are used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from PySide6.QtCore import QObject, Signal

from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.sweep import ConfigResult
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.pipeline import SearchResult
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy
from workbench.core.spans import Span
from workbench.ui.basics.colours import configuration_colours
from workbench.ui.basics.settings import LLMChoice

Side = Literal["A", "B"]
SIDES: tuple[Side, Side] = ("A", "B")
Mode = Literal["explore", "evaluate"]
QUOTE_CHARS = 60  # an earlier question is quoted up to this many characters


class Produced(Protocol):
    """What a result or an answer says about its origin: the question and the strategy it was made for."""

    @property
    def question(self) -> str: ...

    @property
    def strategy(self) -> Strategy | None: ...


class Answer(Produced, Protocol):
    """An answer of one side: besides its origin, the sentences it quotes (extractive answers)."""

    @property
    def quotes(self) -> Sequence[tuple[int, int, int]]: ...


@dataclass(frozen=True)
class LabRun:
    """The evaluation lab's current run: its id and its configurations' results."""

    run_id: str
    results: tuple[ConfigResult, ...]


@dataclass(frozen=True)
class Folder:
    """What the data folder holds, as far as the window needs to know it changed: the store's version and
    every stored document as (id, sha256)."""

    version: int
    documents: tuple[tuple[int, str], ...]


def as_side(side: str) -> Side:
    """``side`` checked to be ``"A"`` or ``"B"``."""
    if side == "A":
        return "A"
    if side == "B":
        return "B"
    raise ValueError(f"no side {side!r}: A or B")


def as_mode(mode: str) -> Mode:
    """``mode`` checked to be ``"explore"`` or ``"evaluate"``."""
    if mode == "explore":
        return "explore"
    if mode == "evaluate":
        return "evaluate"
    raise ValueError(f"no mode {mode!r}: explore or evaluate")


def quoted(question: str) -> str:
    """``question`` in quotes, shortened for a one-line note."""
    text = question if len(question) <= QUOTE_CHARS else question[: QUOTE_CHARS - 1].rstrip() + "…"
    return f"“{text}”"


class WorkbenchModel(QObject):
    """The state of one window; see the module docstring.

    Signals:
      ``modeChanged(str)``: ``"explore"`` or ``"evaluate"`` (the lab gets the whole window);
      ``sideBySideChanged(bool)``: whether side B is shown next to A;
      ``questionChanged(str)``: the question being explored;
      ``referenceChanged(list)``: ``list[Span]``, its reference spans ([] when it is not from a question set,
      or the corpus does not cover it);
      ``strategyChanged(str, object)``: side (``"A"`` / ``"B"``) and its ``Strategy``;
      ``searchedChanged(str)``: the side whose searched question changed (the question it last searched for);
      ``resultChanged(str)``: the side whose latest ``SearchResult`` changed;
      ``answerChanged(str)``: the side whose latest answer changed (``None`` when cleared);
      ``llmChanged(object)``: the ``LLMChoice`` that answers from the next question on;
      ``runChanged()``: the lab's current run (and its colours) changed;
      ``selectionChanged(str)``: the configuration selected in the lab ("" for none);
      ``questionSetChanged()``: the lab's question set (and so its documents) changed;
      ``savedChanged()``: the strategies saved in the data folder changed;
      ``folderChanged(int)``: the data folder's version (its store's generation) moved: documents or chunk sets
      changed, by a job of this window or by another process;
      ``documentsChanged()``: the stored documents themselves changed (added, removed or re-read).
    """

    modeChanged = Signal(str)
    sideBySideChanged = Signal(bool)
    searchedChanged = Signal(str)  # side
    questionSetChanged = Signal()
    savedChanged = Signal()
    folderChanged = Signal(int)  # the data folder's version
    documentsChanged = Signal()

    questionChanged = Signal(str)
    referenceChanged = Signal(list)  # list[Span]
    strategyChanged = Signal(str, object)  # side, Strategy
    resultChanged = Signal(str)  # side
    answerChanged = Signal(str)  # side
    llmChanged = Signal(object)  # LLMChoice
    runChanged = Signal()
    selectionChanged = Signal(str)  # configuration key

    def __init__(self, strategy_a: Strategy | None = None, strategy_b: Strategy | None = None,
                 llm: LLMChoice | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._question = ""
        self._reference: tuple[Span, ...] | None = None  # None: not a question-set question
        self._strategies: dict[Side, Strategy] = {"A": strategy_a or PRESETS["neighbours"],
                                                  "B": strategy_b or PRESETS["plain"]}
        self._results: dict[Side, SearchResult | None] = {"A": None, "B": None}
        self._answers: dict[Side, Answer | None] = {"A": None, "B": None}
        self._llm = llm or LLMChoice()
        self._run: LabRun | None = None
        self._colours: dict[str, str] = {}
        self._selected = ""
        self._mode: Mode = "explore"
        self._side_by_side = False
        self._searched: dict[Side, str] = {"A": "", "B": ""}
        self._saved: dict[str, Strategy] = {}
        self._question_set: QuestionSet | None = None
        self._documents: dict[str, int] = {}
        self._folder = Folder(-1, ())

    # ----- what the data folder holds -----------------------------------------------------------------
    @property
    def folder(self) -> Folder:
        """What the data folder held when it was last read (``Folder``; version -1 before the first read)."""
        return self._folder

    def set_folder(self, folder: Folder) -> None:
        """The data folder as just read: ``folderChanged`` when its version moved, ``documentsChanged`` (after
        it) when its documents differ; the lab's documents found per corpus are looked up again then."""
        if folder == self._folder:
            return
        documents_moved = folder.documents != self._folder.documents and self._folder.version >= 0
        self._folder = folder
        if documents_moved:
            self._documents = {}
        self.folderChanged.emit(folder.version)
        if documents_moved:
            self.documentsChanged.emit()

    # ----- what the window shows --------------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        """``"explore"`` (question, strategies and passages) or ``"evaluate"`` (the lab)."""
        return self._mode

    def set_mode(self, mode: str) -> None:
        """Show Explore or the lab."""
        checked = as_mode(mode)
        if checked != self._mode:
            self._mode = checked
            self.modeChanged.emit(checked)

    @property
    def side_by_side(self) -> bool:
        """True while side B is shown next to A."""
        return self._side_by_side

    def set_side_by_side(self, on: bool) -> None:
        """Show or hide side B."""
        if bool(on) != self._side_by_side:
            self._side_by_side = bool(on)
            self.sideBySideChanged.emit(self._side_by_side)

    def sides_shown(self) -> tuple[Side, ...]:
        """The sides shown: A, and B side by side."""
        return SIDES if self._side_by_side else ("A",)

    # ----- the question and its reference spans ---------------------------------------------------
    @property
    def question(self) -> str:
        """The question being explored ("" before the first)."""
        return self._question

    def set_question(self, question: str) -> None:
        """Explore ``question`` (stripped), as typed: another question than the current one is not from a
        question set, so the reference spans go."""
        question = question.strip()
        if question == self._question:
            return
        self._question = question
        had = bool(self._reference)
        self._reference = None
        self.questionChanged.emit(question)
        if had:
            self.referenceChanged.emit([])

    def open_question(self, question: str, reference: Iterable[Span]) -> None:
        """Explore ``question`` of a question set with its ``reference`` spans (empty: the corpus does not
        cover it); the question and its spans change together."""
        question, spans = question.strip(), tuple(reference)
        changed_question = question != self._question
        changed_reference = spans != (self._reference or ())
        self._question, self._reference = question, spans
        if changed_question:
            self.questionChanged.emit(question)
        if changed_reference:
            self.referenceChanged.emit(list(spans))

    @property
    def reference(self) -> list[Span]:
        """Reference spans of the question ([] when it is not from a question set); a copy."""
        return list(self._reference or ())

    @property
    def from_question_set(self) -> bool:
        """True while the question is one opened from a question set (its answers get judged)."""
        return bool(self._question) and self._reference is not None

    def searched(self, side: str) -> str:
        """The question side ``side`` last searched for ("" before its first search)."""
        return self._searched[as_side(side)]

    def set_searched(self, side: str, question: str) -> None:
        """Side ``side`` searches ``question`` (stripped) from now on."""
        key, question = as_side(side), question.strip()
        if question != self._searched[key]:
            self._searched[key] = question
            self.searchedChanged.emit(key)

    # ----- strategies -------------------------------------------------------------------------------
    def strategy(self, side: str) -> Strategy:
        """The strategy of side ``"A"`` or ``"B"``."""
        return self._strategies[as_side(side)]

    def set_strategy(self, side: str, strategy: Strategy) -> None:
        """Give side ``"A"`` or ``"B"`` a strategy."""
        key = as_side(side)
        if strategy != self._strategies[key]:
            self._strategies[key] = strategy
            self.strategyChanged.emit(key, strategy)

    def swap_strategies(self) -> None:
        """Exchange the strategies of A and B."""
        a, b = self._strategies["A"], self._strategies["B"]
        self.set_strategy("A", b)
        self.set_strategy("B", a)

    @property
    def saved(self) -> dict[str, Strategy]:
        """The strategies saved in the data folder, by name; a copy."""
        return dict(self._saved)

    def set_saved(self, saved: dict[str, Strategy]) -> None:
        """The strategies saved in the data folder (read again after one was saved)."""
        if saved != self._saved:
            self._saved = dict(saved)
            self.savedChanged.emit()

    def chunk_configs(self) -> list[ChunkConfig]:
        """Chunk configurations to keep built: A's first, then B's when different."""
        return list(dict.fromkeys([self._strategies["A"].chunk, self._strategies["B"].chunk]))

    # ----- results and answers ----------------------------------------------------------------------
    def result(self, side: str) -> SearchResult | None:
        """Side ``side``'s latest result, whatever it was made for (None before its first search)."""
        return self._results[as_side(side)]

    def set_result(self, side: str, result: SearchResult | None) -> None:
        """Side ``side``'s latest result (None to clear)."""
        key = as_side(side)
        if result is not self._results[key]:
            self._results[key] = result
            self.resultChanged.emit(key)

    def matches(self, side: str, made: Produced | None) -> bool:
        """True when ``made`` (a result or an answer) belongs to the current question and ``side``'s strategy."""
        return (made is not None and made.question == self._question
                and made.strategy == self._strategies[as_side(side)])

    def current_result(self, side: str) -> SearchResult | None:
        """Side ``side``'s latest result when it belongs to the current question and strategy, else None."""
        result = self._results[as_side(side)]
        return result if self.matches(side, result) else None

    def answer(self, side: str) -> Answer | None:
        """Side ``side``'s latest answer, whatever it was made for (None when there is none)."""
        return self._answers[as_side(side)]

    def set_answer(self, side: str, answer: Answer | None) -> None:
        """Side ``side``'s latest answer (None to clear)."""
        key = as_side(side)
        if answer is not self._answers[key]:
            self._answers[key] = answer
            self.answerChanged.emit(key)

    def current_answer(self, side: str) -> Answer | None:
        """Side ``side``'s answer when it belongs to the current question and strategy, else None."""
        answer = self._answers[as_side(side)]
        return answer if self.matches(side, answer) else None

    def stale_words(self, side: str, made: Produced | None, what: str) -> str:
        """"" when ``made`` belongs to the current question and ``side``'s strategy, else one line saying
        what it belongs to, e.g. ``Passages for the earlier question “…”``; ``what`` names the thing."""
        if made is None or self.matches(side, made):
            return ""
        if made.question != self._question:
            return f"{what} for the earlier question {quoted(made.question)}"
        return f"{what} for {side}'s previous strategy"

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

    # ----- the evaluation lab -------------------------------------------------------------------------
    @property
    def question_set(self) -> QuestionSet | None:
        """The lab's question set (None before one is loaded)."""
        return self._question_set

    def set_question_set(self, question_set: QuestionSet | None) -> None:
        """Evaluate on ``question_set`` (None: no set, e.g. the stored one was deleted); the documents found for the
        previous set go."""
        self._question_set, self._documents = question_set, {}
        self.questionSetChanged.emit()

    @property
    def documents(self) -> dict[str, int]:
        """Corpus id → stored document of the question set's corpora found so far (looked up per corpus as
        questions ask); a copy."""
        return dict(self._documents)

    def add_documents(self, found: dict[str, int]) -> None:
        """Remember the stored documents of more of the question set's corpora (a lookup's cache: no signal)."""
        self._documents |= found

    @property
    def run(self) -> LabRun | None:
        """The lab's current run (None before the first)."""
        return self._run

    def set_run(self, run_id: str, results: Sequence[ConfigResult]) -> None:
        """Show run ``run_id`` in the lab: its results and one colour per configuration; the selection goes
        to its first configuration."""
        self._run = LabRun(run_id, tuple(results))
        self._colours = configuration_colours([r.config for r in results])
        self._selected = ""
        self.runChanged.emit()
        self.select_configuration(results[0].config.key if results else "")

    @property
    def colours(self) -> dict[str, str]:
        """Configuration key → its colour (swatch, plot lines and points, flips); a copy."""
        return dict(self._colours)

    def colour(self, key: str) -> str:
        """The colour of configuration ``key`` ("" when it is not in the current run)."""
        return self._colours.get(key, "")

    @property
    def selected(self) -> str:
        """The key of the configuration selected in the lab ("" when none)."""
        return self._selected

    def select_configuration(self, key: str) -> None:
        """Select configuration ``key`` of the current run ("" for none)."""
        if key != self._selected:
            self._selected = key
            self.selectionChanged.emit(key)

    def selected_result(self) -> ConfigResult | None:
        """The selected configuration's results (None when none is selected)."""
        if self._run is None:
            return None
        return next((r for r in self._run.results if r.config.key == self._selected), None)
