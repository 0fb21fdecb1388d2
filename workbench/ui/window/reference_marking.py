"""Marking references from the window: text selected in the document view or in a passage of either side becomes a
reference of a question in the lab's Questions tab (*Add as reference* in the view's menu, or Ctrl+R), a
reference's ends dragged in the document view move it (``span_handles``), Ctrl+Z there undoes the last edit, and
*Import questions…* (File menu and the Questions tab) imports a benchmark into a new set.

The question a new reference goes to: the one typed in the Questions tab's box, else the question being explored
when it is not the selected question's (type a question, press Enter, select its passage, Ctrl+R), else the
selected question. After a new question is made the focus goes back to the question bar, its text selected, so
the next question is typed at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from workbench.core.spans import Span
from workbench.ui.evaluate.import_dialog import ImportQuestionsDialog
from workbench.ui.explore.span_handles import SpanHandles

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLineEdit, QWidget

    from workbench.core.workspace import Workspace
    from workbench.ui.evaluate.eval_view import EvalView
    from workbench.ui.explore.compare_view import CompareView
    from workbench.ui.explore.text_view import LayeredTextView
    from workbench.ui.jobs.workers import JobRunner
    from workbench.ui.model import WorkbenchModel


class MarkingHost(Protocol):
    """What the marking needs of the window."""

    ws: Workspace
    model: WorkbenchModel
    compare: CompareView
    question: QLineEdit
    eval_view: EvalView | None
    store_jobs: JobRunner

    def show_message(self, text: str) -> None: ...


class ReferenceMarking(QObject):
    """The window's reference marking (see the module docstring); ``parent`` owns the import dialog."""

    def __init__(self, host: MarkingHost, parent: QWidget) -> None:
        super().__init__(parent)
        self.host = host
        self.parent_widget = parent
        self.import_dialog: ImportQuestionsDialog | None = None
        view = host.compare.doc_pane.view
        self.handles = SpanHandles(view)
        for text_view in self.views():
            text_view.referenceRequested.connect(self.add)
        host.model.referenceChanged.connect(self.handles.set_spans)
        self.handles.spanMoved.connect(self.move)
        self.handles.undoRequested.connect(self.undo)
        if host.eval_view is not None:
            host.eval_view.questions_tab.importRequested.connect(self.open_import)

    def views(self) -> list[LayeredTextView]:
        """The views whose selected text can become a reference: the document view, then side A's and side B's
        passages."""
        compare = self.host.compare
        return [compare.doc_pane.view, compare.a.results, compare.b.results]

    def add_selection(self) -> bool:
        """Ctrl+R: the selected text becomes a reference (see ``add``): the selection of the view with the keyboard
        focus, else the first view (``views``) that has one."""
        views = self.views()
        focused = [v for v in views if v.hasFocus()]
        spans = next((found for v in focused + views if (found := v.selected_spans())), [])
        if not spans:
            self.host.show_message("Select the reference passage in the document view or in a passage first.")
            return False
        return self.add(spans)

    def add(self, spans: Sequence[Span]) -> bool:
        """Each span becomes a reference in the lab's Questions tab (to the question typed there, else the question
        explored when it is not the selected one, else the selected question); the tab's status line says what
        happened. A new question sends the focus back to the question bar, its text selected."""
        host = self.host
        if host.eval_view is None:
            host.show_message("The evaluation lab is unavailable, so there is no question set to add to.")
            return False
        tab = host.eval_view.questions_tab
        explored = host.model.question
        number = tab.selected_number()
        selected = host.ws.questions.question(tab.current_set, number).text if number and tab.current_set else ""
        typed = tab.question_box.text().strip()
        question = explored if explored and explored != selected else ""
        new = bool(typed or question)
        added = 0
        for span in spans:
            added += tab.add_reference(span, question if not added else "")
            question = ""  # the further spans of one selection go to the question just made
        host.show_message(tab.status.text() if added else f"Not added: {tab.status.text()}")
        if added:  # a second Ctrl+R does not add the same text again
            for _ in range(added):
                self.handles.touched()  # Ctrl+Z in the document view may take each back
            for view in self.views():
                cursor = view.textCursor()
                cursor.clearSelection()
                view.setTextCursor(cursor)
        if added and new:
            n = tab.selected_number()
            q = host.ws.questions.question(tab.current_set, n)
            host.model.open_question(q.text, [Span(r.doc_id, r.start, r.end) for r in q.references])
            host.question.setFocus()
            host.question.selectAll()
        return bool(added)

    def move(self, old: Span, new: Span) -> None:
        """A reference's end dragged: the Questions tab keeps the move (or says why not); the view redraws."""
        host = self.host
        if host.eval_view is None:
            return
        tab = host.eval_view.questions_tab
        spans = tab.move_reference(host.model.question, old, new)
        host.show_message(tab.status.text())
        if spans is not None:
            host.model.open_question(host.model.question, spans)

    def undo(self) -> None:
        """Ctrl+Z in the document view: the Questions tab's last edit is undone and the references redrawn."""
        host = self.host
        if host.eval_view is None:
            return
        tab = host.eval_view.questions_tab
        what = tab.undo()
        host.show_message(f"Undone: {what}." if what else "Nothing to undo in the Questions tab.")
        if what and tab.current_set:
            found = [q for q in host.ws.questions.read(tab.current_set).questions if q.text == host.model.question]
            spans = [Span(r.doc_id, r.start, r.end) for r in found[0].references] if found else []
            host.model.open_question(host.model.question, spans)

    def open_import(self) -> ImportQuestionsDialog:
        """File → Import questions… (and the Questions tab's button): the new set is shown selected in the tab."""
        host = self.host
        dialog = self.import_dialog = ImportQuestionsDialog(host.ws, host.store_jobs, self.parent_widget)
        if host.eval_view is not None:
            tab = host.eval_view.questions_tab
            dialog.imported.connect(tab.show_imported)
        dialog.open()
        return dialog
