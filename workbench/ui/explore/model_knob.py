"""The "Embedding model" knob of one side: a compact combo of the models a strategy's chunk set may use.

Entries: the workspace's default model, the models the workbench names itself (``minilm-bf16``: the packaged
model with bf16 matrix products), a local sentence-transformers folder named in Settings (when it is not
already the default), the model of a loaded strategy, and the Ollama server's embedding models
(``ollama:NAME``), asked for in the background when the list is opened, at the host and with the remote
consent answers use. Choosing one emits ``changed(spec)``: ``""`` for the default.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from workbench.core.consent import trust
from workbench.core.index.embedder_pool import (
    NAMED_MODELS,
    is_named_model,
    is_ollama_spec,
    model_label,
    normalise_model_spec,
)
from workbench.ui.jobs.workers import JobRunner, Worker, while_alive
from workbench.ui.widgets.elided_combo import ElidedComboBox

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

Lister = Callable[[], "list[str]"]  # the Ollama server's embedding models as ollama:NAME specs
RELIST_AFTER_S = 10.0  # opening the list again within this long asks the server nothing


class ModelKnob(QWidget):
    """A label and a combo: which embedding model builds and searches this side's chunk set."""

    changed = Signal(str)  # the model spec ("" = the workspace's default)

    def __init__(self, model: str = "", default_name: str = "MiniLM", folders: Sequence[str] = (),
                 lister: Lister | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lister = lister
        self.runner = JobRunner(1, self)  # its own queue: a probe never waits behind a search or a build
        self._listed_at = 0.0
        self._worker: Worker | None = None
        self.combo = ModelCombo(self._popup_opening)
        self.combo.setToolTip("The embedding model of this side's chunk set; questions are embedded by the same "
                              "model. Ollama's embedding models are listed when its server answers.")
        self.combo.addItem(f"default ({default_name})", "")
        for named, (_, about) in NAMED_MODELS.items():  # packaged models run another way (minilm-bf16)
            self.combo.setItemData(self._add(named), about, Qt.ItemDataRole.ToolTipRole)
        for folder in folders:
            self._add(normalise_model_spec(folder))
        self.set_model(model)
        self.combo.currentIndexChanged.connect(self._chosen)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Embedding model"))
        lay.addWidget(self.combo, 1)

    def _chosen(self, _index: int) -> None:
        """The user chose an entry: a local folder is allowed for this run (``workbench.core.consent``)."""
        spec = self.model()
        if spec and not is_ollama_spec(spec) and not is_named_model(spec):
            trust(spec)
        self.changed.emit(spec)

    def model(self) -> str:
        """The chosen model spec (``""``: the default)."""
        return str(self.combo.currentData() or "")

    def models(self) -> list[str]:
        """Every listed spec, in order."""
        return [str(self.combo.itemData(i) or "") for i in range(self.combo.count())]

    def set_model(self, spec: str) -> None:
        """Show ``spec`` (added when missing), emitting nothing."""
        spec = normalise_model_spec(spec)
        self.combo.blockSignals(True)
        try:
            self.combo.setCurrentIndex(self._add(spec))
        finally:
            self.combo.blockSignals(False)

    def set_ollama_models(self, specs: Sequence[str]) -> None:
        """Replace the listed Ollama models by ``specs`` (the chosen one stays), emitting nothing."""
        current = self.model()
        self.combo.blockSignals(True)
        try:
            for i in reversed(range(self.combo.count())):
                data = str(self.combo.itemData(i) or "")
                if is_ollama_spec(data) and data != current:
                    self.combo.removeItem(i)
            for spec in specs:
                self._add(spec)
            self.combo.setCurrentIndex(self.combo.findData(current))
        finally:
            self.combo.blockSignals(False)

    def list_ollama(self) -> Worker | None:
        """Ask the Ollama server for its embedding models in the background (None: nothing to ask with)."""
        if self.lister is None or self._worker is not None:
            return None
        lister = self.lister

        def job(_progress: ProgressSink, _cancel: CancelToken) -> list[str]:
            return lister()

        worker = Worker(job, "ollama embedding models")
        worker.signals.result.connect(while_alive(self, self.set_ollama_models))
        worker.signals.finished.connect(while_alive(self, self._listed))
        self._worker, self._listed_at = worker, time.monotonic()
        return self.runner.start(worker)

    def _listed(self) -> None:
        self._worker = None

    def _popup_opening(self) -> None:
        if time.monotonic() - self._listed_at > RELIST_AFTER_S:
            self.list_ollama()

    def _add(self, spec: str) -> int:
        index = self.combo.findData(spec)
        if index < 0:
            self.combo.addItem(model_label(spec), spec)
            index = self.combo.count() - 1
            if spec and not is_ollama_spec(spec) and not is_named_model(spec):
                self.combo.setItemData(index, spec, Qt.ItemDataRole.ToolTipRole)  # the whole folder path
        return index


class ModelCombo(ElidedComboBox):
    """A combo that says when its list is about to open (the Ollama models are asked for then)."""

    def __init__(self, opening: Callable[[], None]) -> None:
        super().__init__()
        self._opening = opening
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)

    def showPopup(self) -> None:
        """Ask for the Ollama models, then open the list."""
        self._opening()
        super().showPopup()


def side_model_knob(workspace: Workspace, model: str = "") -> ModelKnob:
    """The knob of a Compare side: the workspace's default model named, Ollama's embedding models asked for
    at the host (and with the remote consent) the workspace embeds ``ollama:`` models with."""
    from workbench.core.index.embedder_pool import ollama_embedding_models

    models = workspace.models
    name, _, rest = models.default.model_id.partition("@")  # e.g. all-MiniLM-L6-v2@1a2b3c+bf16
    return ModelKnob(model, name + (" bf16" if rest.endswith("+bf16") else ""),
                     lister=lambda: ollama_embedding_models(models.host, models.allow_remote))
