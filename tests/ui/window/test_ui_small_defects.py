"""Smaller defects of issue 50: the lab numbers its questions from 1, as the Questions tab does; one side shown,
the answer comes from A's passages (it said "Answer from B's passages"); an import's status line says what was
imported (it kept "reference … added"); the import and contextualize dialogs have a Cancel that closes them
(pytest-qt, offscreen, hashed embedder)."""

from __future__ import annotations

from ui_support import WAIT_MS, search

from workbench.core.spans import Span

pytest_plugins = ["ui_support"]


def _lab_on_two_questions(make_window, ws):
    """A window in the lab on a stored set of two questions, one on each of the first two documents."""
    ids = [int(d["id"]) for d in ws.records.documents()]
    ws.questions.create("two", library=True)
    for d in ids[:2]:
        ws.questions.add("two", f"what does document {d} begin with?", [Span(d, 0, 60)])
    window = make_window(ws)
    lab = window.eval_view
    window.set_task("lab")
    assert lab.load_stored_set("two")
    return window, lab


def test_the_lab_numbers_its_questions_from_one(qtbot, make_window, hash_sample_ws):
    ws = hash_sample_ws
    window, lab = _lab_on_two_questions(make_window, ws)
    lab.set_checked(["plain"])
    with qtbot.waitSignal(lab.runFinished, timeout=WAIT_MS):
        assert lab.start()
    lab.summary.selectRow(0)
    numbers = sorted(lab.questions.item(i, 0).data(0) for i in range(lab.questions.rowCount()))
    assert numbers == [1, 2], "numbered as the Questions tab numbers them"
    tab = lab.questions_tab
    tab.refresh(choose="two")
    assert [tab.table.item(i, 0).text() for i in range(tab.table.rowCount())] == ["1", "2"]


