"""The lab's *Questions* tab: the question sets stored in the data folder, the questions of the chosen set with
their references and provenance, what the set can tell, and the review queue of drafts (accept / edit / reject,
one key each). A question selected shows its references in the document view (``questionActivated``);
*Evaluate this set* runs the lab on it (``evaluateSet``). Everything is read from and written to
``ws.questions``: the tab keeps no copy of a set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.question_set_export import export_chroma, export_jsonl
from workbench.core.spans import Span
from workbench.ui.basics.wording import for_the_window

if TYPE_CHECKING:
    from workbench.core.store.question_sets import StoredQuestion
    from workbench.core.workspace import Workspace

COLUMNS = ["#", "question", "references", "provenance", "state"]
EXPORT_FORMATS = {"chroma": export_chroma, "jsonl": export_jsonl}  # as 'workbench questions export --format'


@dataclass(frozen=True)
class UndoStep:
    """One edit of a stored set that Undo (Ctrl+Z) reverses: what it was, and how to put things back."""

    what: str
    set_name: str
    restore: Callable[[], object]


class QuestionsView(QWidget):
    """Stored question sets, their questions, and the review queue."""

    questionActivated = Signal(str, list)  # question text, its reference spans: drawn in the document view
    evaluateSet = Signal(str)  # run the lab on this stored set
    importRequested = Signal()  # *Import questions…*: the window opens the import dialog
    setsShown = Signal()  # the sets were shown again, after any change (the lab's loaded copy checks itself)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.sets = QListWidget()
        self.new_button = QPushButton("New set…")
        self.delete_set_button = QPushButton("Delete set")
        self.import_button = QPushButton("Import questions…")
        self.import_button.setToolTip("Import a benchmark's questions and evidence spans (Chroma, LegalBench-RAG, "
                                      "Qasper, RAGBench, HiCBench, GutenQA, MTCB, SQuAD) into a new set")
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
        self.question_box = QLineEdit(placeholderText="a new question: select its reference in a passage or the "
                                                      "document view, then Add as reference")
        self.remove_button = QPushButton("Remove question")
        self.undo_button = QPushButton("Undo")
        self.undo_button.setEnabled(False)
        self.evaluate_button = QPushButton("Evaluate this set")
        self.export_button = QPushButton("Export set…")
        self.export_button.setToolTip("Write the chosen set as Chroma's questions.csv + corpora/, or JSON Lines with "
                                      "spans, into an empty folder (as 'workbench questions export')")
        self.review_button = QPushButton("Review drafts")
        self.review_label = QLabel("")
        self.accept_button, self.edit_button, self.reject_button = (QPushButton("Accept (A)"), QPushButton("Edit (E)"),
                                                                    QPushButton("Reject (R)"))
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self._undo: list[UndoStep] = []
        self._reviewing = False
        self.confirm: Callable[[str], bool] = self._ask  # a deletion asks first (tests answer for the person)
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
        left_layout.addWidget(self.import_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.summary)
        right_layout.addWidget(self.table, 1)
        right_layout.addWidget(self.question_box)
        self.buttons = QGridLayout()  # one row in the lab; two beside the document view (``set_compact``)
        self._place_buttons(compact=False)
        right_layout.addLayout(self.buttons)
        review = QHBoxLayout()
        review.addWidget(self.review_label, 1)
        for w in (self.accept_button, self.edit_button, self.reject_button):
            review.addWidget(w)
            w.setVisible(False)
        right_layout.addLayout(review)
        right_layout.addWidget(self.status)
        split = self.split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def _place_buttons(self, compact: bool) -> None:
        buttons = (self.remove_button, self.undo_button, self.review_button, self.evaluate_button, self.export_button)
        for w in buttons:
            self.buttons.removeWidget(w)
        per_row = 3 if compact else len(buttons)
        for i, w in enumerate(buttons):
            self.buttons.addWidget(w, i // per_row, i % per_row)
        self.buttons.setColumnStretch(len(buttons), 1)

    def set_compact(self, compact: bool) -> None:
        """Beside the document view (marking): the sets above the questions and the buttons in two rows; in
        the lab: the sets beside the questions, the buttons in one row."""
        self.split.setOrientation(Qt.Orientation.Vertical if compact else Qt.Orientation.Horizontal)
        if compact:
            self.split.setSizes([120, max(1, self.split.height() - 120)])
        self._place_buttons(compact)

    def _wire(self) -> None:
        self.sets.currentItemChanged.connect(lambda _a, _b: self.show_set())
        self.table.itemSelectionChanged.connect(self._question_selected)
        self.new_button.clicked.connect(self._ask_new_set)
        self.delete_set_button.clicked.connect(self.delete_set)
        self.remove_button.clicked.connect(self.remove_selected)
        self.undo_button.clicked.connect(self.undo)
        self.import_button.clicked.connect(self.importRequested)
        self.export_button.clicked.connect(self._ask_export)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self)
        undo.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo.activated.connect(self.undo)
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

    def _ask_export(self) -> None:
        if not self.current_set:
            return
        fmt, ok = QInputDialog.getItem(self, "Export set", "Format", list(EXPORT_FORMATS), 0, False)
        if ok:
            folder = QFileDialog.getExistingDirectory(self, f"Export {self.current_set}: an empty folder")
            if folder:
                self.export_set(Path(folder), fmt)

    def export_set(self, folder: Path, fmt: str) -> list[Path]:
        """Write the chosen set into ``folder`` as ``chroma`` (questions.csv + corpora/) or ``jsonl``; the files
        written ([] with the reason in the status line when refused: no set, or the folder holds a set already)."""
        name = self.current_set
        if not name:
            self.status.setText("choose a question set to export")
            return []
        if (folder / "questions.csv").exists() or (folder / "questions.jsonl").exists():
            self.status.setText(for_the_window(f"{folder} holds a question set already: choose an empty folder"))
            return []
        read = self.ws.questions.read(name)
        docs = self.ws.questions.documents_of(read)
        try:  # the output rules (core/outputs): a new, empty or earlier export folder, never through a link
            files = EXPORT_FORMATS[fmt](folder, read.questions, docs) if fmt in EXPORT_FORMATS else []
        except (ValueError, OSError) as exc:
            self.status.setText(for_the_window(str(exc)))
            return []
        self.status.setText(for_the_window(f"{name}: {len(read.questions)} questions and {len(docs)} documents "
                                           f"written to {folder}"))
        return list(files)

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

    def show_imported(self, name: str) -> None:
        """A set was just imported as ``name``: it is chosen, and the status line says so (not what was done
        before the import)."""
        self.refresh(choose=name)
        count = next((info.questions for info in self.ws.questions.sets() if info.name == name), 0)
        self.status.setText(for_the_window(f"question set {name!r} imported: {count} question(s)"))

    def new_set(self, name: str) -> bool:
        """Create an empty set that searches every document now in the data folder (as 'questions new') and choose
        it; False (reason in the status line) when the name is refused."""
        try:
            searched = len(self.ws.questions.create(name, library=True).doc_ids)
        except ValueError as exc:
            self.status.setText(for_the_window(str(exc)))
            return False
        self.refresh(choose=name)
        self.status.setText(f"question set {name!r} created: it searches the {searched} document(s) of this "
                            "data folder")
        return True

    def _ask_new_set(self) -> None:
        name, ok = QInputDialog.getText(self, "New question set", "Name")
        if ok and name.strip():
            self.new_set(name.strip())

    def delete_set(self) -> bool:
        """Delete the chosen set once the person confirms (``confirm``: what goes and what stays); its documents
        stay in the data folder. False when nothing was deleted."""
        name = self.current_set
        if not name:
            return False
        deletion = self.ws.questions.deletion(name)
        words = deletion.words
        kept = " Remove in the Library tab takes a document out." if deletion.documents else ""
        if not self.confirm(f"Delete the question set {words}? This cannot be undone.{kept}"):
            self.status.setText("nothing deleted")
            return False
        self.ws.questions.delete(name)
        self.refresh()
        self.status.setText(for_the_window(f"question set {words} deleted"))
        return True

    def _ask(self, question: str) -> bool:
        """Ask the person ``question`` (Yes / No)."""
        answer = QMessageBox.question(self.window(), "Delete the question set?", question)
        return answer == QMessageBox.StandardButton.Yes

    def show_set(self) -> None:
        """The chosen set's questions and what it can tell; ``setsShown`` follows (every change ends here)."""
        self._fill_table()
        self.setsShown.emit()

    def _fill_table(self) -> None:
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
            why = next((r.status_note for r in q.references if r.status_note), "")
            state = (f"needs review: {why}" if why else "needs review") if q.needs_review else (
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

    def add_reference(self, span: Span, question: str = "") -> bool:
        """*Add as reference*: the span (selected in the document view or a passage) becomes a reference of a new
        question: the one typed in the question box, else ``question`` (the window passes the question being
        explored, unless it is the selected question's), else of the selected question. False (reason in the
        status line) when there is no set, no question, or the span is refused. Undo removes what it added."""
        name = self.current_set
        if not name:
            self.status.setText("choose or create a question set first")
            return False
        text = self.question_box.text().strip() or question.strip()
        try:
            if text:
                number = self.ws.questions.add(name, text, [span])
                self.question_box.clear()
                qid = self.ws.questions.question(name, number).id
                self._push(f"question {number} added", name,
                           lambda: self.ws.questions.remove(name, self._number(name, qid)))
            elif self.selected_number():
                number = self.selected_number()
                spans = self._spans(name, number)
                if span in spans:
                    self.status.setText(f"{span.doc_id}:{span.start}-{span.end} is a reference of question {number} "
                                        "already")
                    return False
                self.ws.questions.edit(name, number, spans=[*spans, span])
                self._push_spans(f"reference added to question {number}", name, number, spans)
            else:
                self.status.setText("type the question in the box, or select a question, then add the reference")
                return False
        except (KeyError, ValueError) as exc:
            self.status.setText(for_the_window(str(exc.args[0] if exc.args else exc)))
            return False
        self.status.setText(f"reference {span.doc_id}:{span.start}-{span.end} added to question {number}")
        self.refresh()
        self.table.blockSignals(True)  # the new question is selected, not drawn again in the document view
        self.table.selectRow(number - 1)
        self.table.blockSignals(False)
        return True

    def _spans(self, name: str, number: int) -> list[Span]:
        return [Span(r.doc_id, r.start, r.end) for r in self.ws.questions.question(name, number).references]

    def _number(self, name: str, qid: int) -> int:
        """The number of the question with id ``qid`` in set ``name`` now (KeyError when it is gone)."""
        for n, q in enumerate(self.ws.questions.read(name).questions, start=1):
            if q.id == qid:
                return n
        raise KeyError("the question was removed meanwhile")

    def _push_spans(self, what: str, name: str, number: int, spans: list[Span]) -> None:
        """Undo puts ``spans`` back as the references of question ``number`` (found by id when undone)."""
        qid = self.ws.questions.question(name, number).id
        self._push(what, name, lambda: self.ws.questions.edit(name, self._number(name, qid), spans=spans))

    def move_reference(self, question: str, old: Span, new: Span) -> list[Span] | None:
        """A reference's ends dragged in the document view: the question of the chosen set with text ``question``
        and reference ``old`` gets ``new`` instead (Undo puts ``old`` back). Returns its references now, or None
        (reason in the status line) when no question of the chosen set holds that reference or ``new`` is
        refused."""
        name = self.current_set
        found = [n for n, q in enumerate(self.ws.questions.read(name).questions, start=1)
                 if q.text == question and old in self._spans(name, n)] if name else []
        if not found:
            self.status.setText("this reference is not one of a question in the chosen stored set: choose its set "
                                "in the lab's Questions tab to edit it")
            return None
        number = found[0]
        spans = self._spans(name, number)
        changed = [new if s == old else s for s in spans]
        try:
            self.ws.questions.edit(name, number, spans=changed)
        except (KeyError, ValueError) as exc:
            self.status.setText(for_the_window(str(exc.args[0] if exc.args else exc)))
            return None
        self._push_spans(f"reference of question {number} moved", name, number, spans)
        self.status.setText(f"question {number}: reference {old.doc_id}:{old.start}-{old.end} is now "
                            f"{new.start}-{new.end} (Undo, Ctrl+Z, puts it back)")
        self.refresh()
        self.table.blockSignals(True)
        self.table.selectRow(number - 1)
        self.table.blockSignals(False)
        return changed

    def remove_selected(self) -> None:
        """Remove the selected question (Undo puts it back)."""
        number = self.selected_number()
        name = self.current_set
        if number and name:
            q = self.ws.questions.remove(name, number)
            self._push(f"question {number} removed", name, lambda: self._put_back(name, q))
            self.status.setText(f"question {number} removed (Undo puts it back at the end)")
            self.refresh()

    def _put_back(self, name: str, q: StoredQuestion) -> None:
        self.ws.questions.add(name, q.text, [Span(r.doc_id, r.start, r.end) for r in q.references], q.notes,
                              q.tags, q.provenance, q.reference_answer)

    def _push(self, what: str, name: str, restore: Callable[[], object]) -> None:
        self._undo.append(UndoStep(what, name, restore))
        self.undo_button.setEnabled(True)
        self.undo_button.setToolTip(f"Undo: {what} (Ctrl+Z)")

    def undo(self) -> str:
        """Reverse the last edit (a removed question comes back at the end of its set); returns what was undone
        ("" when nothing was left to undo)."""
        if not self._undo:
            return ""
        step = self._undo.pop()
        try:
            step.restore()
        except (KeyError, ValueError) as exc:  # the set or question went meanwhile
            self.status.setText(for_the_window(f"could not undo {step.what}: {exc}"))
            return ""
        self.undo_button.setEnabled(bool(self._undo))
        self.undo_button.setToolTip(f"Undo: {self._undo[-1].what} (Ctrl+Z)" if self._undo else "")
        self.status.setText(f"undone: {step.what}")
        self.refresh(choose=step.set_name)
        return step.what

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
                try:  # the one question rule (core.evaluate.question_rule): a refused text changes nothing
                    self.ws.questions.edit(self.current_set, number, text=new_text, reviewed=True)
                except ValueError as exc:
                    self.status.setText(for_the_window(f"not changed: {exc}"))
                    return
        self.show_set()
        self._next_draft()
