"""The lab's Questions tab: stored sets and their questions, references shown in the document view, a selection
added as a reference, remove and undo, the review queue (accept / edit / reject, one key each), and *Evaluate this
set* running the lab on it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from workbench.core.spans import Span
from workbench.core.store.question_sets import Provenance
from workbench.ui.evaluate.eval_view import EvalView

pytest_plugins = ["ui_support"]

TEXT = "# Rivers 🌊\n\nThe river floods in spring. Farmers plant rice after the flood.\n\nThe dam holds water.\n"


@pytest.fixture
def lab(qtbot, hash_ws, tmp_path):
    path = tmp_path / "rivers.md"
    path.write_text(TEXT, encoding="utf-8")
    hash_ws.add_documents([str(path)])
    doc = int(hash_ws.records.documents()[0]["id"])
    bank = hash_ws.questions
    bank.create("mine")
    bank.add("mine", "When does the river flood?", [bank.locate("The river floods in spring.", [doc])])
    for text, quote in (("What do farmers plant?", "Farmers plant rice"), ("What holds water?", "The dam")):
        bank.add("mine", text, [bank.locate(quote, [doc])],
                 provenance=Provenance("drafted", model="m", passage=(doc, 0, len(TEXT)), reviewed=False))
    view = EvalView(hash_ws)
    qtbot.addWidget(view)
    yield view, view.questions_tab, doc
    view.cancel()
    view.pool.waitForDone(30000)


def test_tab_lists_sets_questions_and_what_the_set_can_tell(lab, qtbot):
    view, tab, doc = lab
    assert view.lab_tabs.tabText(view.lab_tabs.count() - 1) == "Questions"
    assert tab.current_set == "mine" and tab.table.rowCount() == 3
    assert "3 questions over 1 documents (1 by hand, 0 reviewed drafts, 2 unreviewed" in tab.summary.text()
    assert "look like noise" in tab.summary.text()
    with qtbot.waitSignal(view.questionActivated) as shown:
        tab.table.selectRow(0)
    question, spans = shown.args
    assert question == "When does the river flood?"
    assert [view.ws.corpus.doc_text(s.doc_id)[s.start:s.end] for s in spans] == ["The river floods in spring."]


def test_deleting_a_set_asks_first_and_says_its_documents_stay(lab):
    view, tab, doc = lab
    asked: list[str] = []
    tab.confirm = lambda question: asked.append(question) or False  # the person says No
    assert not tab.delete_set() and view.ws.questions.names() == ["mine"] and tab.status.text() == "nothing deleted"
    assert asked == ["Delete the question set 'mine' (3 questions; its document stays in the data folder)? "
                     "This cannot be undone. Remove in the Library tab takes a document out."]
    tab.confirm = lambda _question: True
    assert tab.delete_set() and view.ws.questions.names() == [] and tab.current_set == ""
    assert "deleted" in tab.status.text() and view.ws.records.documents()[0]["id"] == doc  # the document stays


def test_selection_added_as_reference_then_removed_and_undone(lab):
    view, tab, doc = lab
    tab.question_box.setText("What happens after the flood?")
    start = TEXT.index("after the flood")
    assert tab.add_reference(Span(doc, start, start + len("after the flood")))
    assert tab.table.rowCount() == 4 and "added to question 4" in tab.status.text()
    assert not tab.add_reference(Span(doc, 0, 10_000)) and "outside" in tab.status.text()
    tab.table.selectRow(3)
    tab.remove_selected()
    assert tab.table.rowCount() == 3
    tab.undo()
    assert tab.table.rowCount() == 4 and tab.table.item(3, 1).text() == "What happens after the flood?"


def test_document_view_selection_maps_utf16_to_code_points(qtbot, hash_ws, tmp_path):
    from workbench.ui.explore.doc_view import DocumentView

    path = tmp_path / "rivers.md"
    path.write_text(TEXT, encoding="utf-8")
    hash_ws.add_paths([str(path)])  # chunked: the view draws a document with its chunks
    doc = int(hash_ws.records.documents()[0]["id"])
    dv = DocumentView(hash_ws)
    qtbot.addWidget(dv)
    dv.show_document(doc, hash_ws.search("dam", None))
    plain = dv.document().toPlainText()
    before = plain[:plain.index("The dam")]
    at = len(before.encode("utf-16-le")) // 2  # Qt positions: the emoji before it counts two UTF-16 units
    assert at == len(before) + 1
    cursor = dv.textCursor()
    cursor.setPosition(at)
    cursor.setPosition(at + len("The dam"), QTextCursor.MoveMode.KeepAnchor)
    dv.setTextCursor(cursor)
    spans = dv.selected_spans()
    assert [TEXT[s.start:s.end] for s in spans] == ["The dam"]


def test_review_queue_one_key_each_and_evaluate_this_set(lab, qtbot):
    view, tab, _ = lab
    tab.start_review()
    assert tab.review_label.text().startswith("0 of 2 reviewed")
    tab.review_key("e", new_text="Which crop do farmers plant?")
    assert tab.review_label.text().startswith("1 of 2 reviewed")
    tab.review_key("r")
    assert "1 of 1 reviewed: no draft left" in tab.review_label.text()
    assert [tab.table.item(r, 1).text() for r in range(tab.table.rowCount())] == [
        "When does the river flood?", "Which crop do farmers plant?"]
    view.set_checked(["plain"])
    with qtbot.waitSignal(view.runFinished, timeout=120000):
        qtbot.mouseClick(tab.evaluate_button, Qt.MouseButton.LeftButton)
    assert view.model.question_set is not None and view.model.question_set.name == "mine"
    assert view.summary.rowCount() == 1 and view.lab_tabs.currentIndex() == 0
    assert "2 questions" in view.set_label.text() and "look like noise" in view.set_label.text()


def test_review_refuses_a_text_eval_would_refuse_and_keeps_the_draft(lab):
    """Issue #48 item 15: the review's edit goes through the one question rule (3,000,000 characters were kept)."""
    view, tab, _ = lab
    tab.start_review()
    tab.review_key("e", new_text="y" * 3_000_000)
    assert "not changed: the question is 3,000,000 characters long" in tab.status.text()
    assert tab.review_label.text().startswith("0 of 2 reviewed")
    assert [q.text for q in view.ws.questions.read("mine").questions][1] == "What do farmers plant?"


