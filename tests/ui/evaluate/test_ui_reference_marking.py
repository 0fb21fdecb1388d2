"""Marking references in the window: a reference's ends dragged in the document view (and nudged with Alt+arrows)
move it in the stored set, Ctrl+Z puts it back; Ctrl+R adds the selected passage as a reference of the question
explored (a new question) and gives the focus back to the question bar; *Import questions…* runs an importer as a
job and shows the new set selected."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from workbench.core.spans import Span
from workbench.ui.explore.span_handles import moved

pytest_plugins = ["ui_support"]
FIXTURES = Path(__file__).parents[2] / "fixtures" / "benchmarks"
QUOTE = "The database schema must be migrated"


def test_moved_keeps_a_span_at_least_one_character():
    s = Span(3, 10, 20)
    assert moved(s, "start", 4) == Span(3, 4, 20) and moved(s, "end", 31) == Span(3, 10, 31)
    assert moved(s, "start", 25) == Span(3, 19, 20) and moved(s, "end", 2) == Span(3, 10, 11)


def _marked(qtbot, make_window, hash_sample_ws):
    """A window whose Questions tab holds set 'mine' with one question on the deploy guide, opened in Explore."""
    ws = hash_sample_ws
    doc = next(int(r["id"]) for r in ws.records.documents() if r["path"].endswith("deploy-guide.md"))
    ws.questions.create("mine")
    start = ws.corpus.doc_text(doc).index(QUOTE)
    ws.questions.add("mine", "What must happen before the deploy?", [Span(doc, start, start + len(QUOTE))])
    window = make_window(ws)
    tab = window.eval_view.questions_tab
    tab.refresh(choose="mine")
    tab.table.selectRow(0)  # drills down: Explore, the reference drawn in the document view
    view = window.compare.doc_pane.view
    qtbot.waitUntil(lambda: bool(view.rendered("reference")) and bool(window.marking.handles.spans)
                    and all(window.model.current_result(side) is not None for side in "AB"), timeout=20000)
    return window, tab, view, doc, start


def _point(view, doc: int, offset: int) -> QPoint:
    """The viewport point of the cursor place before character ``offset``."""
    return view.place_rect(doc, offset).center()


def test_dragging_a_references_end_moves_it_and_ctrl_z_puts_it_back(qtbot, make_window, hash_sample_ws):
    window, tab, view, doc, start = _marked(qtbot, make_window, hash_sample_ws)
    ws = window.ws
    end = start + len(QUOTE)
    view.scroll_to(doc, start)
    grab = _point(view, doc, end)
    assert window.marking.handles.handle_at(grab) is not None  # the pointer is on the end's handle
    assert window.marking.handles.handle_at(_point(view, doc, start + 10)) is None  # the middle is no handle
    vp = view.viewport()
    grab = _point(view, doc, end)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grab)
    QTest.mouseMove(vp, _point(view, doc, start + 12))
    assert window.marking.handles.preview == Span(doc, start, start + 12)  # what the drag would make is shown
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point(view, doc, start + 12))
    ref = ws.questions.question("mine", 1).references[0]
    assert (ref.start, ref.end, ref.content) == (start, start + 12, QUOTE[:12])
    assert not view.textCursor().hasSelection()  # the drag moved the end; it selected no text
    assert window.model.reference == [Span(doc, start, start + 12)]  # drawn again where it now is
    window.marking.handles.undoRequested.emit()  # Ctrl+Z in the document view
    ref = ws.questions.question("mine", 1).references[0]
    assert (ref.start, ref.end) == (start, end) and window.model.reference == [Span(doc, start, end)]


def test_ctrl_z_in_the_document_view_undoes(qtbot, make_window, hash_sample_ws):
    window, _, view, doc, start = _marked(qtbot, make_window, hash_sample_ws)
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc, start + 3))
    view.setTextCursor(cursor)
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)  # the end one character later
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.ShiftModifier)
    ref = window.ws.questions.question("mine", 1).references[0]
    assert (ref.start, ref.end) == (start + 1, start + len(QUOTE) + 1)
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    ref = window.ws.questions.question("mine", 1).references[0]
    assert (ref.start, ref.end) == (start, start + len(QUOTE) + 1)


def test_a_move_outside_the_chosen_set_is_refused_and_changes_nothing(qtbot, make_window, hash_sample_ws):
    window, tab, _, doc, start = _marked(qtbot, make_window, hash_sample_ws)
    assert tab.move_reference("another question", Span(doc, start, start + 5), Span(doc, start, start + 9)) is None
    assert "not one of a question in the chosen stored set" in tab.status.text()
    assert window.ws.questions.question("mine", 1).references[0].end == start + len(QUOTE)


def test_ctrl_r_makes_the_explored_question_with_the_selection_and_refocuses(qtbot, make_window, hash_sample_ws):
    window, tab, view, doc, start = _marked(qtbot, make_window, hash_sample_ws)
    window.question.setText("What is migrated?")
    QTest.keyClick(window.question, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.model.question == "What is migrated?")
    window.compare.show_document_at(doc, start)
    qtbot.waitUntil(lambda: view.pmap.position_of(doc, start) is not None, timeout=20000)
    view.scroll_to(doc, start)
    a = _point(view, doc, start + 4)
    b = _point(view, doc, start + 19)
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(view.viewport(), b)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert [window.ws.corpus.doc_text(s.doc_id)[s.start:s.end] for s in view.selected_spans()] == ["database schema"]
    window.menu_actions["add_reference"].trigger()
    q = window.ws.questions.question("mine", 2)
    assert q.text == "What is migrated?" and [r.content for r in q.references] == ["database schema"]
    assert window.question.hasFocus() and window.question.selectedText() == "What is migrated?"
    assert not view.textCursor().hasSelection()
    window.menu_actions["add_reference"].trigger()  # nothing selected now: said, nothing added
    assert len(window.ws.questions.question("mine", 2).references) == 1
    r = q.references[0]
    assert not tab.add_reference(Span(r.doc_id, r.start, r.end)) and "already" in tab.status.text()
    assert tab.undo() == "question 2 added", tab.status.text()
    assert len(window.ws.questions.read("mine").questions) == 1


def test_import_questions_from_the_window_shows_the_new_set(qtbot, make_window, hash_sample_ws):
    window, tab, _, _, _ = _marked(qtbot, make_window, hash_sample_ws)
    dialog = window.marking.open_import()
    dialog.format.setCurrentText("squad")
    dialog.set_name.setText("sq")
    assert not dialog.start() and "choose the squad file" in dialog.report.text()  # refused, nothing written
    dialog.source.setText(str(FIXTURES / "squad" / "train-mini.json"))
    dialog.set_name.setText("mine")
    assert not dialog.start() and "exists already" in dialog.report.text()
    dialog.set_name.setText("sq")
    assert dialog.start()  # the first press previews and writes nothing
    qtbot.waitUntil(lambda: not dialog.running, timeout=60000)
    assert "2 question(s) would be imported" in dialog.report.text() and "sq" not in hash_sample_ws.questions.names()
    with qtbot.waitSignal(dialog.imported, timeout=60000) as done:
        assert dialog.start()
    assert done.args == ["sq"]
    qtbot.waitUntil(lambda: not dialog.running)
    assert "2 question(s) imported into 'sq'" in dialog.report.text()
    assert "skipped 1: impossible (no answer)" in dialog.report.text()
    assert tab.current_set == "sq" and tab.table.rowCount() == 2
    dialog.close()


def test_import_menu_entry_and_questions_tab_button_open_the_dialog(qtbot, make_window, hash_sample_ws):
    window, tab, _, _, _ = _marked(qtbot, make_window, hash_sample_ws)
    window.menu_actions["import_questions"].trigger()
    first = window.marking.import_dialog
    assert first is not None and first.isVisible()
    first.close()
    tab.import_button.click()
    assert window.marking.import_dialog is not first and window.marking.import_dialog.isVisible()
    window.marking.import_dialog.close()


def test_a_selection_across_a_chunk_marker_is_one_span(qtbot, hash_sample_ws):
    from workbench.ui.explore.doc_view import DocumentView

    ws = hash_sample_ws
    doc = next(int(r["id"]) for r in ws.records.documents() if r["path"].endswith("deploy-guide.md"))
    dv = DocumentView(ws)
    qtbot.addWidget(dv)
    dv.show_document(doc, ws.search("Where is the release tag checked out?", None))
    starts = sorted(e.start for e in dv.pmap.entries if e.doc_id == doc)
    cut = next(s for s in starts if s > 200)  # a piece starts here: a chunk marker or a layer edge before it
    a, b = dv.pmap.position_of(doc, cut - 30), dv.pmap.position_of(doc, cut + 20)
    assert len(dv.pmap.to_document(a, b - a)) > 1  # drawn in pieces
    cursor = dv.textCursor()
    cursor.setPosition(a)
    cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
    dv.setTextCursor(cursor)
    assert dv.selected_spans() == [Span(doc, cut - 30, cut + 20)]


def test_a_document_without_passages_is_picked_and_marked_and_a_removed_one_leaves_the_picker(
        qtbot, make_window, hash_sample_ws):
    window, _, view, _, _ = _marked(qtbot, make_window, hash_sample_ws)
    pane = window.compare.doc_pane
    window.question.setText("What must happen before the deploy?")
    QTest.keyClick(window.question, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(pane.picker.itemText(i).endswith("(no passages)") for i in range(pane.picker.count())))
    i = next(i for i in range(pane.picker.count()) if pane.picker.itemText(i).endswith("(no passages)"))
    other = pane.picker.itemData(i)
    pane.picker.setCurrentIndex(i)
    pane.picker.activated.emit(i)
    qtbot.waitUntil(lambda: view.pmap.position_of(other, 0) is not None)
    text = window.ws.corpus.doc_text(other)
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(other, 0))
    cursor.setPosition(view.pmap.position_of(other, 12), QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    window.menu_actions["add_reference"].trigger()
    q = window.ws.questions.question("mine", 1)
    assert [(r.doc_id, r.content) for r in q.references][-1] == (other, text[:12])
    gone = next(pane.picker.itemData(i) for i in range(pane.picker.count())
                if pane.picker.itemText(i).endswith("(no passages)") and pane.picker.itemData(i) != other)
    window.ws.remove_document(gone)
    pane.fill_picker()
    assert pane.picker.findData(gone) < 0 and pane.picker.findData(other) >= 0


def test_text_selected_in_a_passage_becomes_the_reference(qtbot, make_window, hash_sample_ws):
    window, _, _, _, _ = _marked(qtbot, make_window, hash_sample_ws)
    results = window.compare.a.results
    window.question.setText("What is deployed first?")
    QTest.keyClick(window.question, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.model.question == "What is deployed first?"
                    and window.model.current_result("A") is not None and bool(results.pmap.entries))
    entry = next(e for e in results.pmap.entries if e.end - e.start > 30)
    cursor = QTextCursor(results.document())
    cursor.setPosition(results.pmap.position_of(entry.doc_id, entry.start + 5))
    cursor.setPosition(results.pmap.position_of(entry.doc_id, entry.start + 25), QTextCursor.MoveMode.KeepAnchor)
    results.setTextCursor(cursor)
    results.setFocus()
    window.menu_actions["add_reference"].trigger()  # Ctrl+R: the passage's selection, the document view has none
    q = window.ws.questions.question("mine", 2)
    text = window.ws.corpus.doc_text(entry.doc_id)
    assert q.text == "What is deployed first?"
    assert [(r.doc_id, r.start, r.end, r.content) for r in q.references] == [
        (entry.doc_id, entry.start + 5, entry.start + 25, text[entry.start + 5:entry.start + 25])]
    assert not results.textCursor().hasSelection()
    results.referenceRequested.emit([Span(entry.doc_id, entry.start, entry.start + 4)])  # its menu's entry
    assert [r.end - r.start for r in window.ws.questions.question("mine", 2).references] == [20, 4]
