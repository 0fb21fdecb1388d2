"""The About box: what this is, the versions of everything that matters, and where data and logs live."""

from __future__ import annotations

import html
import platform
import sys
from collections.abc import Sequence
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from workbench import __version__

PACKAGES = ("numpy", "faiss-cpu", "sentence-transformers", "torch", "pyqtgraph", "sqlite-utils", "xllamacpp")


def versions() -> list[tuple[str, str]]:
    """``(component, version)`` pairs for the About box and bug reports."""
    rows = [("Chunk Workbench", __version__), ("Python", platform.python_version()),
            ("Qt", qVersion()), ("PySide6", pyside_version)]
    for name in PACKAGES:
        try:
            rows.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            rows.append((name, "not installed"))
    rows.append(("Platform", f"{platform.system()} {platform.release()} ({sys.platform})"))
    return rows


def about_html(extra: Sequence[tuple[str, str]] = ()) -> str:
    """The About text (escaped)."""
    rows = "".join(f"<tr><td style='padding-right:14px;color:#5f6b7a'>{html.escape(k)}</td>"
                   f"<td>{html.escape(v)}</td></tr>" for k, v in [*versions(), *extra])
    return ("<h3 style='margin-bottom:2px'>Chunk Workbench</h3>"
            "<p>See how chunking and context expansion change retrieval-augmented answers: search small "
            "chunks, read every hit inside its expanded window, compare two strategies. Offline: "
            "nothing leaves this computer.</p>"
            f"<table>{rows}</table>")


class AboutDialog(QDialog):
    """A small non-blocking dialog with ``about_html``."""

    def __init__(self, extra: Sequence[tuple[str, str]] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Chunk Workbench")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        label = QLabel(about_html(extra))
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(label)
        lay.addWidget(buttons)
        self.resize(520, 420)
