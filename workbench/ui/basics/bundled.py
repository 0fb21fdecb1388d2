"""Where the bundled sample corpus lies: the window's *Index the sample* and the entry points' self-test read it."""

from __future__ import annotations

from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parents[3] / "resources" / "sample"  # <root>/workbench/ui/basics/bundled.py
