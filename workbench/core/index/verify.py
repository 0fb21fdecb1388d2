"""Consistency checks of a data folder: database integrity, chunks vs documents, FAISS vs database.

FAISS files are checked by content (the sha256 recorded when each was written) and by a probe search
(scores of normalised vectors lie in [-1, 1]). ``--repair`` rebuilds FAISS files from the cached vectors;
damage inside the SQLite file cannot be repaired and is reported as such.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from workbench.core.index.build import index_path, sync_index
from workbench.core.index.vectors import IndexDamaged, VectorIndex
from workbench.core.jobs import ProgressSink
from workbench.core.llm.base import LLMError
from workbench.core.store import StoreError

if TYPE_CHECKING:
    from workbench.core.index.embedder_pool import EmbedderPool
    from workbench.core.store import ChunkSetInfo, Store


class VerifiedFolder(Protocol):
    """What ``verify_store`` needs of a workspace: its store, folder, open models and writer lock."""

    data_dir: Path
    models: EmbedderPool

    @property
    def store(self) -> Store:
        """This thread's connection to the store."""
        ...

    def writing(self, progress: ProgressSink | None = None) -> AbstractContextManager[None]:
        """Hold the data folder's writer lock."""
        ...

SQLITE_ADVICE = ("SQLite damage cannot be repaired: move the data folder away and index your files again "
                 "(the cached embeddings are lost), or restore the folder from a backup")


def verify_store(ws: VerifiedFolder, repair: bool = False) -> dict[str, Any]:
    """Check the store; with ``repair`` rebuild FAISS files that do not match. Returns a JSON-ready report
    whose ``unrepaired`` lists the problems still there after a repair (always empty without one)."""
    store = ws.store
    problems: list[str] = []
    notes: list[str] = []
    repaired: list[str] = []
    unrepairable: list[str] = []
    try:
        rows = store.quick_check(5)
        if rows != ["ok"]:
            unrepairable.append(f"SQLite integrity check failed: {'; '.join(rows)[:300]}")
        unrepairable += _orphans(store)
        sets = store.sets.chunk_sets()
        documents = len(store.documents.rows())
    except sqlite3.DatabaseError as exc:
        unrepairable.append(f"the database cannot be read ({exc})")
        sets, documents = [], 0
    if unrepairable:
        notes.append(SQLITE_ADVICE)
    problems += unrepairable
    if store.refusal and not unrepairable:
        notes.append(store.refusal)
    for info in sets:
        label = f"chunk set {info.id} ({info.config.label()})"
        if info.state != "ready":
            notes.append(f"{label} is incomplete (state '{info.state}'): not visible to search; "
                         "the next search or index run completes it")
            continue
        try:
            found = _check_set(ws, info, notes)
        except sqlite3.DatabaseError as exc:
            found = [f"cannot be read ({exc})"]
            unrepairable.append(f"{label}: {found[0]}")
        problems += [f"{label}: {p}" for p in found]
        if found and repair and not unrepairable:
            try:
                embedder = ws.models.by_model_id(info.model_id)  # the set's own embedding model
                if embedder is None:
                    raise StoreError(f"its embedding model {info.model_id} is not open: name it with --model")
                with ws.writing():
                    sync_index(store, ws.data_dir, info.id, embedder, rebuild=True)
                repaired.append(f"{label}: FAISS index rebuilt from cached vectors")
            except (StoreError, LLMError) as exc:
                unrepairable.append(f"{label}: not rebuilt ({exc})")
        elif found and repair:
            unrepairable.append(f"{label}: not rebuilt while the database is damaged")
    return {"consistent": not problems, "problems": problems, "notes": notes, "repaired": repaired,
            "unrepaired": unrepairable if repair else [], "chunk_sets": len(sets), "documents": documents}


def _orphans(store: Store) -> list[str]:
    out = []
    orphans = store.sets.orphan_chunk_count()
    if orphans:
        out.append(f"{orphans} chunk(s) belong to no document")
    return out


def _check_set(ws: VerifiedFolder, info: ChunkSetInfo, notes: list[str]) -> list[str]:
    """Problems of one ready chunk set: vectors missing from the cache, FAISS file damaged or stale. A file
    written before checksums were recorded is checked by its ids and a probe search (a note, not a problem,
    when both pass)."""
    store = ws.store
    found = []
    missing_vectors = store.sets.chunks_without_vector_count(info.id, info.model_id)
    if missing_vectors:
        found.append(f"{missing_vectors} chunk(s) have no cached vector")
    checksums = store.sets.index_checksums(info.id)
    path = index_path(ws.data_dir, info.id)
    try:
        index = VectorIndex.load(path, checksums or None)
    except ValueError as exc:  # missing, unreadable, or IndexDamaged
        return [*found, str(exc)]
    db_ids = store.sets.chunk_ids(info.id)
    held = index.ids()
    if not np.array_equal(held, db_ids):
        extra = len(np.setdiff1d(held, db_ids))
        lost = len(np.setdiff1d(db_ids, held))
        found.append(f"FAISS holds {extra} id(s) with no chunk and lacks {lost} chunk id(s)")
    probes = store.sets.probe_vectors(info.id, info.model_id, 3)
    try:
        for blob in probes:
            index.search(np.frombuffer(blob, dtype=np.float32), 10)
    except IndexDamaged as exc:
        found.append(str(exc).split(":")[0])
    if not checksums and not found:
        notes.append(f"chunk set {info.id}: index file {path.name} was written by an older version (no recorded "
                     "checksum); it holds exactly the set's chunks and answers a probe search, and the next "
                     "search rewrites it with a checksum")
    elif not checksums:
        found.append(f"index file {path.name} has no recorded checksum (written by an older version)")
    return found
