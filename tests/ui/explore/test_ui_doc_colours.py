"""The document view's colour picker keeps what the person picked: a rebuild of B (B's result gone, then
back) does not switch it, and the mouse wheel passing over it while scrolling does not change it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ui_support import WAIT_MS, search

pytest_plugins = ["ui_support"]


@pytest.mark.parametrize("picked", [None, "chunks:A", ""], ids=["default", "chunks of A", "returned text"])
def test_a_rebuild_of_b_keeps_the_colour_picked(qtbot, make_window, hash_sample_ws, picked):
    window = make_window(hash_sample_ws)
    window.model.set_side_by_side(True)
    search(qtbot, window, sides=("a", "b"))
    pane = window.compare.doc_pane
    if picked is not None:
        pane.colour.setCurrentIndex(pane.colour.findData(picked))
        pane.colour.activated.emit(pane.colour.currentIndex())
    before = pane.colour.currentData()
    b = window.compare.b
    with qtbot.waitSignal(b.resultShown, timeout=WAIT_MS):
        window.model.set_strategy("B", replace(window.model.strategy("B").with_size(72), name="custom"))
    qtbot.wait(50)
    assert pane.colour.currentData() == before, f"{before!r} became {pane.colour.currentData()!r}"


def test_the_wheel_over_the_picker_does_not_change_it_unless_it_has_the_focus(qtbot, make_window, hash_sample_ws):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    window = make_window(hash_sample_ws)
    window.model.set_side_by_side(True)
    search(qtbot, window, sides=("a", "b"))
    combo = window.compare.doc_pane.colour
    window.question.setFocus()
    before = combo.currentIndex()

    def wheel() -> None:
        centre = QPointF(combo.rect().center())
        event = QWheelEvent(centre, QPointF(combo.mapToGlobal(combo.rect().center())), QPoint(0, 0),
                            QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(combo, event)

    wheel()
    assert combo.currentIndex() == before, "scrolling past the picker switched it"
    combo.setFocus()
    wheel()
    assert combo.currentIndex() != before, "with the focus, the wheel still steps through the entries"
