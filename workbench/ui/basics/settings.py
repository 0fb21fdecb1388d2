"""Persistent desktop settings (QSettings): window layout, splitter sizes, the last strategies and mode,
whether the welcome was shown, the data folder and embedding model used at start, and the answering
backend (kind, model, Ollama host).

Tests pass their own ``QSettings`` (an INI file in a temporary folder) so they never touch the user's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from workbench.core.retrieve.strategy.presets import PRESETS, Strategy, resolve

if TYPE_CHECKING:
    from workbench.core.llm import LLMChoice as CoreChoice

log = logging.getLogger(__name__)
ORG, APP = "chunk-workbench", "Chunk Workbench"
DEFAULT_STRATEGIES = {"A": "neighbours", "B": "plain"}


def open_settings(path: str | None = None) -> QSettings:
    """The user's settings, or an INI file at ``path``."""
    if path:
        return QSettings(str(path), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)


def load_strategy(settings: QSettings, side: str) -> Strategy:
    """The last strategy of ``side`` (the default preset when none or unreadable)."""
    text = settings.value(f"strategy/{side}", "")
    if text:
        try:
            return resolve(str(text))
        except (ValueError, TypeError) as exc:
            log.warning("ignored saved strategy %s: %s", side, exc)
    return PRESETS[DEFAULT_STRATEGIES[side]]


def save_strategy(settings: QSettings, side: str, strategy: Strategy) -> None:
    """Remember ``strategy`` for ``side``."""
    settings.setValue(f"strategy/{side}", strategy.to_json())


def save_layout(settings: QSettings, window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    """Window geometry (its rectangle, checked against the screen when restored), dock/toolbar state and
    splitter sizes."""
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/rect", window.normalGeometry() if window.isMaximized() else window.geometry())
    settings.setValue("window/state", window.saveState())
    for name, splitter in splitters.items():
        settings.setValue(f"splitters/{name}", splitter.saveState())


def restore_layout(settings: QSettings, window: QMainWindow, splitters: dict[str, QSplitter]) -> bool:
    """Restore what ``save_layout`` stored but the geometry (``layout.place_window`` fits it to the screen);
    False when nothing was stored yet."""
    geometry = settings.value("window/rect")
    state = settings.value("window/state")
    if isinstance(state, QByteArray) and not state.isEmpty():
        window.restoreState(state)
    restored = False
    for name, splitter in splitters.items():
        value = settings.value(f"splitters/{name}")
        if isinstance(value, QByteArray) and not value.isEmpty():
            restored = splitter.restoreState(value) or restored
    return restored or geometry is not None


def flag(settings: QSettings, key: str, default: bool = False) -> bool:
    """A boolean setting (INI files store booleans as text)."""
    value = settings.value(key, default)
    return value in (True, "true", "1", 1)


# ----- first run, data folder, embedding model and answering backend (Settings… dialog) -------------
WELCOME_SEEN = "welcome/seen"
DATA_DIR = "paths/data_dir"
EMBEDDING_MODEL = "paths/embedding_model"
CLUSTER_WORKERS = "index/cluster_workers"  # chunk-set builds on a private local Ray of N workers (0: off)
LLM_KINDS = ("auto", "ollama", "extractive", "embedded")


def text(settings: QSettings, key: str) -> str:
    """A string setting ("" when absent)."""
    value = settings.value(key, "")
    return str(value).strip() if value else ""


def cluster_workers(settings: QSettings) -> int:
    """The workers of the private local Ray that chunk-set builds embed on (``--cluster local:N``); 0: none (also
    for a stored value that is not a worker count)."""
    from workbench.core.index.cluster import MAX_WORKERS

    value = text(settings, CLUSTER_WORKERS)
    return int(value) if value.isascii() and value.isdigit() and 0 < int(value) <= MAX_WORKERS else 0


def embedding_folder_problem(folder: str) -> str | None:
    """Why ``folder`` is not a local sentence-transformers model, or None when it looks like one (or is a model
    the workbench names itself, such as ``minilm-bf16``)."""
    from workbench.core.index.embedder_pool import is_named_model

    if is_named_model(folder):
        return None
    path = Path(folder).expanduser()
    if not folder.strip():
        return "choose the model folder"
    if not path.is_dir():
        return f"not a folder: {path}"
    if not any((path / name).is_file() for name in ("modules.json", "config.json")):
        return f"{path} has no modules.json or config.json: not a sentence-transformers model folder"
    return None


@dataclass(frozen=True)
class LLMChoice:
    """The answering backend the user chose: kind, model ("" = the backend's default) and Ollama host.

    ``host`` "" means ``$OLLAMA_HOST``, else 127.0.0.1:11434. ``allowed_host`` is the non-loopback host
    the user explicitly allowed questions and passages to be sent to.
    """

    kind: str = "auto"
    model: str = ""
    host: str = ""
    allowed_host: str = ""

    def effective_host(self) -> str:
        """The host the Ollama client talks to."""
        from workbench.core.llm.ollama_backend import resolve_host

        return resolve_host(self.host or None)

    def warning(self) -> str | None:
        """The privacy warning when answers may go to an Ollama host that is not this machine."""
        if self.kind in ("embedded", "extractive"):
            return None
        from workbench.core.llm.ollama_backend import host_warning

        return host_warning(self.host or None)

    def allow_remote(self) -> bool:
        """True when the user explicitly allowed the host in use (stored, else ``$OLLAMA_HOST``)."""
        return bool(self.allowed_host) and self.allowed_host == self.effective_host()

    def core(self) -> CoreChoice:
        """The core ``LLMChoice`` this Settings choice opens: the model only where it applies (an embedded
        model must name a GGUF file; extractive has none) and ``allow_remote`` from the stored consent."""
        from workbench.core.llm import LLMChoice as CoreChoice

        model = self.model if self.kind != "embedded" or self.model.endswith(".gguf") else ""
        if self.kind == "extractive":  # no model to name
            model = ""
        return CoreChoice(self.kind, model, self.host, self.allow_remote())

    def blocked(self) -> str | None:
        """Why this choice must not be used: a non-loopback host (stored or ``$OLLAMA_HOST``) that was never
        explicitly allowed; the same line the command line prints (core ``remote_refusal``)."""
        if self.kind in ("embedded", "extractive") or self.allow_remote():
            return None
        from workbench.core.llm.ollama_backend import remote_refusal

        return remote_refusal(self.host or None)


def load_llm(settings: QSettings) -> LLMChoice:
    """The stored answering backend (defaults: auto, the server's first model, the default host)."""
    kind = text(settings, "llm/backend") or "auto"
    return LLMChoice(kind if kind in LLM_KINDS else "auto", text(settings, "llm/model"),
                     text(settings, "llm/host"), text(settings, "llm/allowed_host"))


def save_llm(settings: QSettings, choice: LLMChoice) -> None:
    """Remember ``choice``."""
    for key, value in (("backend", choice.kind), ("model", choice.model), ("host", choice.host),
                       ("allowed_host", choice.allowed_host)):
        settings.setValue(f"llm/{key}", value)
