"""The document list of the library: indexed documents with chunk counts, and skipped / failed files
with their reasons."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from workbench.ui.basics.wording import for_the_window

if TYPE_CHECKING:
    from workbench.core.store.rows import Problem

STATUS_COLOURS = {"indexed": "#1a7f37", "skipped": "#9a6700", "failed": "#cf222e"}
COLUMNS = ["Document", "Status", "Chunks", "Details"]
DETAILS_LEAST = 70  # the Details column keeps this much beside the others (its words in the tooltip)
DOC_ID_ROLE = Qt.ItemDataRole.UserRole
PATH_ROLE = Qt.ItemDataRole.UserRole + 1


class LibraryTable(QTreeWidget):
    """One row per document or problem file."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(len(COLUMNS))
        self.setHeaderLabels(COLUMNS)
        self.setRootIsDecorated(False)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setUniformRowHeights(True)
        header = self.header()
        header.setStretchLastSection(False)  # Details gets what is left (``fit_columns``), never less than a few words
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.setColumnWidth(0, 180)
        header.setMinimumSectionSize(40)
        self._sized_by_hand = False  # the Document column dragged: its width stays
        self._fitting = False
        header.sectionResized.connect(self._section_resized)

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        if self._fitting:
            return
        if column == 0:
            self._sized_by_hand = True
        if column in (0, 1, 2):  # a column dragged or sized to new contents: Details takes what is left
            self.fit_columns()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The Document column takes what the others leave (Details keeps a few words), so a narrow panel, an
        empty library included, never scrolls sideways; a width set by hand stays."""
        super().resizeEvent(event)
        self.fit_columns()

    def viewportEvent(self, event: QEvent) -> bool:
        """The viewport resized (a vertical scroll bar came or went): the columns share its width again."""
        handled = super().viewportEvent(event)
        if event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return handled

    def fit_columns(self) -> None:
        """Share the viewport's width: Status and Chunks their contents, Document what is left up to 260 px
        (unless dragged), Details the rest, at least ``DETAILS_LEAST``."""
        others = self.columnWidth(1) + self.columnWidth(2)
        room = self.viewport().width()
        self._fitting = True
        if not self._sized_by_hand:
            self.setColumnWidth(0, max(90, min(260, room - others - DETAILS_LEAST)))
        self.setColumnWidth(3, max(DETAILS_LEAST, room - others - self.columnWidth(0)))
        self._fitting = False

    def fill(self, documents: list[dict[str, Any]], problems: Sequence[Problem],
             chunk_counts: dict[int, int] | None) -> None:
        """Replace the rows (``chunk_counts`` is None while the chunk set is not built)."""
        self.clear()
        for d in documents:
            count = "…" if chunk_counts is None else str(chunk_counts.get(d["id"], 0))
            detail = f"{d['format']} · {d['chars']:,} chars" + (f" · {d['note']}" if d.get("note") else "")
            item = QTreeWidgetItem([d["title"] or Path(d["path"]).name, "indexed", count, detail])
            item.setData(0, DOC_ID_ROLE, d["id"])
            item.setData(0, PATH_ROLE, d["path"])
            item.setToolTip(0, d["path"])
            item.setToolTip(3, detail)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._colour(item, "indexed")
            self.addTopLevelItem(item)
        for p in problems:
            reason = for_the_window(p.reason)
            item = QTreeWidgetItem([Path(p.path).name, p.status, "", reason])
            item.setData(0, PATH_ROLE, p.path)
            item.setToolTip(0, p.path)
            item.setToolTip(3, f"{p.status}: {reason}")
            self._colour(item, p.status)
            self.addTopLevelItem(item)

    @staticmethod
    def _colour(item: QTreeWidgetItem, status: str) -> None:
        item.setForeground(1, QBrush(QColor(STATUS_COLOURS.get(status, "#1d2329"))))

    def rows(self) -> list[dict[str, Any]]:
        """Every row as ``{title, status, chunks, details, doc_id, path}`` (for tests and exports)."""
        out = []
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item is None:
                continue
            out.append({"title": item.text(0), "status": item.text(1), "chunks": item.text(2),
                        "details": item.text(3), "doc_id": item.data(0, DOC_ID_ROLE),
                        "path": item.data(0, PATH_ROLE)})
        return out

    def selected(self) -> list[dict[str, Any]]:
        """The selected rows."""
        rows = self.rows()
        return [rows[self.indexOfTopLevelItem(item)] for item in self.selectedItems()]
