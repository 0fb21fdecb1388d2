"""Desktop entry point: ``python -m workbench`` / ``workbench-gui``.

Options: ``--data-dir`` (default: ``$WORKBENCH_DATA``, else the folder chosen in Settings…, else the per-user
data folder), ``--no-sample`` (on later starts, do not open the welcome — which offers the bundled sample
corpus — over an empty library) and ``--self-test`` (index the sample corpus in a temporary folder through the
real window, run a search, exit 0 on success — packaging uses it). Nothing is indexed without the user's choice.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.ui.app.qt_app import SAMPLE_DIR, SELF_TEST_QUESTION, headless_if_needed, make_app

if TYPE_CHECKING:
    from types import TracebackType

    from PySide6.QtCore import QSettings

    from workbench.core.index.locking import FileLock
    from workbench.ui.window.main_window import MainWindow

log = logging.getLogger("workbench.ui")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options of the desktop app."""
    p = argparse.ArgumentParser(prog="workbench-gui", description="Chunk Workbench desktop app")
    p.add_argument("--data-dir", help="data folder (default: $WORKBENCH_DATA, else the one chosen in Settings, "
                                       "else the per-user data folder)")
    p.add_argument("--no-sample", action="store_true",
                   help="on an empty library, do not open the welcome that offers the sample corpus "
                        "(it opens on the very first start anyway)")
    p.add_argument("--self-test", action="store_true",
                   help="index the sample corpus in a temporary folder, run a search, exit 0 on success")
    return p.parse_args(argv)


def install_excepthook(window: MainWindow) -> None:
    """Uncaught errors go to the log and the window's status bar, not only to stderr."""
    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        log.error("uncaught error", exc_info=(kind, value, tb))
        try:
            window.show_error(f"{kind.__name__}: {value}")
        except RuntimeError:  # the window is gone
            sys.__excepthook__(kind, value, tb)

    sys.excepthook = hook


def startup_choices(args: argparse.Namespace, settings: QSettings) -> tuple[str | None, str | None, str]:
    """Data folder and embedding model to open, plus a note for the user ("" when none).

    The data folder is ``--data-dir``, else ``$WORKBENCH_DATA``, else the one stored in the settings, else
    the per-user default (None). The embedding model is the stored local folder when it is still a model
    folder, else the installed default (None).
    """
    from workbench.ui.basics import settings as prefs

    data_dir = args.data_dir or os.environ.get("WORKBENCH_DATA") or prefs.text(settings, prefs.DATA_DIR) or None
    model = prefs.text(settings, prefs.EMBEDDING_MODEL) or None
    note = ""
    if model is not None:
        problem = prefs.embedding_folder_problem(model)
        if problem:
            log.warning("stored embedding model ignored: %s", problem)
            note = f"The embedding model in Settings is not usable ({problem}); using the installed default."
            model = None
    return data_dir, model, note


def start_window(args: argparse.Namespace, settings: QSettings,
                 log_file: Path | None = None) -> tuple[MainWindow, FileLock] | int:
    """Open the workspace and show the window: ``(window, app_lock)``, or an exit code when it cannot start.

    The welcome opens over the window on the very first start, and on later starts with an empty library
    (a new data folder) unless ``--no-sample``; nothing is indexed until the user picks something there.
    """
    from PySide6.QtWidgets import QMessageBox

    from workbench.core.index.locking import FileLock, LockBusy
    from workbench.core.store import StoreError
    from workbench.core.workspace import Workspace
    from workbench.ui.basics import settings as prefs
    from workbench.ui.library.welcome import mark_welcome_seen, welcome_due
    from workbench.ui.window.main_window import MainWindow

    data_dir, model, note = startup_choices(args, settings)
    try:
        ws = Workspace(data_dir, model_path=model)
    except (StoreError, RuntimeError, OSError) as exc:
        log.error("cannot open the data folder: %s", exc)
        QMessageBox.critical(None, "Chunk Workbench", f"Cannot open the data folder:\n\n{exc}")
        return 2
    app_lock = FileLock(ws.data_dir / "app.lock")
    try:
        app_lock.acquire(timeout=0)
    except LockBusy:
        pid = app_lock.holder_pid()
        ws.close()
        QMessageBox.warning(None, "Chunk Workbench", f"{ws.data_dir} is already open in another workbench "
                            f"window{f' (process {pid})' if pid else ''}. Use that window or pick another "
                            "folder with --data-dir.")
        return 3
    workers = prefs.cluster_workers(settings)
    if workers:  # Settings: builds embed on a private local Ray (started on the first build that needs it)
        from workbench.core.index.cluster import Cluster, ClusterAddress

        ws.sets.cluster = Cluster(ClusterAddress(workers=workers))
        log.info("chunk-set builds embed on a local Ray with %d workers", workers)
    window = MainWindow(ws, settings=settings, log_file=log_file)
    window.show()
    log.info("started with data folder %s", ws.data_dir)
    if note:
        window.show_message(note)
    if welcome_due(settings, library_empty=not ws.records.documents(), offer_on_empty=not args.no_sample):
        mark_welcome_seen(settings)
        window.open_welcome()
    return window, app_lock


def main(argv: Sequence[str] | None = None) -> int:
    """Start the Qt application and show the main window."""
    args = parse_args(argv if argv is not None else sys.argv[1:])
    if args.self_test:
        from workbench.ui.app.self_test import run_self_test

        return run_self_test()
    from workbench.ui.app.platform_check import platform_problem

    problem = platform_problem()  # before Qt loads: a plugin that cannot load aborts the process silently
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from workbench.ui.app.logs import setup_logging

    log_file = setup_logging()
    app = make_app()
    from workbench.ui.basics.settings import open_settings

    started = start_window(args, open_settings(), log_file)
    if isinstance(started, int):
        return started
    window, app_lock = started
    install_excepthook(window)
    try:
        return app.exec()
    finally:
        if window.ws.sets.cluster is not None:  # the private Ray and its temporary folder go with the window
            window.ws.sets.cluster.close()
        app_lock.release()


__all__ = ["SAMPLE_DIR", "SELF_TEST_QUESTION", "headless_if_needed", "main", "make_app",
           "parse_args", "start_window", "startup_choices"]
