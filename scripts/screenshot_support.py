"""What every screenshot script shares: the real window at laptop size over a fresh data folder holding the
sample corpus, waiting on the event loop, and saving a grab of the window.

Offscreen is enough (the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshot_X.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's workbench, not an installed one
from workbench.ui.app.launch import SAMPLE_DIR, SELF_TEST_QUESTION, make_app

DEFAULT_SIZE = (1366, 768)


def screen_size() -> tuple[int, int]:
    """The laptop screen the shots are taken on: ``--size=WxH`` (default 1366×768)."""
    given = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--size=")), "")
    if not given:
        return DEFAULT_SIZE
    width, height = given.lower().split("x")
    return int(width), int(height)


WIDTH, HEIGHT = screen_size()
__all__ = ["HEIGHT", "SELF_TEST_QUESTION", "WIDTH", "LaptopWindow", "output_dir", "shot_name"]


def shot_name(name: str) -> str:
    """``name`` as saved at this size: ``laptop-explore.png`` at 1366×768, ``laptop-explore-1280x720.png``."""
    if (WIDTH, HEIGHT) == DEFAULT_SIZE:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{WIDTH}x{HEIGHT}{dot}{suffix}"


def output_dir() -> Path:
    """The folder named by the first non-option argument (default ``docs/screenshots``), created."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(args[0] if args else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


class LaptopWindow:
    """The main window at 1366×768 (or ``--size``) on a fresh data folder (``prefix`` names the temporary
    folder). The window fits itself to its screen's available area (``layout.available_rect``): here that is
    a laptop screen, whatever screen the platform has (the offscreen one is 800×800)."""

    def __init__(self, prefix: str) -> None:
        self.app = make_app()
        from PySide6.QtCore import QRect

        from workbench.core.workspace import Workspace
        from workbench.ui.basics.settings import open_settings
        from workbench.ui.window import layout
        from workbench.ui.window.main_window import MainWindow

        layout.available_rect = lambda _window: QRect(0, 0, WIDTH, HEIGHT)

        tmp = Path(tempfile.mkdtemp(prefix=f"workbench-{prefix}-"))
        self.ws = Workspace(tmp / "data")
        self.window: Any = MainWindow(self.ws, settings=open_settings(str(tmp / "settings.ini")))
        print(f"screenshot: initial geometry {self.window.geometry()}")
        self.window.setGeometry(0, 0, WIDTH, HEIGHT)
        self.window.show()

    def wait(self, done: Callable[[], object], seconds: float = 300.0,
             why: Callable[[], str] = lambda: "") -> None:
        """Run the event loop until ``done()`` is true; exit with ``why()`` after ``seconds``."""
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                raise SystemExit(f"screenshot: timed out {why()}".rstrip())
            self.app.processEvents()
            time.sleep(0.01)

    def settle(self, seconds: float = 0.8) -> None:
        """Run the event loop for ``seconds`` (layouts and repaints catch up)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.02)

    def index_sample(self) -> None:
        """Index the sample corpus as the welcome screen does, then collapse the library (Ctrl+Shift+L)."""
        compare = self.window.compare
        self.wait(lambda: not compare.a.controller.building and not compare.b.controller.building)
        done: list[object] = []
        self.window.library.indexingFinished.connect(done.append)
        self.window.index_sample(SAMPLE_DIR)
        self.wait(lambda: done)
        print("screenshot: sample indexed", flush=True)
        self.window.menu_actions["library"].trigger()

    def save(self, out: Path, name: str) -> Path:
        """Grab the window into ``out/name``."""
        path = out / shot_name(name)
        self.window.grab().save(str(path))
        print(f"screenshot: {path}")
        return path

    def close(self) -> None:
        """Close the window and the workspace."""
        self.window.close()
        self.ws.close()
