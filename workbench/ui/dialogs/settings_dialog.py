"""File → Settings… (Ctrl+,): data folder, embedding model (and the local Ray workers builds embed on), answering
backend and model, Ollama host.

The data folder and the embedding model are read when the workbench starts, so changing them takes effect
on the next start (``--data-dir`` and ``$WORKBENCH_DATA`` still win over the stored folder). The backend,
model and host apply to the next answer. A host that is not this machine shows the privacy warning and
needs an explicit "Allow sending…" tick before OK is enabled; such a host is not even probed before.
The Ollama server's models are asked for in the background (``probe_worker``) with a short timeout.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.index.cluster import MAX_WORKERS
from workbench.core.index.embedder_pool import FAST_MODEL, NAMED_MODELS, is_named_model
from workbench.ui.basics import settings as prefs
from workbench.ui.basics.settings import LLMChoice
from workbench.ui.basics.theme import app_stylesheet
from workbench.ui.jobs.workers import JobRunner, Worker

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink

PROBE_TIMEOUT_S = 1.0
Prober = Callable[[str, float], "list[str] | None"]
def probe_words(host: str, names: list[str] | None, backend: str) -> str:
    """What an Ollama probe found, said for the chosen ``backend`` (with the embedded model chosen, a missing
    server does not make answers extractive)."""
    if names is not None:
        return f"Ollama at {host}: {len(names)} model(s)" + (
            f": {', '.join(names)}" if names else " — pull one with `ollama pull llama3.2`")
    found = f"No Ollama server found at {host} (not found)"
    if backend == "embedded":
        return f"{found}: not needed, the local model file answers."
    if backend == "extractive":
        return f"{found}: not needed, answers quote the closest sentences."
    if backend == "ollama":
        return f"{found}: answers fail until it runs. Start one with `ollama serve`."
    return f"{found}: answers are extractive (no language model). Start one with `ollama serve`."


BACKENDS = (("auto", "Automatic: Ollama when its server answers, else extractive answers"),
            ("ollama", "Ollama server"),
            ("extractive", "Extractive: the closest sentences, no language model"),
            ("embedded", "Embedded tiny plumbing demo (SmolLM2-135M): not for real answers"))


def probe_worker(host: str, prober: Prober | None = None, timeout: float = PROBE_TIMEOUT_S) -> Worker:
    """A worker asking the Ollama server at ``host`` for its models; its result is ``(host, names or None)``."""
    def job(_progress: ProgressSink, _cancel: CancelToken) -> tuple[str, list[str] | None]:
        if prober is not None:
            return host, prober(host, timeout)
        from workbench.core.llm import probe_ollama

        return host, probe_ollama(host, timeout)

    return Worker(job, "ollama probe")


def is_local(host: str) -> bool:
    """True when ``host`` is this machine."""
    from workbench.core.llm.ollama_backend import is_loopback_host

    return is_loopback_host(host)


def _note(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    return label


class SettingsDialog(QDialog):
    """The settings form; OK saves to ``settings`` and emits ``saved(choice, restart_needed)``."""

    saved = Signal(object, bool)  # LLMChoice, whether a start-up setting changed
    probed = Signal(str, object)  # host, model names or None

    def __init__(self, settings: QSettings, data_dir_in_use: Path, model_in_use: str = "",
                 prober: Prober | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._probe: tuple[str, list[str] | None] | None = None  # the last probe's host and model names
        self.setWindowTitle("Settings")
        self.setStyleSheet(app_stylesheet())
        self.settings = settings
        self.prober = prober
        self.probes = JobRunner(1, self)
        self.stored = prefs.load_llm(settings)
        self._initial_data = prefs.text(settings, prefs.DATA_DIR) or str(data_dir_in_use)
        self._initial_model = prefs.text(settings, prefs.EMBEDDING_MODEL)
        self._initial_host = self.stored.effective_host()
        self._probe_timer = QTimer(self, singleShot=True, interval=500)
        self._probe_timer.timeout.connect(self.probe)
        self.data_dir = QLineEdit(self._initial_data)
        self.data_dir.setToolTip("The folder holding the index (SQLite + FAISS files) and the embedding cache")
        self.default_model = QRadioButton("Installed default (all-MiniLM-L6-v2)")
        self.fast_model = QRadioButton(f"Installed default with bf16 matrix products ({FAST_MODEL}): about twice "
                                       "as fast to index")
        self.fast_model.setToolTip(NAMED_MODELS[FAST_MODEL][1])
        self.local_model = QRadioButton("Local sentence-transformers folder:")
        named = is_named_model(self._initial_model)
        self.model_folder = QLineEdit("" if named else self._initial_model)
        self.model_folder.setPlaceholderText("a folder with modules.json or config.json")
        group = QButtonGroup(self)
        group.addButton(self.default_model)
        group.addButton(self.fast_model)
        group.addButton(self.local_model)
        (self.fast_model if named else self.local_model if self._initial_model else self.default_model).setChecked(True)
        self._initial_workers = prefs.cluster_workers(settings)
        self.cluster_workers = QSpinBox()
        self.cluster_workers.setRange(0, MAX_WORKERS)
        self.cluster_workers.setSpecialValueText("off: embed in this process")
        self.cluster_workers.setValue(self._initial_workers)
        self.cluster_workers.setToolTip("Chunk-set builds embed their new texts on a private Ray started on this "
                                        "machine with this many workers (--cluster local:N); loopback only")
        self.backend = QComboBox()
        for kind, label in BACKENDS:
            self.backend.addItem(label, kind)
        self.backend.setCurrentIndex(max(0, self.backend.findData(self.stored.kind)))
        self.backend.setToolTip("Which local model answers questions (Answer tab, Ctrl+Enter)")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setEditText(self.stored.model)
        editor = self.model.lineEdit()
        if editor is not None:
            editor.setPlaceholderText("default: the server's first model")
        self.model.setToolTip("The Ollama model to answer with (filled from the server when it answers)")
        self.host = QLineEdit(self._initial_host)
        self.host.setPlaceholderText(LLMChoice().effective_host())
        self.host.setToolTip("Where the Ollama server listens; keep it on this machine (127.0.0.1) to stay offline")
        self.host_warning = QLabel()
        self.host_warning.setObjectName("banner")
        self.host_warning.setWordWrap(True)
        self.allow = QCheckBox("Allow sending questions and passages to this host")
        self.allow.setChecked(bool(self.stored.allowed_host) and self.stored.allowed_host == self._initial_host)
        self.ollama_status = _note("")
        self.problem = QLabel()
        self.problem.setObjectName("banner")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._layout(data_dir_in_use, model_in_use)
        for signal in (self.data_dir.textChanged, self.model_folder.textChanged, self.default_model.toggled,
                       self.allow.toggled, self.backend.currentIndexChanged):
            signal.connect(self.validate)
        self.host.textChanged.connect(self._host_changed)
        self.allow.toggled.connect(lambda _on: self._probe_timer.start())
        self.probed.connect(self._probed)
        self.backend.currentIndexChanged.connect(lambda _i: self._say_probe())
        self.validate()
        self.probe()

    def _layout(self, data_dir_in_use: Path, model_in_use: str) -> None:
        data = QGroupBox("Data folder")
        row = QHBoxLayout()
        row.addWidget(self.data_dir, 1)
        row.addWidget(self._browse_button(self._choose_data_dir))
        col = QVBoxLayout(data)
        col.addLayout(row)
        col.addWidget(_note(f"Takes effect when the workbench starts again. In use now: {data_dir_in_use}. "
                            "--data-dir and $WORKBENCH_DATA win over this setting."))
        model = QGroupBox("Embedding model")
        col = QVBoxLayout(model)
        col.addWidget(self.default_model)
        col.addWidget(self.fast_model)
        row = QHBoxLayout()
        row.addWidget(self.local_model)
        row.addWidget(self.model_folder, 1)
        row.addWidget(self._browse_button(self._choose_model_folder))
        col.addLayout(row)
        col.addWidget(_note("Takes effect when the workbench starts again; documents are embedded again with "
                            f"the new model.{f' In use now: {model_in_use}.' if model_in_use else ''}"))
        row = QHBoxLayout()
        row.addWidget(QLabel("Ray workers on this machine"))
        row.addWidget(self.cluster_workers, 1)
        col.addLayout(row)
        col.addWidget(_note("Builds embed on a private local Ray with this many workers (each loads the model; "
                            "starting takes tens of seconds, worth it for builds of minutes). Takes effect when "
                            "the workbench starts again."))
        llm = QGroupBox("Answering model")
        form = QFormLayout(llm)
        form.addRow("Backend", self.backend)
        form.addRow("Model", self.model)
        form.addRow("Ollama host", self.host)
        form.addRow(self.ollama_status)
        form.addRow(self.host_warning)
        form.addRow(self.allow)
        lay = QVBoxLayout(self)
        for widget in (data, model, llm, self.problem, self.buttons):
            lay.addWidget(widget)
        self.resize(620, 520)

    def _browse_button(self, slot: Callable[[], None]) -> QPushButton:
        button = QPushButton("Browse…")
        button.clicked.connect(slot)
        return button

    # ----- values ---------------------------------------------------------------------------
    @property
    def ok_button(self) -> QPushButton:
        """The OK button (disabled while the form has a problem)."""
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def host_text(self) -> str:
        """The host as typed (empty: the default)."""
        return self.host.text().strip() or self.host.placeholderText()

    def choice(self) -> LLMChoice:
        """The answering backend as the form says (host "" while it is the default one, untouched)."""
        host = self.host_text()
        stored_host = "" if host == self._initial_host and not self.stored.host else host
        allowed = host if self.allow.isChecked() and not is_local(host) else ""
        kind = self.backend.currentData()
        return LLMChoice(kind, self.model.currentText().strip(), stored_host, allowed)

    def problems(self) -> list[str]:
        """What keeps OK disabled."""
        out = []
        folder = Path(self.data_dir.text().strip()).expanduser()
        if not self.data_dir.text().strip():
            out.append("Choose a data folder.")
        elif folder.exists() and not folder.is_dir():
            out.append(f"The data folder {folder} is a file.")
        if self.local_model.isChecked():
            why = prefs.embedding_folder_problem(self.model_folder.text())
            if why:
                out.append(f"Embedding model: {why}.")
        if not is_local(self.host_text()) and not self.allow.isChecked():
            out.append("Tick “Allow sending questions and passages to this host”, or use a host on this machine.")
        return out

    def validate(self) -> bool:
        """Show the form's problems and the host warning; OK only when there are none."""
        from workbench.core.llm.ollama_backend import host_warning

        warning = host_warning(self.host_text())
        self.host_warning.setText(f"Warning: {warning}." if warning else "")
        self.host_warning.setVisible(bool(warning))
        self.allow.setVisible(bool(warning))
        self.model.setEnabled(self.backend.currentData() not in ("embedded", "extractive"))
        self.model_folder.setEnabled(self.local_model.isChecked())
        problems = self.problems()
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))
        self.ok_button.setEnabled(not problems)
        return not problems

    # ----- Ollama probe ---------------------------------------------------------------------
    def _host_changed(self) -> None:
        self.validate()
        self._probe_timer.start()

    def probe(self) -> Worker | None:
        """Ask the host for its models in the background (never a non-loopback host before it is allowed)."""
        host = self.host_text()
        if not is_local(host) and not self.allow.isChecked():
            self.ollama_status.setText("Not asking this host for its models until you allow it.")
            return None
        self.ollama_status.setText(f"Looking for an Ollama server at {host}…")
        worker = probe_worker(host, self.prober)
        worker.signals.result.connect(self._probe_result)  # a method of the dialog: dropped when it is deleted
        return self.probes.start(worker)

    def _probe_result(self, result: tuple[str, list[str] | None]) -> None:
        self.probed.emit(*result)

    def _probed(self, host: str, names: list[str] | None) -> None:
        if host != self.host_text():
            return  # the host changed meanwhile: a newer probe answers for it
        typed = self.model.currentText()
        self.model.clear()
        self._probe = (host, names)
        if names is not None:
            self.model.addItems(names)
        self._say_probe()
        self.model.setEditText(typed)

    def _say_probe(self) -> None:
        """The last probe's answer, in the words of the chosen backend."""
        if self._probe is None:
            return
        host, names = self._probe
        self.ollama_status.setText(probe_words(host, names, str(self.backend.currentData())))

    # ----- pickers and saving ---------------------------------------------------------------
    def _choose_data_dir(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Data folder", self.data_dir.text())
        if path:
            self.data_dir.setText(path)

    def _choose_model_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Sentence-transformers model folder", self.model_folder.text())
        if path:
            self.model_folder.setText(path)
            self.local_model.setChecked(True)

    def save(self) -> tuple[LLMChoice, bool]:
        """Write the form to the settings; returns the backend choice and whether a restart is needed."""
        s = self.settings
        restart = False
        data = self.data_dir.text().strip()
        if data != self._initial_data:
            s.setValue(prefs.DATA_DIR, data)
            restart = True
        model = (self.model_folder.text().strip() if self.local_model.isChecked()
                 else FAST_MODEL if self.fast_model.isChecked() else "")
        if model != self._initial_model:
            s.setValue(prefs.EMBEDDING_MODEL, model)
            restart = True
        if self.cluster_workers.value() != self._initial_workers:
            s.setValue(prefs.CLUSTER_WORKERS, str(self.cluster_workers.value()))
            restart = True
        choice = self.choice()
        prefs.save_llm(s, choice)
        s.sync()
        return choice, restart

    def accept(self) -> None:  # QDialog API: saves first
        if not self.validate():
            return
        choice, restart = self.save()
        self.saved.emit(choice, restart)
        super().accept()

    def done(self, result: int) -> None:  # QDialog API: no probe starts after closing
        self._probe_timer.stop()
        super().done(result)


def open_settings_dialog(parent: QWidget, settings: QSettings, data_dir: Path, model_id: str,
                         saved: Callable[[LLMChoice, bool], object]) -> SettingsDialog:
    """Open the settings over ``parent`` (non-blocking); OK calls ``saved(choice, restart_needed)`` (the window
    gives its model the answering backend at once)."""
    dialog = SettingsDialog(settings, data_dir, model_id, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.saved.connect(saved)
    dialog.open()
    return dialog