def test_one_side_shown_the_answer_comes_from_a(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    panel = window.answer
    window.model.set_side_by_side(True)
    panel.set_sides("B")
    window.model.set_side_by_side(False)
    assert panel.answer_sides() == ("A",)
    titles = [c.title.text() for c in panel.columns.values() if c.isVisibleTo(panel) and c.title.isVisibleTo(panel)]
    assert not any("B's passages" in t for t in titles), titles
    window.model.set_side_by_side(True)
    assert panel.answer_sides() == ("B",), "B's choice comes back with B"


def test_an_import_says_what_it_imported(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    search(qtbot, window)
    tab = window.eval_view.questions_tab
    assert tab.new_set("mine")
    doc = int(hash_sample_ws.records.documents()[0]["id"])
    assert tab.add_reference(Span(doc, 0, 40), "what comes first?")
    assert "added" in tab.status.text()
    hash_sample_ws.questions.create("imported one", library=True)  # as the import job leaves it
    dialog = window.marking.open_import()
    dialog.imported.emit("imported one")
    assert tab.current_set == "imported one"
    assert "imported" in tab.status.text() and "added" not in tab.status.text()
    assert dialog.cancel_button.text() == "Cancel"
    dialog.cancel_button.click()
    assert not dialog.isVisible()


def test_the_contextualize_dialog_has_a_cancel(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    dialog = window.dialogs.open_contextualize()
    qtbot.waitUntil(dialog.isVisible, timeout=WAIT_MS)
    assert dialog.close_button.text() == "Cancel"
    dialog.close_button.click()
    assert not dialog.isVisible() and not dialog.running


def test_a_lab_question_opens_with_its_rows_configuration(qtbot, make_window, hash_sample_ws):
    from dataclasses import replace

    ws = hash_sample_ws
    window, lab = _lab_on_two_questions(make_window, ws)
    lab.set_checked(["plain", "neighbours"])
    lab.budgets.setText("400")
    with qtbot.waitSignal(lab.runFinished, timeout=WAIT_MS):
        assert lab.start()
    chosen = lab.results[1]
    lab.select_configuration(chosen.config.key)
    compare = window.compare
    with qtbot.waitSignals([compare.a.resultShown, compare.b.resultShown], timeout=WAIT_MS):
        lab.questions.itemActivated.emit(lab.questions.item(0, 1))
    assert window.task == "explore"
    assert replace(window.model.strategy("B"), name="") == replace(chosen.config.strategy, name=""), \
        "B runs the row's configuration (its budget too), not Explore's strategy"
    assert window.model.strategy("B").budget == 400


def test_the_library_never_scrolls_sideways_empty_or_full(qtbot, monkeypatch, make_window, hash_ws):
    from ui_support import on_screen

    on_screen(monkeypatch, 1280, 720)
    window = make_window(hash_ws)  # an empty library: the panel is shown
    table = window.library.table
    qtbot.waitUntil(table.isVisible, timeout=WAIT_MS)
    qtbot.wait(50)
    assert not table.horizontalScrollBar().isVisible(), [table.columnWidth(i) for i in range(4)]
    assert table.columnWidth(3) >= 70, "Details keeps a few words"
    with qtbot.waitSignal(window.library.indexingFinished, timeout=WAIT_MS):
        window.index_sample()
    qtbot.wait(50)
    assert table.topLevelItemCount() == 6
    assert not table.horizontalScrollBar().isVisible(), [table.columnWidth(i) for i in range(4)]


def test_the_noise_line_speaks_of_the_questions_a_limited_run_scores(qtbot, make_window, hash_sample_ws):
    ws = hash_sample_ws
    ids = [int(d["id"]) for d in ws.records.documents()]
    ws.questions.create("eight", library=True)
    for n in range(8):
        ws.questions.add("eight", f"question {n} about document {ids[n % len(ids)]}?", [Span(ids[n % len(ids)], 0, 50)])
    window = make_window(ws)
    lab = window.eval_view
    assert lab.load_stored_set("eight")
    assert lab.set_label.text().startswith("eight: 8 questions;") and "8 questions: " in lab.set_label.text()
    lab.limit.setValue(3)
    assert "8 questions, 3 run" in lab.set_label.text() and "3 questions: " in lab.set_label.text()
    assert "8 questions: " not in lab.set_label.text(), "the noise line was the whole set's"


def _top(view) -> tuple[int, int]:
    from PySide6.QtCore import QPoint

    doc, offset, _tag = view.locate(QPoint(8, 8))
    return doc, offset


def test_the_document_view_keeps_the_readers_place(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    window.set_library_shown(False)
    search(qtbot, window)
    pane = window.compare.doc_pane
    window.show_document_tab()
    pane.flush()
    text = hash_sample_ws.corpus.doc_text(pane.doc_id)
    middle = len(text) // 2
    pane.view.scroll_to(pane.doc_id, middle)
    qtbot.wait(20)
    doc, before = _top(pane.view)
    assert doc == pane.doc_id and abs(before - middle) < 200
    pane.set_chunk_map_side("A")  # a colour change redraws the text (chunk markers, the map beside it)
    qtbot.wait(20)
    assert abs(_top(pane.view)[1] - before) < 120, "the colour change kept the place"
    window.set_library_shown(True)  # the text re-wraps narrower
    qtbot.wait(50)
    assert abs(_top(pane.view)[1] - before) < 200, "the library shown kept the place"


def test_after_a_restart_the_run_list_names_no_run_over_empty_tables(qtbot, make_window, hash_sample_ws,
                                                                      ui_settings):
    ws = hash_sample_ws
    ids = [int(d["id"]) for d in ws.records.documents()]
    ws.questions.create("two", library=True)
    for d in ids[:2]:
        ws.questions.add("two", f"what does document {d} begin with?", [Span(d, 0, 60)])
    first = make_window(ws)
    lab = first.eval_view
    assert lab.load_stored_set("two")
    with qtbot.waitSignal(lab.runFinished, timeout=WAIT_MS) as done:
        assert lab.start()
    assert lab.runs.currentData() == done.args[0], "the run just made is the one named"
    first.close()
    again = make_window(ws, ui_settings).eval_view
    assert again.summary.rowCount() == 0 and again.runs.count() == 1
    assert again.runs.currentIndex() == -1 and "choose one, then Open run" in again.runs.placeholderText()
    again.open_run(again.runs.itemData(0))
    assert again.summary.rowCount() == 1 and again.runs.currentIndex() == 0


def test_the_advisors_verdict_is_read_whole(qtbot, monkeypatch, make_window, hash_ws):
    from ui_support import on_screen

    on_screen(monkeypatch, 1280, 720)
    window = make_window(hash_ws)
    view = window.eval_view.advise
    window.set_task("lab")
    window.eval_view.lab_tabs.setCurrentWidget(view)
    verdict = ("the pick recalls 4.2 points more than hybrid at 1,000 tokens on the confirm half (interval 1.1 to "
               "7.3 points, Holm-adjusted), so it is distinguishably better; it was chosen by one-se among the "
               "configurations within one paired standard error of the best, which keeps the simplest of them; "
               "the folds agreed on its chunker and its expansion, and its out-of-fold recall is within two points "
               "of its in-sample recall, so the search did not overfit the questions it chose on")
    from workbench.core.evaluate.advise.report import AdviceReport

    report = AdviceReport.from_record({"trials": [], "pareto": [], "verdict": verdict, "pick": "advised-x",
                                       "headline": {"recall": 0.81, "tokens": 950, "measured_on": "the confirm half"},
                                       "confirm": {"rows": [], "verdict": verdict}}, 1000)
    view.show_report(report, 1000, [])
    qtbot.wait(20)
    box = view.verdict
    box.verticalScrollBar().setValue(0)
    assert box.verticalScrollBar().maximum() == 0, "the verdict fits its box: no sentence is cut"
