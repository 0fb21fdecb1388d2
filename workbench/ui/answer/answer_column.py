"""One answer of the answer panel: its side's title, the streamed text, the stats line (tokens in and out,
time), the judge's label and reason (a question-set question only) and the cited passages of that side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPlainTextEdit, QVBoxLayout, QWidget

from workbench.core.spans import Span
from workbench.ui.answer.answer_judging import verdict_line

SPAN_ROLE = Qt.ItemDataRole.UserRole


if TYPE_CHECKING:
    from workbench.ui.answer.answer_backend import AnswerJob


class AnswerColumn(QWidget):
    """The answer from one side's passages; double-clicking a citation emits ``sourceActivated(Span)``."""

    sourceActivated = Signal(object)  # noqa: N815 - Qt naming; Span of a cited passage

    def __init__(self, side: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.title = QLabel(f"Answer from {side}'s passages")
        self.title.setObjectName("muted")
        self.answer = QPlainTextEdit()
        self.answer.setReadOnly(True)
        self.answer.setPlaceholderText(placeholder)
        self.stats = QLabel("")
        self.stats.setObjectName("stats")
        self.stats.setWordWrap(True)
        self.verdict = QLabel("")
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.hide()
        self.sources = QListWidget()
        self.sources.setMaximumHeight(90)
        self.sources.setToolTip(f"Passages of {side} the answer cites; double-click to open one in the document view")
        self.sources.itemActivated.connect(self._source_activated)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.answer, 2)
        lay.addWidget(self.stats)
        lay.addWidget(self.verdict)
        lay.addWidget(self.sources)

    def set_title_shown(self, shown: bool) -> None:
        """Show which side answers (when more than one does)."""
        self.title.setVisible(shown)

    def clear(self) -> None:
        """Empty the column for a new answer."""
        self.answer.clear()
        self.sources.clear()
        self.stats.setText("")
        self.verdict.setText("")
        self.verdict.hide()

    def append(self, piece: str) -> None:
        """Append a streamed piece of the answer."""
        cursor = self.answer.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)

    def show_job(self, job: AnswerJob) -> None:
        """Stats, cited passages and (when judged or refused) the judge's line of a finished answer."""
        self.stats.setText(job.stats_line)
        for label, span in job.sources:
            item = QListWidgetItem(label)
            item.setData(SPAN_ROLE, span)
            self.sources.addItem(item)
        line = verdict_line(job)
        self.verdict.setText(line)
        self.verdict.setVisible(bool(line))

    def _source_activated(self, item: QListWidgetItem) -> None:
        span = item.data(SPAN_ROLE)
        if span:
            self.sourceActivated.emit(Span(*span))
