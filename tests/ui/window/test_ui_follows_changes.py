"""Every view follows every change (issue 50): removing a document asks first and says what it takes with it;
then the embedding view drops the chunk set it drew, the document view says the document it showed is gone
(it raised ``DocumentGone``), the Questions tab counts again and marks the question whose reference lay in it,
and *Evaluate this set* says what it leaves out. A click on a point under a hit's ring shows that point's
chunk (the ring took the click); the rings are the hits the side shows after its budget; the Advise plot draws
the trials as they are scored (pytest-qt, offscreen, hashed embedder)."""

from __future__ import annotations

import json
import time

from ui_support import WAIT_MS, search

from workbench.core.spans import Span

pytest_plugins = ["ui_support"]


def _space_drawn(qtbot, window):
    c = window.compare
    c.set_document_shown(True)
    c.bottom_tabs.setCurrentWidget(c.space)
    qtbot.waitUntil(lambda: c.space.data is not None, timeout=WAIT_MS)
    return c.space


def test_a_click_on_a_ringed_point_of_another_document_shows_its_chunk(qtbot, make_window, hash_sample_ws):
    from PySide6.QtCore import Qt

    window = make_window(hash_sample_ws)
    search(qtbot, window)
    shown = window.compare.doc_pane.doc_id
    space = _space_drawn(qtbot, window)
    data = space.data
    ringed = [i for i, r in enumerate(data.projection.rows) if int(r) in data.hits["A"]
              and int(data.doc_ids[i]) != shown]
    assert ringed, "a hit in another document than the one shown"
    i = ringed[0]
    qtbot.mouseClick(space.plot.viewport(), Qt.MouseButton.LeftButton, pos=space.point_position(i).toPoint())
    pane = window.compare.doc_pane
    assert window.compare.bottom_tabs.currentWidget() is pane, "the click brings the document view to the front"
    assert pane.doc_id == int(data.doc_ids[i]), "the clicked chunk's document"


def test_the_rings_are_the_hits_the_side_shows_after_its_budget(qtbot, make_window, hash_sample_ws):
    from dataclasses import replace

    window = make_window(hash_sample_ws)
    strategy = window.model.strategy("A")
    window.model.set_strategy("A", replace(strategy, top_k=8, budget=250))
    search(qtbot, window)
    result = window.model.current_result("A")
    kept = {c for p in result.passages for c in p.hit_chunk_ids}
    assert len(kept) < len(result.hits), "the budget cut some hits (else this test shows nothing)"
    space = _space_drawn(qtbot, window)
    assert space.data.hits["A"] == sorted({h.row for h in result.hits if h.chunk_id in kept})
    assert f"A&#x27;s hits ({len(space.data.hits['A'])})" in space.legend.text()


def _set_over(ws, doc_id: int, other: int) -> None:
    """A stored set 'marked' with one question into ``doc_id`` and one into ``other``."""
    ws.questions.create("marked", library=True)
    for d in (doc_id, other):
        text = ws.corpus.doc_text(d)
        ws.questions.add("marked", f"what does document {d} say first?", [Span(d, 0, min(80, len(text)))])


