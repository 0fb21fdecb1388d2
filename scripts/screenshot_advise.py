"""The lab's Advise tab at laptop size (1366×768, or ``--size=1280x720``): a short cross-fitted advice run (5 folds)
on the tech24 question set (a small space: fixed and semchunk chunks, two sizes, hybrid, three expansions,
top-5/10, a 300-token budget), its Pareto plot of the search on all questions, the verdict and the Folds tab: one
row per fold and the stability (``advise-tab.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_advise.py [OUT_DIR]
"""

from __future__ import annotations

from pathlib import Path

from screenshot_support import LaptopWindow, output_dir

TECH24 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "tech24"


def main() -> None:
    """Load tech24 in the lab, run a short advice in the Advise tab and save ``advise-tab.png``."""
    out = output_dir()
    shot = LaptopWindow("advise")
    from workbench.core.evaluate.advise.space import Space

    window = shot.window
    lab = window.eval_view
    window.set_mode("evaluate")
    lab.load_question_set(TECH24)
    lab.lab_tabs.setCurrentWidget(lab.advise)
    view = lab.advise
    view.space_for = lambda budget: Space(("fixed", "semchunk"), (64, 128), ("hybrid",),
                                          ("none", "neighbours-2", "multi-granularity"), (5, 10), budget)
    saved: list[str] = []
    view.strategySaved.connect(saved.append)
    view.limit.setValue(10)
    view.budget.setValue(300)
    view.start()
    shot.wait(lambda: saved or not view.running, seconds=1200, why=lambda: view.status.text())
    view.lower_tabs.setCurrentIndex(1)  # the folds
    shot.settle()
    print(f"screenshot: {view.status.text()}")
    shot.save(out, "advise-tab.png")
    shot.close()


if __name__ == "__main__":
    main()
