"""A newcomer's walk through the window on a laptop screen (pytest-qt, offscreen, hashed embedder).

What it proves: on a screen whose available area is 1366 × 768 or 1280 × 720 (the window sizes itself against
``layout.available_rect``, the screen's available geometry, which the test sets), along the path a new
researcher takes — the welcome's benchmark, a lab sweep with budgets, a double click on a question, a
hand-typed question, answers from A and B, a chunker change on B, Ctrl+K (both sides' knobs, pressed in the
question bar), the library collapsed — after every step:

* the window's frame lies inside the screen (nothing it shows or loads widens it);
* nothing stale is shown: the question bar says the model's question, each side's passages, scores and
  evidence colours belong to the current question and strategy or say in words that they do not, each answer
  likewise, and the lab's tables show its current run and selected configuration;
* no text is clipped: every visible label, button and combo box shows its whole text, or elides it with the
  whole text in its tooltip; word-wrapped labels get the lines they need; legends keep to one line; no spin box
  is narrower than its widest value; no scroll area (the knobs included) scrolls sideways;
* every view shown has its declared least room (``window.rooms.shortfalls``); each side keeps half the window's
  height for its passages while nothing else needs room, a fifth when open knobs or the tab in front need theirs;
* with the Answer tab in front (knobs closed, prompt hidden), each answer's stats, judge's line and cited
  passages are in view: the answer pane is sized to its content;
* the lab (each of its tabs) needs no outer scrollbar, and its sweep's progress bar never moves back;
* the library lists every document the data folder holds (the benchmark's corpora included).
"""

from __future__ import annotations

import pytest
from ui_support import WAIT_MS, clipped_texts, narrow_inputs, off_screen, on_screen, sideways_scrolling

from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]
TOUR_MS = 300_000
TYPED = "What did the president say about inflation and prices?"


def stale_shown(window) -> list[str]:
    """What the window shows that is not the current question's or strategy's without saying so."""
    model, compare, problems = window.model, window.compare, []
    if window.question.text().strip() != model.question:
        problems.append(f"question bar {window.question.text()!r} but the model's question is {model.question!r}")
    for side, panel in (("A", compare.a), ("B", compare.b)):
        result = model.result(side)
        if result is None or not panel.isVisible():
            continue
        current = model.matches(side, result)
        if current == panel.stale_note.isVisible() or current == panel.results.is_stale:
            problems.append(f"{side}: passages {'current' if current else 'stale'} but the note says "
                            f"{panel.stale_note.text()!r}")
        if panel.metrics.isVisible() and (result.question != model.question or not model.reference):
            problems.append(f"{side}: scores {panel.metrics.text()!r} for another question")
        if (panel.results.rendered("evidence") or panel.results.rendered("noise")) and not model.reference:
            problems.append(f"{side}: evidence colours without reference spans")
    for side, column in window.answer.columns.items():
        answer = model.answer(side)
        if answer is None or not column.isVisibleTo(window.answer):
            continue
        if model.matches(side, answer) == column.stale_note.isVisibleTo(window.answer):
            problems.append(f"answer {side}: note {column.stale_note.text()!r} does not match")
    view, run = window.eval_view, model.run
    if run is not None:
        if view.summary.rowCount() != len(run.results):
            problems.append("the summary table is not the current run's")
        selected = model.selected_result()
        shown = sorted(view.questions.item(i, 1).text() for i in range(view.questions.rowCount()))
        if selected is not None and shown != sorted(r.question for r in selected.rows):
            problems.append("the questions table is not the selected configuration's")
    return problems


