"""One answer of the answer panel: its side's title, the streamed text (its citations ``[n]`` become links
once it is done), the stats line (tokens in and out, time), the judge's label and reason (a question-set
question only), the cited passages of that side, and a note in words when the answer belongs to an earlier
question or to the side's previous strategy (the text is greyed then)."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QGraphicsOpacityEffect,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench.core.spans import Span
from workbench.ui.answer.answer_judging import verdict_line
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.ui.answer.answer_backend import AnswerJob

SPAN_ROLE = Qt.ItemDataRole.UserRole
CITATION = re.compile(r"\[(\d+)\]")
CITE_SCHEME = "cite"


def linked_citations(text: str) -> str:
    """``text`` as HTML with every ``[n]`` a link ``cite:n`` (everything else escaped; spaces and line breaks
    kept as they are)."""
    escaped = html.escape(text, quote=False)
    linked = CITATION.sub(lambda m: f"<a href='{CITE_SCHEME}:{m.group(1)}'>[{m.group(1)}]</a>", escaped)
    return f"<div style='white-space: pre-wrap'>{linked}</div>"


ANSWER_LINES = 6  # an answer's least useful height, in lines of its text


class AnswerColumn(QWidget):
    """The answer from one side's passages. Double-clicking a cited passage emits ``sourceActivated(Span)``;
    clicking a citation ``[n]`` in the text emits ``citationActivated(n)``."""

    sourceActivated = Signal(object)
    citationActivated = Signal(int)  # the number n of a citation [n] clicked in the text

    def __init__(self, side: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.title = QLabel(f"Answer from {side}'s passages")
        self.title.setObjectName("muted")
        self.stale_note = WrappedLabel("")
        self.stale_note.setObjectName("staleNote")
        self.stale_note.setWordWrap(True)
        self.stale_note.hide()
        self.answer = QTextBrowser()
        self.answer.setOpenLinks(False)
        self.answer.setPlaceholderText(placeholder)
        # an answer is read in its box: ANSWER_LINES lines at least (the window makes room for them)
        self.answer.setMinimumHeight(ANSWER_LINES * self.answer.fontMetrics().lineSpacing()
                                     + 2 * self.answer.frameWidth() + 8)
        self.answer.anchorClicked.connect(self._anchor)
        self.stats = WrappedLabel("")  # its lines are its least height: a short pane shrinks the text instead
        self.stats.setObjectName("stats")
        self.verdict = WrappedLabel("")
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.hide()
        self.sources = QListWidget()
        self.sources.setMaximumHeight(90)
        self.sources.setMinimumHeight(28)
        self.sources.setToolTip(f"Passages of {side} the answer cites; double-click to open one in the document view")
        self.sources.itemActivated.connect(self._source_activated)
        self._grey: QGraphicsOpacityEffect | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.title)
        lay.addWidget(self.stale_note)
        lay.addWidget(self.answer, 2)
        lay.addWidget(self.stats)
        lay.addWidget(self.verdict)
        lay.addWidget(self.sources)

    def content_height(self) -> int:
        """The height the column needs to show its whole answer, stats, judge's line and cited passages."""
        lay = self.layout()
        parts = [w for w in (self.title, self.stale_note, self.stats, self.verdict) if not w.isHidden()]
        height = sum(w.heightForWidth(self.width()) if w.hasHeightForWidth() else w.sizeHint().height()
                     for w in parts)
        text = self.answer.document().size().height() + 2 * self.answer.frameWidth() + 4
        height += max(self.answer.minimumHeight(), int(text))
        rows = self.sources.count()
        listed = rows * max(1, self.sources.sizeHintForRow(0)) + 2 * self.sources.frameWidth() + 2 if rows else 0
        height += min(self.sources.maximumHeight(), max(self.sources.minimumHeight(), listed))
        spacing = max(0, lay.spacing()) if lay is not None else 0
        return height + spacing * (len(parts) + 1)

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
        self.set_stale("")

    def append(self, piece: str) -> None:
        """Append a streamed piece of the answer."""
        cursor = self.answer.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)

    def show_job(self, job: AnswerJob) -> None:
        """The finished answer (its citations as links), stats, cited passages and (when judged or refused)
        the judge's line."""
        self.answer.setHtml(linked_citations(job.text))
        self.stats.setText(job.stats_line)
        self.sources.clear()
        for label, span in job.sources:
            item = QListWidgetItem(label)
            item.setData(SPAN_ROLE, span)
            self.sources.addItem(item)
        line = verdict_line(job)
        self.verdict.setText(line)
        self.verdict.setVisible(bool(line))

    def set_stale(self, words: str) -> None:
        """Say why the answer shown is not the current question's or strategy's (greyed); "" when it is."""
        self.stale_note.setText(words)
        self.stale_note.setVisible(bool(words))
        if words and self._grey is None:
            self._grey = QGraphicsOpacityEffect(self.answer)
            self._grey.setOpacity(0.45)
            self.answer.setGraphicsEffect(self._grey)
        if self._grey is not None:
            self._grey.setEnabled(bool(words))

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == CITE_SCHEME and url.path().isascii() and url.path().isdigit():
            self.citationActivated.emit(int(url.path()))

    def _source_activated(self, item: QListWidgetItem) -> None:
        span = item.data(SPAN_ROLE)
        if span:
            self.sourceActivated.emit(Span(*span))
