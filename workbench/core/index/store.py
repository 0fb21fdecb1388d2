"""The SQLite store (sqlite-utils): documents, headings, chunk sets, chunks, caches and run records.

All writes that belong together happen in one transaction, so a crash leaves the previous state.
A chunk set is visible to search only when its ``state`` is ``ready``. Every SQL statement of the
application lives in this package (``store_*.py``, ``schema.py``), one method per operation.
"""

from __future__ import annotations

from workbench.core.index.storage_errors import StoreError
from workbench.core.index.store_caches import CacheTables
from workbench.core.index.store_checks import ConsistencyChecks
from workbench.core.index.store_chunks import ChunkSetInfo, ChunkTable
from workbench.core.index.store_connection import now
from workbench.core.index.store_documents import DocumentGone, DocumentTables
from workbench.core.index.store_runs import RunTables

DB_NAME = "workbench.sqlite3"
__all__ = ["DB_NAME", "ChunkSetInfo", "ChunkTable", "DocumentGone", "Store", "StoreError", "now"]


class Store(DocumentTables, CacheTables, RunTables, ConsistencyChecks):
    """A workbench database file: documents, headings, chunk sets, chunks, FAISS checksums, caches and runs.

    One instance per thread (SQLite connections are not shared); opening, read-only and damage rules are
    ``StoreConnection``'s.
    """
