"""The README's screenshots at 1366×768: two strategies side by side on the sample corpus with a passage open in
the document view (``side-by-side.png``), and the hover card of a hit chunk (``hover-card.png``: the card is
its own window, drawn onto the window's picture where it shows).

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshot_readme.py
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QCursor, QHelpEvent, QPainter, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip
from screenshot_support import SELF_TEST_QUESTION, LaptopWindow, output_dir

from workbench.core.retrieve.strategy.presets import PRESETS


def main() -> None:
    """Index the sample corpus, search side by side, open A's first passage, save both pictures."""
    out = output_dir()
    shot = LaptopWindow("readme")
    window, wait, settle = shot.window, shot.wait, shot.settle
    sentence = PRESETS["sentence-window"]
    window.model.set_strategy("A", replace(sentence, chunk=replace(sentence.chunk, heading_prefix=True)))
    window.model.set_strategy("B", PRESETS["neighbours"])
    shot.index_sample()
    window.side_by_side.setChecked(True)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    wait(lambda: all(window.model.current_result(s) is not None for s in "AB"))
    window.compare.a.results.activate(0)
    settle()
    shot.save(out, "side-by-side.png")

    view = window.compare.a.results
    result = window.model.current_result("A")
    assert result is not None
    passage = result.passages[0]
    hit = max(passage.hit_spans, key=lambda s: s.length)
    position = view.pmap.position_of(passage.span.doc_id, (hit.start + hit.end) // 2)
    cursor = QTextCursor(view.document())
    cursor.setPosition(position or 0)
    point = view.cursorRect(cursor).center()
    where = view.viewport().mapToGlobal(point)
    QCursor.setPos(where)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, where))
    settle(0.8)
    picture = window.grab()
    tip = next((w for w in QApplication.topLevelWidgets() if w.metaObject().className() == "QTipLabel"
                and w.isVisible()), None)
    print(f"screenshot: hover card shown: {tip is not None}")
    if tip is not None:
        painter = QPainter(picture)
        painter.drawPixmap(window.mapFromGlobal(tip.mapToGlobal(QPoint(0, 0))), tip.grab())
        painter.end()
    path = out / "hover-card.png"
    picture.save(str(path))
    print(f"screenshot: {path}")
    QToolTip.hideText()
    shot.close()


if __name__ == "__main__":
    main()
