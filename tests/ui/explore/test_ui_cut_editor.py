"""Editing the cuts in the chunk map: split at the cursor (S), merge neighbours (M), drag a cut, undo (Ctrl+Z);
the edits go to a hand-made chunking named once, and the side runs again with ``edited:NAME``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from ui_support import search, wait_settled

pytest_plugins = ["ui_support"]


def _spans(view, doc_id):
    rt = view.runtime
    return [(s.start, s.end) for s in (rt.span(r) for r in range(*rt.doc_rows(doc_id)))]


def _point(view, doc_id, offset):
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc_id, offset))
    return view.cursorRect(cursor).center()


def _put_cursor(view, doc_id, offset):
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc_id, offset))
    view.setTextCursor(cursor)


def _hover(view, point):
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    viewport = view.viewport()
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(point), QPointF(viewport.mapToGlobal(point)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)


def test_split_merge_drag_and_undo_in_the_chunk_map_rerun_the_side(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    (first,) = search(qtbot, window)
    compare, side = window.compare, window.compare.a
    pane, editor = compare.doc_pane, compare.cut_editor
    doc_id = first.passages[0].span.doc_id
    compare.set_document_shown(True)
    compare.bottom_tabs.setCurrentWidget(pane)
    pane.show_doc(doc_id)
    pane.set_chunk_map_side("A")
    view = pane.view
    base = _spans(view, doc_id)
    assert len(base) >= 4
    started_from = side.strategy().name
    asked: list[str] = []
    editor.ask = lambda offered: asked.append(offered) or "edited-test"

    def settled_after(action):
        before = side.controller.result.set_id
        action()
        result = wait_settled(qtbot, side, lambda r: r.set_id != before)
        pane.flush()
        pane.show_doc(doc_id)
        return result, _spans(view, doc_id)

    a, b = base[1]
    middle = (a + b) // 2
    _put_cursor(view, doc_id, middle)
    view.setFocus()
    said: list[str] = []
    editor.message.connect(said.append)
    result, spans = settled_after(lambda: qtbot.keyClick(view, Qt.Key.Key_S))
    assert said[-1].startswith("edited:edited-test: split"), "the re-run does not bury what was done"
    assert asked == [f"edited-{started_from}"]  # asked once, offering the base strategy's name
    assert side.strategy().chunk.chunker == '{"name":"edited:edited-test"}'
    assert spans == base[:1] + [(a, middle), (middle, b)] + base[2:]
    assert "edited:edited-test" in [side.strategy_panel.chunker.combo.itemData(i)
                                    for i in range(side.strategy_panel.chunker.combo.count())]

    _put_cursor(view, doc_id, middle + 1)  # M: the chunk at the cursor joins the next one
    result, spans = settled_after(lambda: qtbot.keyClick(view, Qt.Key.Key_M))
    assert len(asked) == 1, "the name is asked once"
    assert spans == base[:1] + [(a, middle), (middle, base[2][1])] + base[3:]

    cut, to = base[3][0], base[3][0] + 25  # drag the cut at the start of chunk 4 to the right
    press, release = _point(view, doc_id, cut), _point(view, doc_id, to)
    _hover(view, release)
    assert view.viewport().cursor().shape() != Qt.CursorShape.SplitHCursor
    _hover(view, press)
    assert view.viewport().cursor().shape() == Qt.CursorShape.SplitHCursor, "over a cut the pointer says so"
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=press)
    result, spans = settled_after(lambda: qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton,
                                                             pos=release))
    moved_to = spans[3][0]
    assert abs(moved_to - to) <= 2 and spans[2] == (middle, moved_to) and spans[3] == (moved_to, base[3][1])
    assert not view.textCursor().hasSelection(), "dragging a cut selects no text"

    result, spans = settled_after(lambda: qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier))
    assert spans == base[:1] + [(a, middle), (middle, base[2][1])] + base[3:]
    hand = hash_sample_ws.cuts.get("edited-test")
    assert [e.op for e in hand.edits] == ["split", "merge"]


def test_an_edit_that_cannot_apply_is_refused_in_one_line_and_nothing_changes(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    (first,) = search(qtbot, window)
    compare = window.compare
    pane, editor = compare.doc_pane, compare.cut_editor
    doc_id = first.passages[0].span.doc_id
    pane.show_doc(doc_id)
    said: list[str] = []
    editor.message.connect(said.append)
    assert not editor.split(doc_id, 10) and "chunks of A" in said[-1]  # no chunk map shown: nothing to edit
    pane.colour.setCurrentIndex(pane.colour.findData("chunks:A"))
    pane.colour.activated.emit(pane.colour.currentIndex())  # picked by hand
    assert pane.chunk_map_side() == "A" and said[-1].startswith("Chunk map: drag a cut"), \
        "picking a chunk map says how to edit it"
    editor.ask = lambda offered: "mine"
    cut = _spans(pane.view, doc_id)[1][0]
    assert not editor.split(doc_id, cut) and said[-1].startswith("Not changed:") and "already" in said[-1]
    assert hash_sample_ws.cuts.get("mine") is None and editor.undo_stack == []


def test_the_lab_evaluates_a_hand_made_chunking_like_any_chunker(qtbot, make_window, hash_ws, tmp_path):
    from ui_support import run_lab, sample_set

    from workbench.core.ingest.chunkers.hand_edits import HandChunking
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.workspace.cuts import base_chunker_json

    # no edits yet: it cuts exactly as its base does
    hash_ws.cuts.edit("same", [], HandChunking("same", "plain", base_chunker_json(PRESETS["plain"].chunk)))
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.set_checked(["plain"])
    view.grid.setText("chunker=edited:same,fixed")
    run_lab(qtbot, view)
    by_chunker = {r.config.params["chunker"]: r for r in view.results}
    assert set(by_chunker) == {"edited:same", "fixed"}
    edited, base = by_chunker["edited:same"], by_chunker["fixed"]
    assert [q.metrics for q in edited.rows] == [q.metrics for q in base.rows] and len(edited.rows) > 1
