"""The QApplication and what every entry point shares: the bundled sample corpus (from ``basics.bundled``),
the self-test question, the offscreen fallback and the process's age (cold start). A leaf module of ``ui/app``
(launch and the self-test import it; it imports neither), so the entry points do not import each other."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.ui.basics.bundled import SAMPLE_DIR

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

__all__ = ["SAMPLE_DIR", "SELF_TEST_QUESTION", "headless_if_needed", "make_app", "process_age_s"]

SELF_TEST_QUESTION = "Why must the database migration run before the rollout?"


def make_app() -> QApplication:
    """The QApplication (created once), with names used by QSettings and the window system."""
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("Chunk Workbench")
    app.setOrganizationName("chunk-workbench")
    app.setApplicationDisplayName("Chunk Workbench")
    app.setStyleSheet("QToolTip { background: #ffffff; color: #1d2329; border: 1px solid #d0d7de; padding: 4px; }")
    return app


def headless_if_needed() -> None:
    """Use the offscreen platform when no display is available (CI, packaging)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def process_age_s() -> float | None:
    """Seconds since this process started (Linux: from ``/proc``, so the bundle's loader and Python's start
    are counted), or None where that cannot be read."""
    try:
        stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start_ticks = int(stat[19])  # field 22 of proc(5): starttime, counted after the ")" that ends field 2
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