def cramped(window) -> list[str]:
    """The layout rules of a laptop screen: every view shown has its declared least room (``window.rooms``); each
    side keeps half the window's height for its passages while nothing else needs room, a quarter when open knobs
    or the tab in front (an answer, the embedding space) take their least (a fifth, issue 50); the answer's stats and
    sources are in view, the lab needs no outer scrolling, the library lists every stored document."""
    from workbench.ui.window.rooms import shortfalls

    problems = list(shortfalls(window))
    if window.model.mode == "explore":
        compare = window.compare
        front = compare.bottom_tabs.currentWidget() if compare.document_shown() else None
        for name, side in (("A", compare.a), ("B", compare.b)):
            gives_way = side.knob_area.isVisible() or front in compare._least_heights
            floor = window.height() // (5 if gives_way else 2)
            if side.isVisible() and side.results.height() < floor:
                knobs = "open" if side.knob_area.isVisible() else "closed"
                problems.append(f"{name}'s passages {side.results.height()} px of {window.height()} (knobs {knobs})")
            if side.isVisible() and side.width() < 200:
                problems.append(f"{name} is {side.width()} px wide")
        problems += answer_hidden(window)
    elif window.lab_page is not None and window.lab_page.verticalScrollBar().isVisible():
        problems.append("the lab needs the outer scrollbar")
    listed = {int(r["doc_id"]) for r in window.library.table.rows() if r["doc_id"] is not None}
    stored = {d["id"] for d in window.ws.records.documents()}
    if listed != stored:
        problems.append(f"the library lists {len(listed)} of {len(stored)} stored documents")
    return problems


def answer_hidden(window) -> list[str]:
    """With the Answer tab in front, the knobs closed and the prompt hidden, each answer's stats, judge's line
    and cited passages are in view (the answer pane is sized to its content; the text scrolls inside its own box)."""
    from PySide6.QtCore import QPoint

    compare, page = window.compare, window.answer_page
    if (not compare.document_shown() or compare.bottom_tabs.currentWidget() is not page
            or window.answer.show_prompt.isChecked() or any(s.knob_area.isVisible() for s in compare.sides_shown())):
        return []
    problems = []
    for side, column in window.answer.columns.items():
        if not column.isVisibleTo(window.answer) or not column.stats.text():
            continue
        for name, part in (("stats", column.stats), ("judge's line", column.verdict), ("sources", column.sources)):
            if part.isHidden():
                continue
            top = part.mapTo(page.viewport(), QPoint(0, 0)).y()
            if top < 0 or top + part.height() > page.viewport().height():
                problems.append(f"answer {side}'s {name} out of view ({top}..{top + part.height()} of "
                                f"{page.viewport().height()} px)")
    return problems


def check(window, screen, step: str, *dialogs) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    for _ in range(3):  # the layout settles: the compare view shares its height out once it has its size
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QApplication.processEvents()
    problems = [p for p in (off_screen(window, screen),) if p]
    problems += stale_shown(window)
    problems += cramped(window)
    for root in (window, *dialogs):
        problems += clipped_texts(root) + narrow_inputs(root) + sideways_scrolling(root)
    problems = list(dict.fromkeys(problems))  # a dialog over the window is also among its children
    assert not problems, f"after {step}: " + "; ".join(problems)


