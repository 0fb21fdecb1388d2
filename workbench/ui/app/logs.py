"""The log file (in the user log folder) and routing of Qt messages and uncaught errors into it."""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

from workbench.core.data_folder import APP_NAME

LOG_NAME = "workbench.log"
_QT_LEVELS = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}


def log_dir() -> Path:
    """The user log folder (``$WORKBENCH_LOG_DIR`` overrides it)."""
    env = os.environ.get("WORKBENCH_LOG_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def setup_logging(folder: Path | None = None, level: int = logging.INFO) -> Path | None:
    """Log to ``folder/workbench.log`` (rotating); returns the file, or None when it cannot be written."""
    folder = folder or log_dir()
    root = logging.getLogger()
    root.setLevel(level)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_NAME
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3,
                                                       encoding="utf-8")
    except OSError:
        logging.basicConfig(level=level)
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"))
    root.addHandler(handler)
    qInstallMessageHandler(_qt_message)
    return path


def _qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's messages go to the log; a fatal one (Qt aborts right after it) goes to the terminal too."""
    logging.getLogger("qt").log(_QT_LEVELS.get(kind, logging.INFO), "%s", message)
    if kind == QtMsgType.QtFatalMsg:
        print(f"workbench: Qt stopped: {message}", file=sys.stderr, flush=True)
