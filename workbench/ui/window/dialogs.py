"""The main window's non-blocking dialogs and its benchmark tour: each opened with the window's model, workspace
and callbacks, and kept while it is open (replaced by the next of its kind)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QWidget

from workbench.ui.answer.llm_tools import open_contextualize, open_make_questions
from workbench.ui.basics.settings import LLMChoice
from workbench.ui.dialogs.about import AboutDialog
from workbench.ui.dialogs.settings_dialog import Prober, SettingsDialog, open_settings_dialog
from workbench.ui.jobs.workers import JobRunner
from workbench.ui.library.welcome import WelcomeChoices, WelcomeDialog, open_welcome
from workbench.ui.window.benchmark_tour import BenchmarkTour, TourHost

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace


class DialogHost(TourHost, Protocol):
    """What the dialogs need of the window, beside what the tour needs."""

    ws: Workspace
    settings: QSettings
    store_jobs: JobRunner
    log_file: Path | None

    def index_sample(self) -> Any: ...
    def load_in_lab(self, folder: str) -> bool: ...


class WindowDialogs:
    """The window's dialogs and benchmark tour, while open; ``window`` is the host, ``parent`` the widget the
    dialogs belong to (both the main window)."""

    def __init__(self, window: DialogHost, parent: QWidget) -> None:
        self.window = window
        self.parent = parent
        self.welcome: WelcomeDialog | None = None
        self.settings: SettingsDialog | None = None
        self.tool: QDialog | None = None  # Contextualize chunks… or Make questions…
        self.about: AboutDialog | None = None
        self.tour: BenchmarkTour | None = None

    def open_welcome(self, prober: Prober | None = None) -> WelcomeDialog:
        """Help → Welcome… (and the first start): pick a first library; nothing is indexed on Skip."""
        w = self.window
        choices = WelcomeChoices(w.index_sample, self.start_benchmark, lambda f: w.library.index_paths([f]))
        self.welcome = open_welcome(self.parent, w.ws.data_dir, w.model.llm, choices, prober)
        return self.welcome

    def start_benchmark(self) -> BenchmarkTour:
        """The welcome's benchmark path (``benchmark_tour``) on the window."""
        self.tour = BenchmarkTour(self.window, parent=self.parent)
        self.tour.start()
        return self.tour

    def open_settings(self) -> SettingsDialog:
        """File → Settings…: saving gives the model the answering backend at once."""
        w = self.window
        self.settings = open_settings_dialog(self.parent, w.settings, w.ws.data_dir, w.ws.embedder.model_id,
                                             self._settings_saved)
        return self.settings

    def _settings_saved(self, choice: LLMChoice, restart: bool) -> None:
        self.window.model.set_llm(choice)
        self.window.show_message("Settings saved." + (" The data folder and embedding model change when the "
                                                      "workbench starts again." if restart else ""))

    def open_contextualize(self) -> QDialog:
        """Tools → Contextualize chunks… on strategy A's chunk configuration."""
        w = self.window
        self.tool = open_contextualize(self.parent, w.ws, w.model.strategy("A").chunk, w.store_jobs)
        return self.tool

    def open_make_questions(self) -> QDialog:
        """Tools → Make questions…; a finished set can be loaded in the lab."""
        w = self.window
        self.tool = open_make_questions(self.parent, w.ws, w.store_jobs, w.load_in_lab)
        return self.tool

    def open_about(self) -> AboutDialog:
        """Help → About (non-blocking)."""
        w = self.window
        extra = [("Embedding model", w.ws.embedder.model_id), ("Data folder", str(w.ws.data_dir))]
        if w.log_file:
            extra.append(("Log file", str(w.log_file)))
        self.about = AboutDialog(extra, self.parent)
        self.about.open()
        return self.about

    def open_logs(self) -> None:
        """Help → Open log folder."""
        if self.window.log_file:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.window.log_file.parent)))