def settle(qtbot, window, sides=("A", "B")) -> None:
    """Wait until each named side shows a result of the current question and strategy."""
    qtbot.waitUntil(lambda: all(window.model.current_result(s) is not None for s in sides), timeout=WAIT_MS)
    qtbot.wait(20)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_newcomers_walk_stays_on_screen_current_and_unclipped(qtbot, monkeypatch, make_window, hash_ws,
                                                                ui_settings, size):
    import socket

    from PySide6.QtCore import Qt

    with socket.socket() as s:  # the welcome asks a loopback port where nothing listens for Ollama
        s.bind(("127.0.0.1", 0))
        ui_settings.setValue("llm/host", f"127.0.0.1:{s.getsockname()[1]}")
    screen = on_screen(monkeypatch, *size)
    window = make_window(hash_ws)
    window.setGeometry(screen)  # as large as the screen allows
    check(window, screen, "opening")

    # 1. the welcome's benchmark path
    dialog = window.open_welcome()
    qtbot.waitUntil(lambda: "No Ollama server" in dialog.ollama_status.text(), timeout=WAIT_MS)
    check(window, screen, "the welcome", dialog)
    outcome: list[str] = []
    dialog.benchmark_button.click()
    window.dialogs.tour.finished.connect(outcome.append)
    window.dialogs.tour.failed.connect(lambda msg: outcome.append(f"failed: {msg}"))
    qtbot.waitUntil(lambda: bool(outcome), timeout=TOUR_MS)
    assert not outcome[0].startswith("failed"), outcome
    settle(qtbot, window)
    check(window, screen, "the welcome's benchmark")

    # 2. a lab sweep with budgets
    view = window.eval_view
    window.set_mode("evaluate")
    view.set_checked(["plain", "neighbours"])
    view.budgets.setText("250,500,1000")
    view.limit.setValue(12)
    shares: list[int] = []
    view.progress.valueChanged.connect(lambda v: shares.append(v) if view.progress.maximum() == 1000 else None)
    with qtbot.waitSignal(view.runFinished, timeout=TOUR_MS):
        view.run_button.click()
    assert shares == sorted(shares), "the sweep's bar never moves back"
    assert len(set(window.model.colours.values())) == 2, "one colour per configuration line"
    check(window, screen, "a lab sweep with budgets")
    for tab in range(view.lower_tabs.count()):  # questions, flips, against a baseline
        view.lower_tabs.setCurrentIndex(tab)
        check(window, screen, f"the lab's {view.lower_tabs.tabText(tab)!r} tab")
    view.lower_tabs.setCurrentIndex(0)
    view.plot_tabs.setCurrentIndex(1)
    check(window, screen, "the lab's curves by budget")
    view.lab_tabs.setCurrentWidget(view.advise)
    check(window, screen, "the lab's Advise tab")
    view.lab_tabs.setCurrentIndex(0)

    # 3. a double click on a question of the lab
    view.select_configuration(view.results[1].config.key)
    row = next(i for i in range(view.questions.rowCount()) if view.questions.item(i, 2).text() != "-")
    view.questions.itemActivated.emit(view.questions.item(row, 1))
    settle(qtbot, window)
    assert window.model.reference and window.compare.a.metrics.isVisible()
    check(window, screen, "a double click on a question")

    # 4. a hand-typed question (the window is the active one, as when a researcher types)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    window.question.clear()
    qtbot.keyClicks(window.question, TYPED)
    check(window, screen, "typing a question")  # the earlier passages say so until Enter
    qtbot.keyClick(window.question, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert not window.model.reference and not window.compare.a.metrics.isVisible()
    check(window, screen, "a hand-typed question")

    # 5. answers from A and B (Ctrl+Enter in the question bar)
    window.model.set_llm(LLMChoice("extractive"))
    window.answer.set_sides("A and B")
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        qtbot.keyClick(window.question, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    check(window, screen, "answers from A and B")
    window.answer.show_prompt.setChecked(True)  # the prompt below the answers: the pane scrolls now
    check(window, screen, "Show prompt")

    # 6. a chunker change on B
    b = window.compare.b
    b.set_knobs_shown(True)
    combo = b.strategy_panel.chunker.combo
    combo.setCurrentIndex(combo.findData("recursive"))
    check(window, screen, "choosing a chunker on B")  # B's earlier passages say what they are meanwhile
    qtbot.waitUntil(lambda: window.model.strategy("B").chunk.chunker != "", timeout=WAIT_MS)
    settle(qtbot, window, ("B",))
    check(window, screen, "a chunker change on B")

    # 7. Ctrl+K in the question bar: both sides' knobs
    window.question.setFocus()
    qtbot.keyClick(window.question, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.compare.a.strategy_panel.isVisible() == window.compare.b.strategy_panel.isVisible()
    check(window, screen, "Ctrl+K")

    # 8. the library collapsed (and shown again)
    shown = window.left_tabs.isVisible()
    qtbot.keyClick(window.question, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.left_tabs.isVisible() is not shown
    check(window, screen, "the library collapsed")
    window.set_library_shown(True)
    check(window, screen, "the library shown")
    a, b = window.compare.a.width(), window.compare.b.width()
    assert abs(a - b) <= 0.05 * (a + b), f"A and B share the width ({a} vs {b} px)"
