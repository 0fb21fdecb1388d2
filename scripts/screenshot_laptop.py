"""Laptop-size screenshots of the real window at 1366×768 in its default layout: Explore side by side after a
search on the sample corpus (``laptop-explore.png``), then answered from A and B
(``laptop-answer.png``), the evaluation lab after a sweep of the bundled
benchmark (``laptop-lab.png``) and after a sweep with budgets, its recall-per-context-token curves shown
(``lab-curves.png``); both lab shots are skipped with ``--explore-only``.

``--size=1280x720`` takes them on that screen instead (saved as ``laptop-explore-1280x720.png`` …).

Run under Xvfb from the repository root:
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=xcb \\
    xvfb-run -a -s "-screen 0 1366x768x24 -dpi 96" .venv/bin/python scripts/screenshot_laptop.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_support import SELF_TEST_QUESTION, LaptopWindow, output_dir, shot_name


def main() -> None:
    """Index the sample corpus, search side by side and save ``laptop-explore.png`` (then the lab shots)."""
    out = output_dir()
    shot = LaptopWindow("laptop")
    window, wait, settle = shot.window, shot.wait, shot.settle
    shot.index_sample()
    window.side_by_side.setChecked(True)
    shown = {"A": [], "B": []}
    window.compare.a.resultShown.connect(shown["A"].append)
    window.compare.b.resultShown.connect(shown["B"].append)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    wait(lambda: shown["A"] and shown["B"])
    window.compare.a.results.activate(0)
    settle()
    heights = {s: getattr(window.compare, s).results.height() for s in "ab"}
    print(f"screenshot: window {window.size().toTuple()}, passage heights {heights}")
    shot.save(out, "laptop-explore.png")
    answer(window, out, wait, settle)
    if "--explore-only" not in sys.argv:
        lab(window, out, wait, settle)
        lab_curves(window, out, wait, settle)
    shot.close()


def answer(window, out: Path, wait, settle) -> None:
    """Answer from A and B (extractive: no model needed) and save ``laptop-answer.png``: the passages keep half
    the height, the answer pane is sized to the answers, their stats and cited passages in view."""
    from workbench.ui.basics.settings import LLMChoice

    window.model.set_llm(LLMChoice("extractive"))
    window.answer.set_sides("A and B")
    finished = []
    window.answer.runFinished.connect(finished.append)
    window.ask()
    wait(lambda: finished)
    settle()
    heights = {s: getattr(window.compare, s).results.height() for s in "ab"}
    print(f"screenshot: answered, passage heights {heights} of {window.height()}")
    path = out / shot_name("laptop-answer.png")
    window.grab().save(str(path))
    print(f"screenshot: {path}")


def lab(window, out: Path, wait, settle) -> None:
    """Sweep two strategies over one corpus of the bundled benchmark in the lab and save ``laptop-lab.png``."""
    view = window.eval_view
    window.set_mode("evaluate")
    assert view.load_question_set("chroma-general", corpus="state_of_the_union"), view.status.text()
    view.set_checked(["plain", "neighbours"])
    view.grid.setText("window=0,1,2")
    run_sweep(view, wait)
    view.summary.selectRow(1)
    view.compare_to.setCurrentIndex(1)
    settle()
    path = out / shot_name("laptop-lab.png")
    window.grab().save(str(path))
    print(f"screenshot: {path}")


def run_sweep(view, wait) -> None:
    """Start the lab's sweep and wait until it has finished."""
    finished = []
    view.runFinished.connect(finished.append)
    assert view.start(), view.status.text()
    wait(lambda: finished, 900.0)


def lab_curves(window, out: Path, wait, settle) -> None:
    """Sweep four strategies at five budgets over the same corpus and save ``lab-curves.png`` (the curves tab,
    a point of budgeted-neighbours clicked: its questions below)."""
    view = window.eval_view
    view.set_checked(["plain", "neighbours", "budgeted-neighbours", "segments-balanced"])
    view.grid.setText("")
    view.budgets.setText("250,500,1000,1500,2000")
    run_sweep(view, wait)
    view.compare_to.setCurrentIndex(0)
    settle()
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    plot = view.curve_plot  # click a point, as a user would: its configuration's questions show below
    QTest.mouseClick(plot, Qt.MouseButton.LeftButton, pos=plot.point_position("budgeted-neighbours budget=1000"))
    settle()
    print(f"screenshot: selected {view.selected_result().config.key}")
    path = out / shot_name("lab-curves.png")
    window.grab().save(str(path))
    print(f"screenshot: {path}")


if __name__ == "__main__":
    main()
