"""The SQLite store (sqlite-utils): documents, headings, chunk sets, chunks, caches and run records.

Every SQL statement of the application lives in this package, one method per operation; callers outside it go
through ``workbench.core.workspace.Workspace`` or a narrow protocol. All writes that belong together happen in
one transaction, so a crash leaves the previous state. A chunk set is visible to search only when its
``state`` is ``ready``. Opening, read-only and damage rules are ``StoreConnection``'s; the tables' operations
are its parts, one per group of tables, sharing its one connection: ``documents`` (``documents``),
``sets`` (``chunk_sets``), ``caches`` (``caches``) and ``runs`` (``runs``).
"""

from __future__ import annotations

import threading
from pathlib import Path

from workbench.core.store.caches import CacheTables
from workbench.core.store.chunk_sets import ChunkSetTables
from workbench.core.store.connection import StoreConnection
from workbench.core.store.documents import DocumentTables
from workbench.core.store.question_sets import QuestionSetTables
from workbench.core.store.runs import RunTables

DB_NAME = "workbench.sqlite3"


class Store(StoreConnection):
    """A workbench database file (its connection) and the groups of tables over it: ``documents`` (documents,
    headings, problems), ``sets`` (chunk sets, chunks, FAISS checksums), ``caches`` (vectors, rates, LLM
    outputs), ``runs`` (runs, saved strategies) and ``question_sets`` (question sets stored in the data folder).
    One instance per thread (SQLite connections are not shared)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.sets = ChunkSetTables(self)
        self.documents = DocumentTables(self, self.sets)
        self.caches = CacheTables(self)
        self.runs = RunTables(self)
        self.question_sets = QuestionSetTables(self)

    def quick_check(self, limit: int) -> list[str]:
        """SQLite's ``PRAGMA quick_check``: ``["ok"]``, or up to ``limit`` problems."""
        return [str(r[0]) for r in self.db.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]


class ThreadStores:
    """One ``Store`` per thread over one database file, opened on a thread's first ``get`` (the workspace and
    each of its parts read the store through this)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def get(self) -> Store:
        """This thread's connection to the store."""
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.path)
            self._local.store = store
        return store

    def close(self) -> None:
        """Close this thread's connection (a later ``get`` opens a new one)."""
        store: Store | None = getattr(self._local, "store", None)
        if store is not None:
            store.close()
            self._local.store = None
