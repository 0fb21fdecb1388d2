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
from workbench.core.store.hand_chunkings import HandChunkingTables
from workbench.core.store.question_sets import QuestionSetTables
from workbench.core.store.readback import counter, json_object, positive_number, shown
from workbench.core.store.runs import RunTables

DB_NAME = "workbench.sqlite3"


class Store(StoreConnection):
    """A workbench database file (its connection) and the groups of tables over it: ``documents`` (documents,
    headings, problems), ``sets`` (chunk sets, chunks, FAISS checksums), ``caches`` (vectors, rates, LLM
    outputs), ``runs`` (runs, saved strategies), ``question_sets`` (question sets stored in the data folder) and
    ``cuts`` (hand-made chunkings).
    One instance per thread (SQLite connections are not shared)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.cuts = HandChunkingTables(self)
        self.sets = ChunkSetTables(self, self.cuts.get)  # an edited:NAME set's id reads this folder's chunking
        self.documents = DocumentTables(self, self.sets)
        self.caches = CacheTables(self)
        self.runs = RunTables(self)
        self.question_sets = QuestionSetTables(self)

    def quick_check(self, limit: int) -> list[str]:
        """SQLite's ``PRAGMA quick_check``: ``["ok"]``, or up to ``limit`` problems."""
        return [str(r[0]) for r in self.db.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]

    def audit_values(self) -> list[str]:
        """Every stored value of the meta table, the run records, the saved strategies and the chunk-set rows
        that cannot be read back (``readback``), named by table, row and field (``workbench verify`` reports
        them)."""
        for (key,) in self.db.execute("SELECT key FROM meta ORDER BY key").fetchall():
            if key == "generation":
                self.generation()
            elif isinstance(key, str) and key.startswith("rate:"):
                self.caches.rate(key.removeprefix("rate:"))
        self.sets.unreadable_chunk_sets()
        found = self.bad_values.messages()
        for run_id, *fields in self.db.execute("SELECT id, config_json, summary_json FROM runs ORDER BY rowid"):
            for name, raw in zip(("config_json", "summary_json"), fields, strict=True):
                if raw is None and name == "summary_json":
                    continue
                problem = json_object(raw)[1]
                if problem:
                    found.append(f"run {shown(run_id)}: {name} {problem}; the run is left out")
        for run_id, q_index in self.db.execute(
                "SELECT run_id, q_index FROM run_questions WHERE NOT json_valid(metrics_json) "
                "OR NOT json_valid(spans_json) ORDER BY run_id, q_index LIMIT 20"):
            found.append(f"run {shown(run_id)}: question {q_index} holds JSON that does not read; the question "
                         "is left out")
        for name, raw in self.db.execute("SELECT name, strategy_json FROM saved_strategies ORDER BY name"):
            problem = json_object(raw)[1]
            if problem:
                found.append(f"saved strategy {shown(name)}: strategy_json {problem}; it is left out")
        return found

    def repair_meta(self) -> list[str]:
        """Rewrite the meta table's unreadable values in one transaction: the generation counter as a number,
        an unreadable rate forgotten (measured again). Returns what was done."""
        done: list[str] = []
        with self.writing(), self.transaction():
            for key, raw in self.db.execute("SELECT key, value FROM meta ORDER BY key").fetchall():
                if key == "generation" and counter(raw)[0] is None:
                    self.bump_generation()  # SQLite's CAST reads the text as 0: the counter becomes 1
                    done.append("meta 'generation' rewritten as a number")
                elif isinstance(key, str) and key.startswith("rate:") and positive_number(raw)[0] is None:
                    self.db.execute("DELETE FROM meta WHERE key = ?", [key])
                    done.append(f"meta {key!r} forgotten (measured again by the next build)")
        return done


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