def test_removing_the_shown_document_asks_then_every_view_follows(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    search(qtbot, window)
    pane = window.compare.doc_pane
    gone = pane.doc_id
    other = next(int(d["id"]) for d in hash_sample_ws.records.documents() if int(d["id"]) != gone)
    _set_over(hash_sample_ws, gone, other)
    lab = window.eval_view
    lab.questions_tab.refresh(choose="marked")
    assert "2 questions over 6 documents" in lab.questions_tab.summary.text()
    space = _space_drawn(qtbot, window)
    assert gone in set(space.data.doc_ids.tolist())
    errors: list[str] = []
    window.errorShown.connect(errors.append)

    lib = window.library
    item = next(lib.table.topLevelItem(i) for i in range(lib.table.topLevelItemCount())
                if lib.table.rows()[i]["doc_id"] == gone)
    lib.table.setCurrentItem(item)
    asked: list[str] = []
    lib.confirm = lambda text: asked.append(text) or False  # the person cancels first
    lib.remove.click()
    assert len(asked) == 1 and len(hash_sample_ws.records.documents()) == 6, "Cancel removes nothing"
    words = asked[0]
    assert item.text(0) in words and "chunks" in words and "“marked”" in words and "files on disk stay" in words

    lib.confirm = lambda text: True
    with qtbot.waitSignal(window.model.documentsChanged, timeout=WAIT_MS):
        lib.remove.click()
    # the document view says its document went (it raised DocumentGone), the embedding view drops the old set
    qtbot.waitUntil(lambda: "removed from the library" in pane.note.text() or pane.doc_id not in (None, gone),
                    timeout=WAIT_MS)
    assert pane.doc_id != gone
    assert all(pane.picker.itemData(i) != gone for i in range(pane.picker.count()))
    assert not errors, errors

    def redrawn() -> bool:
        return space.data is not None and gone not in set(space.data.doc_ids.tolist())

    qtbot.waitUntil(redrawn, timeout=WAIT_MS)
    rt = hash_sample_ws.sets.runtime(window.model.current_result("A").set_id)
    assert f"all {len(rt):,} chunks shown" in space.status.text()

    # the Questions tab counts again and marks the question whose document went
    tab = lab.questions_tab
    assert "2 questions over 5 documents" in tab.summary.text(), tab.summary.text()
    states = [tab.table.item(r, 4).text() for r in range(tab.table.rowCount())]
    assert states[0].startswith("needs review") and "no longer stored" in states[0] and states[1] == "ok"
    assert lab.evaluate_stored_set("marked")
    assert "Evaluating 1 of 2" in tab.status.text() and "no longer in the library" in tab.status.text()
    assert "Evaluating 1 of 2" in lab.status.text()
    lab.cancel()
    qtbot.waitUntil(lambda: not lab.running, timeout=WAIT_MS)


def test_the_advise_plot_draws_the_trials_as_they_are_scored(qtbot, make_window, hash_ws):
    from workbench.core.evaluate.advise.optimise import Trial
    from workbench.core.jobs import Cancelled, ProgressEvent
    from workbench.core.store.rows import RunRow
    from workbench.ui.jobs.workers import Worker

    window = make_window(hash_ws)
    view = window.eval_view.advise
    assert not view.plot.trials

    def job(_progress, cancel):  # stands for the advice job (the test records its trials, as run_advice does)
        while not cancel.cancelled:
            time.sleep(0.01)
        raise Cancelled()

    view._begin(Worker(job, "advice"), 60.0, "advising")
    from workbench.core.evaluate.advise.space import Space

    first, second, *_ = Space(budget=1000).configurations()
    trials = [Trial(1, first, "done", 0.5, 320.0, questions=4), Trial(2, second, "done", 0.75, 610.0, questions=4)]
    summary = {"state": "searching", "stopped": "", "trials": [t.to_dict() for t in trials], "pareto": [1, 2]}
    hash_ws.records.record_run(RunRow("adv-live", "advice", "advise live", json.dumps({"advice": {"budget": 1000}}),
                                      "x", "test", "2026-01-01T00:00:00", None, json.dumps(summary)))
    view._on_progress(ProgressEvent("advising", 0, 0, "trial 2: recursive 400 → recall 75.0 at 610 tokens"))
    qtbot.waitUntil(lambda: len(view.plot.trials) == 2, timeout=5_000)
    view.cancel()
    qtbot.waitUntil(lambda: not view.running, timeout=WAIT_MS)


def test_removing_every_document_while_marking_leaves_every_view_saying_so(qtbot, make_window, hash_sample_ws):
    from test_ui_tasks import _settle

    ws = hash_sample_ws
    docs = {int(d["id"]): str(d["title"]) for d in ws.records.documents()}
    first, second = list(docs)[:2]
    _set_over(ws, first, second)
    window = make_window(ws)
    errors: list[str] = []
    window.errorShown.connect(errors.append)
    window.model.set_side_by_side(True)
    search(qtbot, window, sides=("a", "b"))
    window.set_task("mark")
    tab = window.eval_view.questions_tab
    tab.refresh(choose="marked")
    tab.table.selectRow(0)
    _settle(qtbot)
    shown = window.compare.doc_pane.doc_id
    lib = window.library
    window.left_tabs.setCurrentWidget(lib)
    lib.table.selectAll()
    lib.confirm = lambda _text: True
    with qtbot.waitSignal(window.model.documentsChanged, timeout=WAIT_MS):
        lib.remove.click()
    _settle(qtbot, 600)
    pane = window.compare.doc_pane
    assert pane.doc_id is None and docs[shown] in pane.note.text() and "removed" in pane.note.text()
    assert "over 0 documents" in tab.summary.text()
    assert all(tab.table.item(r, 4).text().startswith("needs review") for r in range(tab.table.rowCount()))
    window.set_task("explore")
    window.compare.bottom_tabs.setCurrentWidget(window.compare.space)
    qtbot.waitUntil(lambda: "no documents" in window.compare.space.status.text(), timeout=WAIT_MS)
    assert not errors, errors
