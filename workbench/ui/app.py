"""Desktop entry point: ``python -m workbench`` / ``workbench-gui``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "resources" / "sample"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options of the desktop app."""
    p = argparse.ArgumentParser(prog="workbench-gui", description="Chunk Workbench desktop app")
    p.add_argument("--data-dir", help="data folder (default: $WORKBENCH_DATA or the per-user data folder)")
    p.add_argument("--no-sample", action="store_true", help="do not index the sample corpus on first start")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Start the Qt application and show the main window."""
    args = parse_args(argv if argv is not None else sys.argv[1:])
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    from workbench.core.workspace import Workspace

    app = QApplication.instance() or QApplication(sys.argv[:1])
    ws = Workspace(args.data_dir)
    if not args.no_sample and not ws.store.documents() and SAMPLE_DIR.is_dir():
        ws.add_paths([str(SAMPLE_DIR)])
    window = QMainWindow()
    window.setWindowTitle("Chunk Workbench")
    window.setCentralWidget(QLabel(f"{len(ws.store.documents())} documents in {ws.data_dir}"))
    window.resize(1000, 700)
    window.show()
    return app.exec()
