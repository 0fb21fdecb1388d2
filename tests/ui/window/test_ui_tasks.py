"""Each task owns the window (issue 50): Explore, Mark questions, Shape cuts and the Lab, one click or key apart,
each keeping its own state; at the size the window opens on a 1366×768 and a 1280×720 screen (1229×691 and
1152×648), maximised, and after restoring a saved geometry, every view shown has its declared minimum
(``window.rooms.MINIMUMS``: plots ≥ 200 px, open knobs ≥ 4 rows, the document view ≥ 12 lines while marking, an
answer ≥ 6 lines, table headers whole or elided with a tooltip) and no page scrolls as a whole (pytest-qt,
offscreen, hashed embedder)."""

from __future__ import annotations

import pytest
from ui_support import WAIT_MS, on_screen, search

from workbench.core.spans import Span

pytest_plugins = ["ui_support"]

SCREENS = {"1366x768": (1366, 768), "1280x720": (1280, 720)}


def _settle(qtbot, ms: int = 150) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        qtbot.wait(ms // 3)


@pytest.fixture
def marked_ws(hash_sample_ws):
    """The sample corpus with a stored set of two questions marked by hand."""
    ws = hash_sample_ws
    ids = [int(d["id"]) for d in ws.records.documents()]
    ws.questions.create("marked", library=True)
    for d in ids[:2]:
        ws.questions.add("marked", f"what does document {d} begin with?", [Span(d, 0, 60)])
    return ws


def _check(qtbot, window, where: str, problems: dict[str, list[str]]) -> None:
    from workbench.ui.window.rooms import shortfalls

    _settle(qtbot)
    found = shortfalls(window)
    if found:
        problems[where] = found


def _walk(qtbot, window) -> dict[str, list[str]]:
    """Every task and the views it shows, each checked against the declared minimums; returns what fell short."""
    from workbench.ui.basics.settings import LLMChoice

    problems: dict[str, list[str]] = {}
    window.model.set_side_by_side(True)
    search(qtbot, window, sides=("a", "b"))
    _check(qtbot, window, "explore", problems)
    compare = window.compare
    compare.set_knobs_shown(True)
    _check(qtbot, window, "explore, knobs open", problems)
    compare.set_knobs_shown(False)
    compare.bottom_tabs.setCurrentWidget(compare.space)
    qtbot.waitUntil(lambda: compare.space.data is not None, timeout=WAIT_MS)
    _check(qtbot, window, "explore, embedding space", problems)
    window.model.set_llm(LLMChoice("extractive"))
    window.answer.set_sides("A and B")
    with qtbot.waitSignal(window.answer.runFinished, timeout=WAIT_MS):
        window.ask()
    _check(qtbot, window, "explore, answers of A and B", problems)

    window.set_task("mark")
    tab = window.eval_view.questions_tab
    tab.refresh(choose="marked")
    tab.table.selectRow(0)
    _check(qtbot, window, "mark", problems)
    window.set_task("cuts")
    _check(qtbot, window, "cuts", problems)

    lab = window.eval_view
    window.set_task("lab")
    assert lab.load_stored_set("marked")
    lab.set_checked(["plain", "neighbours"])
    lab.budgets.setText("250,500")
    with qtbot.waitSignal(lab.runFinished, timeout=WAIT_MS):
        assert lab.start(), lab.status.text()
    for page in (lab.curves, lab.plot):
        lab.plot_tabs.setCurrentWidget(page)
        _check(qtbot, window, f"lab, {lab.plot_tabs.tabText(lab.plot_tabs.currentIndex())}", problems)
    for page in (lab.advise, lab.questions_tab):
        lab.lab_tabs.setCurrentWidget(page)
        _check(qtbot, window, f"lab, {lab.lab_tabs.tabText(lab.lab_tabs.currentIndex())}", problems)
    return problems


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("how", ["opening", "maximised"])
def test_every_view_has_its_declared_room_in_every_task(qtbot, monkeypatch, make_window, marked_ws, screen, how):
    width, height = SCREENS[screen]
    available = on_screen(monkeypatch, width, height)
    window = make_window(marked_ws)
    opening = (int(width * 0.9), int(height * 0.9))
    assert window.size().toTuple() == opening, "the window opens at 90 % of the screen"
    if how == "maximised":
        window.setGeometry(available)
    _settle(qtbot)
    problems = _walk(qtbot, window)
    assert not problems, "\n".join(f"{where}: {'; '.join(lines)}" for where, lines in problems.items())


def test_a_restored_geometry_gives_every_view_its_room(qtbot, monkeypatch, make_window, marked_ws, ui_settings):
    from PySide6.QtCore import QRect

    on_screen(monkeypatch, 1280, 720)
    first = make_window(marked_ws)
    first.setGeometry(QRect(20, 20, 1180, 660))
    first.set_task("mark")
    first.close()  # saves the geometry
    window = make_window(marked_ws, ui_settings)
    assert window.size().toTuple() == (1180, 660), "the stored geometry fits: it is kept"
    problems = _walk(qtbot, window)
    assert not problems, "\n".join(f"{where}: {'; '.join(lines)}" for where, lines in problems.items())


def test_each_task_is_one_key_apart_and_keeps_its_own_state(qtbot, monkeypatch, make_window, marked_ws):
    from workbench.ui.window.actions import spec

    on_screen(monkeypatch, 1280, 720)
    window = make_window(marked_ws)
    search(qtbot, window)
    assert window.task == "explore" and window.mode_buttons["explore"].isChecked()
    for action, task in (("mark", "mark"), ("cuts", "cuts"), ("evaluate", "lab"), ("explore", "explore")):
        assert spec(action).shortcut, f"{action} has a key"
        window.menu_actions[action].trigger()
        assert window.task == task and window.mode_buttons[action].isChecked()
    assert window.mode() == "explore"

    window.set_task("mark")
    _settle(qtbot)
    tab = window.eval_view.questions_tab
    assert window.left_tabs.currentWidget() is tab and window.left_tabs.isVisible(), "the questions beside"
    assert window.eval_view.lab_tabs.indexOf(tab) < 0
    total = sum(window.main_split.sizes())
    window.main_split.setSizes([500, total - 500])
    mark_sizes = window.main_split.sizes()
    window.set_task("cuts")
    _settle(qtbot)
    assert window.compare.knobs_shown() and window.compare.doc_pane.chunk_map_side() == "A", \
        "shaping cuts: the knobs open over the chunk map"
    assert window.left_tabs.indexOf(tab) < 0 and window.eval_view.lab_tabs.indexOf(tab) == 2, \
        "the Questions tab is back in the lab"
    window.set_task("explore")
    _settle(qtbot)
    assert not window.compare.knobs_shown(), "Explore as it was left: its knobs closed"
    window.set_task("mark")
    _settle(qtbot)
    assert window.main_split.sizes() == mark_sizes, "marking keeps its own splitter sizes"
    assert not window.compare.knobs_shown()


def test_a_question_chosen_while_marking_stays_in_the_marking_task(qtbot, monkeypatch, make_window, marked_ws):
    on_screen(monkeypatch, 1280, 720)
    window = make_window(marked_ws)
    window.set_task("mark")
    tab = window.eval_view.questions_tab
    tab.refresh(choose="marked")
    tab.table.selectRow(1)
    _settle(qtbot)
    q = marked_ws.questions.question("marked", 2)
    assert window.task == "mark", "the task stays: the document view beside the list shows the question"
    assert window.model.question == q.text and window.compare.doc_pane.doc_id == q.references[0].doc_id


def test_the_tasks_arrangements_survive_a_restart(qtbot, monkeypatch, make_window, marked_ws, ui_settings):
    on_screen(monkeypatch, 1280, 720)
    first = make_window(marked_ws)
    _settle(qtbot)
    explore_library = first.left_tabs.isVisibleTo(first)
    explore_main = first.main_split.sizes()
    first.set_task("mark")
    _settle(qtbot)
    total = sum(first.main_split.sizes())
    first.main_split.setSizes([520, total - 520])
    mark_main = first.main_split.sizes()
    first.close()  # closed while marking
    window = make_window(marked_ws, ui_settings)
    _settle(qtbot)
    assert window.task == "explore" and window.left_tabs.isVisibleTo(window) == explore_library
    if explore_library:
        assert window.main_split.sizes() == explore_main, "Explore opens as Explore was, not as marking was"
    assert window.left_tabs.indexOf(window.eval_view.questions_tab) < 0
    window.set_task("mark")
    _settle(qtbot)
    assert window.main_split.sizes() == mark_main, "marking opens as it was left"
