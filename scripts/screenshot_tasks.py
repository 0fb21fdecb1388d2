"""Each task of the window at the size it opens on a laptop (90 % of the screen's available area): Explore side by
side after a search, Mark questions with a stored set, Shape cuts with the knobs open and the chunk map, and the
Lab after a sweep — on a 1366×768 screen (1229×691) and a 1280×720 screen (1152×648). Saves
``task-<name>-<W>x<H>.png`` (small PNGs) and prints every view's declared minimum against what it got.

The sample corpus is indexed with the tests' hashed embedder (no model download): the passages differ from the
real model's, the layout does not.

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_tasks.py [OUT_DIR] [--screen=1366x768]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's workbench, not an installed one
sys.path.insert(0, str(ROOT / "tests"))  # the hashed embedder

from workbench.ui.app.launch import SAMPLE_DIR, SELF_TEST_QUESTION, make_app  # noqa: E402

SCREENS = [(1366, 768), (1280, 720)]


def screens() -> list[tuple[int, int]]:
    """``--screen=WxH`` (one screen), else both laptop screens."""
    given = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--screen=")), "")
    if not given:
        return SCREENS
    width, height = given.lower().split("x")
    return [(int(width), int(height))]


def output_dir() -> Path:
    """The folder named by the first non-option argument (default ``docs/screenshots``), created."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(args[0] if args else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def settle(app: Any, seconds: float = 0.6) -> None:
    """Run the event loop for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def wait(app: Any, done: Any, seconds: float = 300.0) -> None:
    """Run the event loop until ``done()``."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit("screenshot: timed out")
        app.processEvents()
        time.sleep(0.01)


def shoot(screen: tuple[int, int], out: Path) -> None:
    """Open the window on ``screen``, walk the four tasks and save one picture of each."""
    app = make_app()
    from fake_embedder import HashEmbedder
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QImage

    from workbench.core.workspace import Workspace
    from workbench.ui.basics.settings import open_settings
    from workbench.ui.window import layout
    from workbench.ui.window.main_window import MainWindow
    from workbench.ui.window.rooms import shortfalls

    layout.available_rect = lambda _window: QRect(0, 0, *screen)
    tmp = Path(tempfile.mkdtemp(prefix="workbench-tasks-"))
    ws = Workspace(tmp / "data", embedder=HashEmbedder())
    ws.add_paths([str(SAMPLE_DIR)])
    names = {Path(str(r["path"])).name: int(r["id"]) for r in ws.records.documents()}
    bank = ws.questions
    bank.create("orbit and lab")
    for doc, question, quote in [
            ("deploy-guide.md", "Why must the migration run before the rollout?",
             "The database schema must be migrated before any new replica starts."),
            ("lab-safety.md", "What gloves are worn in the wet lab?", "Wear nitrile gloves and a buttoned lab coat")]:
        bank.add("orbit and lab", question, [bank.locate(quote, [names[doc]])])
    window: Any = MainWindow(ws, settings=open_settings(str(tmp / "settings.ini")))
    window.show()
    settle(app)
    size = f"{window.width()}x{window.height()}"
    print(f"screen {screen[0]}x{screen[1]}: the window opens at {size}")
    window.model.set_side_by_side(True)
    shown: dict[str, list[object]] = {"A": [], "B": []}
    window.compare.a.resultShown.connect(shown["A"].append)
    window.compare.b.resultShown.connect(shown["B"].append)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    wait(app, lambda: shown["A"] and shown["B"])
    for task in ("explore", "mark", "cuts", "lab"):
        window.set_task(task)
        if task == "mark":
            tab = window.eval_view.questions_tab
            tab.refresh(choose="orbit and lab")
            tab.table.selectRow(0)
        if task == "lab":
            lab = window.eval_view
            lab.load_stored_set("orbit and lab")
            lab.set_checked(["plain", "neighbours"])
            lab.budgets.setText("250,500,1000")
            finished: list[object] = []
            lab.runFinished.connect(finished.append)
            assert lab.start(), lab.status.text()
            wait(app, finished.__len__, 600.0)
        settle(app, 1.0)
        path = out / f"task-{task}-{size}.png"
        image = window.grab().toImage().scaled(window.width() * 3 // 4, window.height() * 3 // 4,
                                               Qt.AspectRatioMode.IgnoreAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation)
        image.convertToFormat(QImage.Format.Format_Indexed8).save(str(path))  # a small PNG
        short = shortfalls(window)
        print(f"  {task}: {path.name}; " + ("every view has its room" if not short else "; ".join(short)))
    window.close()
    ws.close()


def main() -> None:
    """Both screens (or ``--screen``), one process each would be cleaner; one is enough here."""
    out = output_dir()
    for screen in screens():
        shoot(screen, out)


if __name__ == "__main__":
    main()
