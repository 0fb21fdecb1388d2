"""The window's *Import questions…* dialog (pytest-qt, offscreen): it previews before anything is written (the
same report as the import, and the first questions with their references as located), imports on the second
click, starts over when an input changes, and Cancel leaves without writing a set or a document."""

from __future__ import annotations

import csv
from pathlib import Path

from ui_support import WAIT_MS

from workbench.ui.evaluate.import_dialog import ImportQuestionsDialog

pytest_plugins = ["ui_support"]

BOOK = ("It was the end of an old pencil, \u201cThis was really his,\u201d said Harriet.\n\n"
        "Hannah kept the house.\n\nMr. Knightley walked to Hartfield in the rain.\n")
ROWS = [("the tale", "What was the pencil?", "his", 'It was the end of an old pencil, "This was really his,"'),
        ("the tale", "Who kept the house?", "Hannah", "Hannah kept the house."),
        ("the tale", "Who walked?", "Mr. Knightley", "Mr.  Knightley walked to Hartfield"),
        ("the tale", "Who sang?", "nobody", "a song nobody sang")]


def gutenqa_folder(root: Path) -> Path:
    """A GutenQA question table (its published column names) and its book; the passages are quoted as GutenQA
    quotes them: straight quotes for the book's curly ones, a doubled space, one passage not in the book."""
    (root / "books").mkdir(parents=True)
    (root / "books" / "the tale.txt").write_text(BOOK, encoding="utf-8")
    with open(root / "questions.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Book Name", "Question", "Answer", "Chunk Must Contain"])
        writer.writerows(ROWS)
    return root


def _dialog(qtbot, ws, root: Path) -> ImportQuestionsDialog:
    dialog = ImportQuestionsDialog(ws)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentText("gutenqa")
    dialog.source.setText(str(gutenqa_folder(root)))
    dialog.set_name.setText("emma")
    return dialog


def test_preview_then_import(qtbot, hash_ws, tmp_path):
    documents = len(list(hash_ws.records.documents()))
    dialog = _dialog(qtbot, hash_ws, tmp_path / "gutenqa")
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    said = dialog.report.text()
    assert "3 question(s) would be imported" in said and "1 after normalising quotes" in said, said
    assert "1 after normalising spaces" in said
    assert "questions:4" in said  # the question left out, named
    assert "the first questions, with their references as located" in said and "Hannah" in said
    assert dialog.start_button.text() == "Import 3 question(s)"
    assert "emma" not in hash_ws.questions.names() and len(list(hash_ws.records.documents())) == documents
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert "emma" in hash_ws.questions.names() and "3 question(s) imported" in dialog.report.text()


def test_a_changed_input_previews_again_and_cancel_writes_nothing(qtbot, hash_ws, tmp_path):
    dialog = _dialog(qtbot, hash_ws, tmp_path / "gutenqa")
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    dialog.set_name.setText("emma2")
    assert dialog.start_button.text() == "Preview"
    dialog.cancel_button.click()
    assert not set(hash_ws.questions.names()) & {"emma", "emma2"}
    assert list(hash_ws.records.documents()) == []
