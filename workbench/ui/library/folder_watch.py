"""Watching the data folder: what it holds goes to the model whenever it changed, whoever changed it.

A job of this window (the library's indexing, a lab sweep that indexes its corpora, a side's re-chunk) or
another process on the same folder (the command line) moves the store's version. The watch reads that one
number on a timer and whenever the application comes back to the front, and only when it moved reads the
documents' ids and digests; ``WorkbenchModel.set_folder`` then tells the views (the library, the sides, the
lab) what changed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

from workbench.ui.model import Folder, WorkbenchModel

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace

log = logging.getLogger(__name__)
POLL_MS = 2000  # one SELECT of one row: a few microseconds every two seconds


class FolderWatch(QObject):
    """Polls ``workspace.records.data_version()`` (every ``POLL_MS`` and when the application is activated) and hands
    the folder to ``model`` when it moved."""

    def __init__(self, workspace: Workspace, model: WorkbenchModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ws = workspace
        self.model = model
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._state_changed)
        self.poll()

    def poll(self) -> bool:
        """Read the folder's version; when it moved, read its documents and give both to the model. Returns
        whether it moved. A folder that cannot be read now is tried again at the next poll."""
        try:
            version = self.ws.records.data_version()
            if version == self.model.folder.version:
                return False
            documents = tuple((int(d["id"]), str(d["sha256"])) for d in self.ws.records.documents())
        except Exception:  # a busy or damaged store: the library says so when it refreshes
            log.debug("data folder poll failed", exc_info=True)
            return False
        self.model.set_folder(Folder(version, documents))
        return True

    def _state_changed(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive:
            self.poll()
