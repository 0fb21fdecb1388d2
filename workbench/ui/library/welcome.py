"""The welcome: a short dialog on the first start (and from Help → Welcome…).

It offers a first library (the bundled sample corpus, a benchmark corpus with reference answers — see
``benchmark_tour`` —, a folder of the user's own, or nothing for now: Skip indexes nothing), says which model
will answer — an Ollama server on the configured host with its models, probed in the background so the dialog
opens at once, or extractive answers (quoted sentences, no language model) and how to get generated ones —
and where the data lives. ``open_welcome`` calls back the window for the choice; the app opens it on the first
start and whenever it starts on an empty library (``welcome_due``), never during ``--self-test`` or in tests.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QGridLayout,
    QLabel,
    QLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.basics import settings as prefs
from workbench.ui.basics.settings import LLMChoice
from workbench.ui.basics.theme import app_stylesheet
from workbench.ui.dialogs.settings_dialog import Prober, probe_worker
from workbench.ui.jobs.workers import JobRunner

SAMPLE, BENCHMARK, FOLDER, SKIP = "sample", "benchmark", "folder", "skip"
WIDTH = 600  # the dialog's width in pixels: its texts wrap to it
EMBEDDED = "the embedded SmolLM2-135M, a tiny plumbing demo that is not for real answers"
EXTRACTIVE = "extractive answers (no language model) — start Ollama for generated answers"
BETTER = ("For generated answers install Ollama, run `ollama serve` and `ollama pull llama3.2` "
          "(or any model you like).")


def ollama_line(host: str, names: list[str] | None, choice: LLMChoice) -> str:
    """What the welcome says about answering, once the server at ``host`` answered (or did not)."""
    if names is None:
        return (f"No Ollama server found at {host} (not found). Answers: {EXTRACTIVE}. They quote the "
                f"passages' sentences closest to the question. {BETTER}")
    if not names:
        return (f"Ollama is running at {host} but has no models yet: run `ollama pull llama3.2`. "
                f"Until then: {EXTRACTIVE}.")
    model = choice.model or names[0]
    return f"Ollama found at {host} with {len(names)} model(s): {', '.join(names)}. Answers use {model}."


class WelcomeDialog(QDialog):
    """Pick a first library; read which model answers and where the data is. Emits ``chosen``."""

    chosen = Signal(str, str)  # SAMPLE / BENCHMARK / FOLDER / SKIP, the folder for FOLDER
    probed = Signal(str)  # the answering line, once the probe answered

    def __init__(self, data_dir: Path, choice: LLMChoice, prober: Prober | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Welcome to Chunk Workbench")
        self.setStyleSheet(app_stylesheet())
        self.choice = choice
        self.what, self.folder = SKIP, ""
        self.probes = JobRunner(1, self)
        title = QLabel("<h2 style='margin:0'>Welcome to Chunk Workbench</h2>")
        intro = self._text("Search small chunks, read every hit inside its expanded window and compare two "
                           "strategies on the same question. Start with some documents:")
        self.sample_button = QPushButton("Load the sample corpus")
        self.sample_button.setObjectName("primary")
        self.sample_button.setToolTip("Index the six bundled sample documents (deploy guide, field guide, "
                                      "HTML, PDF …): each explains why, then how")
        self.benchmark_button = QPushButton("Try a benchmark with reference answers")
        self.benchmark_button.setToolTip(
            "Index one corpus of Chroma's chunking benchmark (State of the Union, 76 questions with reference "
            "answers), score strategies A and B on it and open one question side by side: reference spans, "
            "hits, windows and each side's recall / precision / IoU")
        self.folder_button = QPushButton("Add a folder…")
        self.folder_button.setToolTip("Index every text, Markdown, HTML and PDF file in a folder of your own")
        self.skip_button = QPushButton("Skip")
        self.skip_button.setToolTip("Close this welcome; add documents later from the Library tab")
        self.sample_button.clicked.connect(lambda: self._choose(SAMPLE))
        self.benchmark_button.clicked.connect(lambda: self._choose(BENCHMARK))
        self.folder_button.clicked.connect(self._choose_folder)
        self.skip_button.clicked.connect(self.reject)
        self.ollama_status = self._text("")
        self.ollama_status.setObjectName("summary")
        self.host_warning = self._text("")
        self.host_warning.setObjectName("banner")
        warning = choice.blocked() or choice.warning()
        self.host_warning.setText(f"Warning: {warning}." if warning else "")
        self.host_warning.setVisible(bool(warning))
        nothing_leaves = ("Nothing leaves this machine: no model is downloaded and the only network peer is an "
                          "Ollama server on this computer, if you run one.") if not warning else ""
        self.privacy = self._text(f"Your library (index, embeddings, answers cache) is stored in "
                                  f"<b>{html.escape(str(data_dir))}</b>. {nothing_leaves}")
        later = self._text("Change the data folder, embedding model or answering model in File → Settings… "
                           "(Ctrl+,); open this welcome again from Help → Welcome…")
        later.setObjectName("muted")
        buttons = QGridLayout()  # the three first libraries two by two, Skip on its own at the right
        buttons.addWidget(self.sample_button, 0, 0)
        buttons.addWidget(self.benchmark_button, 0, 1)
        buttons.addWidget(self.folder_button, 1, 0)
        buttons.addWidget(self.skip_button, 1, 1, Qt.AlignmentFlag.AlignRight)
        lay = QVBoxLayout(self)
        lay.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)  # never smaller than its buttons need
        for w in (title, intro):
            lay.addWidget(w)
        lay.addLayout(buttons)
        for w in (self._text("<b>Answers</b>"), self.ollama_status, self.host_warning, self._text("<b>Your data</b>"),
                  self.privacy, later):
            lay.addWidget(w)
        self.setMinimumWidth(WIDTH)
        self.probe(prober)
        self.fit_text()

    def fit_text(self) -> None:
        """Grow the dialog to the lines its wrapped texts need at its width (the probe's answer is longer
        than its question)."""
        layout = self.layout()
        if layout is None:
            return
        layout.activate()
        need = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else self.sizeHint().height()
        if need > self.height():
            self.resize(self.width(), need)

    @staticmethod
    def _text(text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    # ----- which model answers ------------------------------------------------------------------
    def probe(self, prober: Prober | None = None) -> None:
        """Ask the configured Ollama host for its models in the background (the line updates when it answers)."""
        host = self.choice.effective_host()
        if self.choice.kind == "embedded":
            self.ollama_status.setText(f"Answers come from {EMBEDDED} (chosen in Settings). {BETTER}")
        elif self.choice.kind == "extractive":
            self.ollama_status.setText(f"Answers: {EXTRACTIVE} (chosen in Settings). {BETTER}")
        elif self.choice.blocked():
            self.ollama_status.setText(f"Answers come from an Ollama server at {host} once you allow that host "
                                       "in File → Settings….")
        else:
            self.ollama_status.setText(f"Looking for an Ollama server at {host}…")
            worker = probe_worker(host, prober)
            worker.signals.result.connect(self._probed)
            self.probes.start(worker)

    def _probed(self, result: tuple[str, list[str] | None]) -> None:
        host, names = result
        line = ollama_line(host, names, self.choice)
        self.ollama_status.setText(line)
        self.fit_text()
        self.probed.emit(line)

    # ----- choices ----------------------------------------------------------------------------
    def _choose(self, what: str, folder: str = "") -> None:
        self.what, self.folder = what, folder
        self.accept()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of documents")
        if folder:  # cancelled: the welcome stays open
            self._choose(FOLDER, folder)

    def done(self, result: int) -> None:  # QDialog API: every way out announces the choice
        what, folder = (self.what, self.folder) if result == QDialog.DialogCode.Accepted else (SKIP, "")
        super().done(result)
        self.chosen.emit(what, folder)


@dataclass(frozen=True)
class WelcomeChoices:
    """What the window does for each first library the welcome offers (Skip does nothing)."""

    load_sample: Callable[[], object]
    start_benchmark: Callable[[], object]
    add_folder: Callable[[str], object]


def open_welcome(parent: QWidget, data_dir: Path, llm: LLMChoice, choices: WelcomeChoices,
                 prober: Prober | None = None) -> WelcomeDialog:
    """Open the welcome over ``parent`` (non-blocking) and act on the choice: "Load the sample corpus" calls
    ``choices.load_sample``, "Try a benchmark with reference answers" ``choices.start_benchmark`` (the
    benchmark tour), "Add a folder…" ``choices.add_folder(folder)``. Skip indexes nothing."""
    dialog = WelcomeDialog(data_dir, llm, prober, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def act(what: str, folder: str) -> None:
        if what == SAMPLE:
            choices.load_sample()
        elif what == BENCHMARK:
            choices.start_benchmark()
        elif what == FOLDER:
            choices.add_folder(folder)

    dialog.chosen.connect(act)
    dialog.open()
    return dialog


def welcome_seen(settings: QSettings) -> bool:
    """True once the welcome was shown."""
    return prefs.flag(settings, prefs.WELCOME_SEEN)


def welcome_due(settings: QSettings, library_empty: bool, offer_on_empty: bool = True) -> bool:
    """Whether the welcome opens at start: on the very first start, and on later starts while the library is
    empty (a new data folder) unless ``offer_on_empty`` is off (``--no-sample``). Nothing is indexed without
    the user choosing it there."""
    return not welcome_seen(settings) or (library_empty and offer_on_empty)


def mark_welcome_seen(settings: QSettings) -> None:
    """Remember that the welcome was shown."""
    settings.setValue(prefs.WELCOME_SEEN, True)
    settings.sync()
