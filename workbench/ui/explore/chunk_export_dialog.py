"""*Export chunks…*: the chunk map's chunk set written to JSON Lines, CSV or Parquet (``core.inspect.chunk_export``,
as ``workbench chunks export`` writes it), optionally with its vectors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.inspect.chunk_export import (
    EXPORT_FORMATS,
    ExportError,
    ExportResult,
    check_target,
    exported_chunks,
    parquet_available,
    write_chunk_export,
)
from workbench.ui.widgets.wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.workspace import Workspace

FORMAT_LABELS = {"jsonl": "JSON Lines (.jsonl)", "csv": "CSV (.csv)", "parquet": "Parquet (.parquet)"}


def _ask_replace(parent: QWidget | None, path: str) -> bool:
    answer = QMessageBox.question(parent, "Replace file?", f"{path} exists. Replace it?")
    return answer == QMessageBox.StandardButton.Yes


class ExportChunksDialog(QDialog):
    """Format, vectors or not, and the file; *Export* writes it and closes, a refusal is said in the dialog."""

    def __init__(self, workspace: Workspace, rt: LoadedSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws, self.rt = workspace, rt
        self.written: ExportResult | None = None
        self.ask_replace: Callable[[QWidget | None, str], bool] = _ask_replace  # tests answer it
        self.setWindowTitle("Export chunks")
        self.format = QComboBox()
        for fmt in EXPORT_FORMATS:
            self.format.addItem(FORMAT_LABELS[fmt], fmt)
        items = self.format.model()
        if not parquet_available() and isinstance(items, QStandardItemModel):  # a combo box's own model
            parquet = items.item(EXPORT_FORMATS.index("parquet"))
            parquet.setEnabled(False)
            parquet.setText("Parquet (needs pyarrow, not installed)")
        self.vectors = QCheckBox("with vectors (float32; a side .npy file beside JSON Lines or CSV)")
        self.path = QLineEdit()
        self.path.setPlaceholderText("the file to write")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)
        self.status = WrappedLabel(f"{len(rt)} chunks of {chunking_label(rt.info.config)}")
        self.status.setObjectName("muted")
        form = QFormLayout()
        form.addRow("Format", self.format)
        form.addRow("", self.vectors)
        form.addRow("File", where)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        export = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        export.setDefault(True)
        buttons.accepted.connect(self.export)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addWidget(buttons)
        self.format.currentIndexChanged.connect(lambda _i: self._suffix())

    def chosen_format(self) -> str:
        """The format picked (``jsonl``, ``csv`` or ``parquet``)."""
        return str(self.format.currentData())

    def _suffix(self) -> None:
        text = self.path.text().strip()
        if text:
            self.path.setText(str(Path(text).with_suffix("." + self.chosen_format())))

    def _browse(self) -> None:
        fmt = self.chosen_format()
        path, _filter = QFileDialog.getSaveFileName(self, "Export chunks", f"chunks.{fmt}", FORMAT_LABELS[fmt])
        if path:
            self.path.setText(path)

    def export(self) -> ExportResult | None:
        """Write the export (asking before replacing a file); closes the dialog when written, else says why."""
        text = self.path.text().strip()
        if not text:
            self.status.setText("Name the file to write.")
            return None
        path, fmt, vectors = Path(text).expanduser(), self.chosen_format(), self.vectors.isChecked()
        try:
            try:
                check_target(path, fmt, vectors)
                force = False
            except ExportError as exc:
                if "exists" not in str(exc) or not self.ask_replace(self, str(path)):
                    raise
                force = True
            rows = exported_chunks(self.rt, self.ws.corpus.document)
            array = self.rt.index.vectors_for(self.rt.table.ids) if vectors else None
            self.written = write_chunk_export(rows, path, fmt, array, force)
        except ExportError as exc:
            self.status.setText(str(exc))
            return None
        except OSError as exc:
            self.status.setText(f"cannot write {path}: {exc.strerror or exc}")
            return None
        self.accept()
        return self.written
