"""Persistent desktop settings (QSettings): window layout, splitter sizes, the last strategies and mode.

Tests pass their own ``QSettings`` (an INI file in a temporary folder) so they never touch the user's.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from workbench.core.strategies import PRESETS, Strategy, resolve

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
    """Window geometry, dock/toolbar state and splitter sizes."""
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState())
    for name, splitter in splitters.items():
        settings.setValue(f"splitters/{name}", splitter.saveState())


def restore_layout(settings: QSettings, window: QMainWindow, splitters: dict[str, QSplitter]) -> bool:
    """Restore what ``save_layout`` stored; False when nothing was stored yet."""
    geometry = settings.value("window/geometry")
    if isinstance(geometry, QByteArray) and not geometry.isEmpty():
        window.restoreGeometry(geometry)
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
