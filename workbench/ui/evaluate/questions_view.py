"""The lab's *Questions* tab: the question sets stored in the data folder, the questions of the chosen set with
their references and provenance, what the set can tell, and the review queue of drafts (accept / edit / reject,
one key each). A question selected shows its references in the document view (``questionActivated``);
*Evaluate this set* runs the lab on it (``evaluateSet``). Everything is read from and written to
``ws.questions``: the tab keeps no copy of a set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.spans import Span
from workbench.ui.basics.wording import for_the_window

if TYPE_CHECKING:
    from workbench.core.store.question_sets import StoredQuestion
    from workbench.core.workspace import Workspace

COLUMNS = ["#", "question", "references", "provenance", "state"]


class QuestionsView(QWidget):
    """Stored question sets, their questions, and the review queue."""

    questionActivated = Signal(str, list)  # question text, its reference spans: drawn in the document view
    evaluateSet = Signal(str)  # run the lab on this stored set

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.sets = QListWidget()
        self.new_button = QPushButton("New set…")
        self.delete_set_button = QPushButton("Delete set")
        self.summary = QLabel("no question set chosen")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(2, 300)
        self.table.setColumnWidth(3, 260)
        self.table.setWordWrap(False)
        self.question_box = QLineEdit(placeholderText="a new question: select its reference in the document view, "
                                                      "then Add as reference…")
        self.remove_button = QPushButton("Remove question")
        self.undo_button = QPushButton("Undo")
        self.undo_button.setEnabled(False)
        self.evaluate_button = QPushButton("Evaluate this set")
        self.review_button = QPushButton("Review drafts")
        self.review_label = QLabel("")
        self.accept_button, self.edit_button, self.reject_button = (QPushButton("Accept (A)"), QPushButton("Edit (E)"),
                                                                    QPushButton("Reject (R)"))
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self._removed: list[tuple[str, StoredQuestion]] = []  # undo stack: (set, question removed)
        self._reviewing = False
        self._layout()
        self._wire()
        self.refresh()

    def _layout(self) -> None:
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(QLabel("Question sets in this data folder"))
        left_layout.addWidget(self.sets, 1)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        row.addWidget(self.delete_set_button)
        left_layout.addLayout(row)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.summary)
        right_layout.addWidget(self.table, 1)
        right_layout.addWidget(self.question_box)
        buttons = QHBoxLayout()
        for w in (self.remove_button, self.undo_button, self.review_button, self.evaluate_button):
            buttons.addWidget(w)
        buttons.addStretch(1)
        right_layout.addLayout(buttons)
        review = QHBoxLayout()
        review.addWidget(self.review_label, 1)
        for w in (self.accept_button, self.edit_button, self.reject_button):
            review.addWidget(w)
            w.setVisible(False)
        right_layout.addLayout(review)
        right_layout.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def _wire(self) -> None:
        self.sets.currentItemChanged.connect(lambda _a, _b: self.show_set())
        self.table.itemSelectionChanged.connect(self._question_selected)
        self.new_button.clicked.connect(self._ask_new_set)
        self.delete_set_button.clicked.connect(self.delete_set)
        self.remove_button.clicked.connect(self.remove_selected)
        self.undo_button.clicked.connect(self.undo)
        self.evaluate_button.clicked.connect(self._evaluate)
        self.review_button.clicked.connect(self.start_review)
        self.accept_button.clicked.connect(lambda: self.review_key("a"))
        self.edit_button.clicked.connect(lambda: self.review_key("e"))
        self.reject_button.clicked.connect(lambda: self.review_key("r"))
        for key in ("a", "e", "r"):
            shortcut = QShortcut(QKeySequence(key.upper()), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda k=key: self._shortcut(k))

    def _shortcut(self, key: str) -> None:
        if self._reviewing:
            self.review_key(key)

    def _evaluate(self) -> None:
        if self.current_set:
            self.evaluateSet.emit(self.current_set)

    # ----- sets -------------------------------------------------------------------------------------
    @property
    def current_set(self) -> str:
        """The chosen set's name ('' when none)."""
        item = self.sets.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def refresh(self, choose: str | None = None) -> None:
        """List the stored sets again (keeping the chosen one, or choosing ``choose``)."""
        keep = choose or self.current_set
        self.sets.blockSignals(True)
        self.sets.clear()
        for info in self.ws.questions.sets():
            item = QListWidgetItem(f"{info.name}  ({info.questions})")
            item.setData(Qt.ItemDataRole.UserRole, info.name)
            self.sets.addItem(item)
            if info.name == keep:
                self.sets.setCurrentItem(item)
        if self.sets.currentItem() is None and self.sets.count():
            self.sets.setCurrentRow(0)
        self.sets.blockSignals(False)
        self.show_set()

    def new_set(self, name: str) -> bool:
        """Create an empty set and choose it; False (reason in the status line) when the name is refused."""
        try:
            self.ws.questions.create(name)
        except ValueError as exc:
            self.status.setText(for_the_window(str(exc)))
            return False
        self.refresh(choose=name)
        return True

    def _ask_new_set(self) -> None:
        name, ok = QInputDialog.getText(self, "New question set", "Name")
        if ok and name.strip():
            self.new_set(name.strip())

    def delete_set(self) -> None:
        """Delete the chosen set."""
        if self.current_set:
            self.ws.questions.delete(self.current_set)
            self.refresh()

    def show_set(self) -> None:
        """The chosen set's questions and what it can tell."""
        name = self.current_set
        self.table.setRowCount(0)
        if not name:
            self.summary.setText("no question set yet: New set…, or workbench questions / import-questions")
            return
        read = self.ws.questions.read(name)
        self.summary.setText(for_the_window("\n".join(self.ws.questions.summary(name).lines())))
        for n, q in enumerate(read.questions, start=1):
            refs = "; ".join(f"{r.doc_id}:{r.start}-{r.end} {' '.join(r.content.split())[:40]!r}"
                             for r in q.references)
            state = "needs review" if q.needs_review else (
                "unreviewed" if q.provenance.origin == "drafted" and not q.provenance.reviewed else "ok")
            row = self.table.rowCount()
            self.table.insertRow(row)
            for col, text in enumerate((str(n), q.text, refs, q.provenance.describe(), state)):
                item = QTableWidgetItem(for_the_window(text))
                item.setToolTip(for_the_window(text))
                self.table.setItem(row, col, item)
        if read.skipped:
            self.status.setText(for_the_window("; ".join(read.skipped)))

    # ----- questions ----------------------------------------------------------------------------------
    def selected_number(self) -> int:
        """The selected question's number (1-based; 0 when none)."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() + 1 if rows else 0

    def _question_selected(self) -> None:
        number = self.selected_number()
        if number and self.current_set and not self._reviewing:
            q = self.ws.questions.question(self.current_set, number)
            self.questionActivated.emit(q.text, [Span(r.doc_id, r.start, r.end) for r in q.references])

    def add_reference(self, span: Span) -> bool:
        """*Add as reference…*: the span (selected in the document view or a passage) becomes a reference of the
        question typed in the question box (a new question), else of the selected question. False (reason in
        the status line) when there is no set, no question, or the span is refused."""
        name = self.current_set
        if not name:
            self.status.setText("choose or create a question set first")
            return False
        text = self.question_box.text().strip()
        try:
            if text:
                number = self.ws.questions.add(name, text, [span])
                self.question_box.clear()
            elif self.selected_number():
                number = self.selected_number()
                q = self.ws.questions.question(name, number)
                spans = [Span(r.doc_id, r.start, r.end) for r in q.references]
                self.ws.questions.edit(name, number, spans=[*spans, span])
            else:
                self.status.setText("type the question in the box, or select a question, then add the reference")
                return False
        except (KeyError, ValueError) as exc:
            self.status.setText(for_the_window(str(exc.args[0] if exc.args else exc)))
            return False
        self.status.setText(f"reference {span.doc_id}:{span.start}-{span.end} added to question {number}")
        self.refresh()
        self.table.selectRow(number - 1)
        return True

    def remove_selected(self) -> None:
        """Remove the selected question (Undo puts it back)."""
        number = self.selected_number()
        if number and self.current_set:
            self._removed.append((self.current_set, self.ws.questions.remove(self.current_set, number)))
            self.undo_button.setEnabled(True)
            self.status.setText(f"question {number} removed (Undo puts it back at the end)")
            self.refresh()

    def undo(self) -> None:
        """Put the last removed question back (at the end of its set)."""
        if not self._removed:
            return
        name, q = self._removed.pop()
        self.ws.questions.add(name, q.text, [Span(r.doc_id, r.start, r.end) for r in q.references], q.notes,
                              q.tags, q.provenance, q.reference_answer)
        self.undo_button.setEnabled(bool(self._removed))
        self.refresh(choose=name)

    # ----- review queue ---------------------------------------------------------------------------------
    def _queue(self) -> tuple[list[int], int]:
        """Numbers of the unreviewed drafts and the count of drafts of the chosen set."""
        qs = self.ws.questions.read(self.current_set).questions
        drafts = [n for n, q in enumerate(qs, start=1) if q.provenance.origin == "drafted"]
        return [n for n in drafts if not qs[n - 1].provenance.reviewed], len(drafts)

    def start_review(self) -> None:
        """Show the first unreviewed draft with its span in the document view; A / E / R act on it."""
        if not self.current_set:
            return
        self._reviewing = True
        for w in (self.accept_button, self.edit_button, self.reject_button):
            w.setVisible(True)
        self._next_draft()

    def _next_draft(self) -> None:
        queue, total = self._queue()
        done = total - len(queue)
        if not queue:
            self._reviewing = False
            for w in (self.accept_button, self.edit_button, self.reject_button):
                w.setVisible(False)
            self.review_label.setText(f"{done} of {total} reviewed: no draft left")
            return
        number = queue[0]
        q = self.ws.questions.question(self.current_set, number)
        self.review_label.setText(for_the_window(f"{done} of {total} reviewed — {number}. {q.text}"))
        self.table.selectRow(number - 1)
        self.questionActivated.emit(q.text, [Span(r.doc_id, r.start, r.end) for r in q.references])

    def review_key(self, key: str, new_text: str | None = None) -> None:
        """Accept (``a``), edit (``e``: ``new_text`` or asked) or reject (``r``) the draft shown."""
        queue, _ = self._queue()
        if not queue:
            return
        number = queue[0]
        if key == "a":
            self.ws.questions.edit(self.current_set, number, reviewed=True)
        elif key == "r":
            self.ws.questions.remove(self.current_set, number)
        elif key == "e":
            if new_text is None:
                current = self.ws.questions.question(self.current_set, number).text
                new_text, ok = QInputDialog.getText(self, "Edit the draft", "Question", text=current)
                if not ok:
                    return
            if new_text.strip():
                self.ws.questions.edit(self.current_set, number, text=new_text, reviewed=True)
        self.show_set()
        self._next_draft()