def test_lab_loads_a_stored_set_from_the_menu_and_reviewed_only_leaves_drafts_out(lab):
    view, _, _ = lab
    view.fill_bundled_menu()
    stored = [a for a in view.bundled_menu.actions() if a.data() == "stored:mine"]
    assert len(stored) == 1 and "3 questions" in stored[0].text()
    stored[0].trigger()
    assert view.stored_set == "mine" and len(view.model.question_set.questions) == 3
    assert "2 unreviewed draft(s) are scored with the rest" in view.status.text()
    view.inputs.reviewed_only.setChecked(True)
    assert len(view.model.question_set.questions) == 1
    assert "2 unreviewed draft(s) left out" in view.status.text()


def test_window_adds_the_document_views_selection_as_a_reference(qtbot, make_window, hash_sample_ws):
    ws = hash_sample_ws
    ws.questions.create("mine")
    window = make_window(ws)
    doc = next(int(r["id"]) for r in ws.records.documents() if r["path"].endswith("deploy-guide.md"))
    tab = window.eval_view.questions_tab
    tab.refresh(choose="mine")
    tab.question_box.setText("Why must the migration run first?")
    text = ws.corpus.doc_text(doc)
    start = text.index("The database schema must be migrated")
    window.compare.doc_pane.view.referenceRequested.emit([Span(doc, start, start + 36)])
    q = ws.questions.question("mine", 1)
    assert q.text == "Why must the migration run first?"
    assert [r.content for r in q.references] == ["The database schema must be migrated"]


def test_new_set_searches_every_document_of_the_data_folder(lab):
    view, tab, doc = lab
    assert tab.new_set("fresh") and tab.current_set == "fresh"
    assert list(view.ws.questions.info("fresh").doc_ids) == [doc]  # the library's documents: distractors count
    assert "searches the 1 document(s)" in tab.status.text()
    assert not tab.new_set("fresh") and "fresh" in tab.status.text()  # a taken name: refused, said


def test_the_labs_stored_set_follows_the_questions_tab_and_goes_when_deleted(lab):
    view, tab, doc = lab
    assert view.load_stored_set("mine") and len(view.model.question_set.questions) == 3
    tab.question_box.setText("Where is the dam?")
    assert tab.add_reference(Span(doc, 0, 10))  # a fourth question: the lab's copy follows at once
    assert len(view.model.question_set.questions) == 4 and view.set_label.text().startswith("mine: 4 questions")
    tab.confirm = lambda _question: True
    assert tab.delete_set()
    assert view.model.question_set is None and view.stored_set == ""
    assert "'mine' was deleted" in view.set_label.text()
    assert not view.start() and view.results == []  # nothing runs on a set that is gone
