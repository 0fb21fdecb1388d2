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
from workbench.core.index.rates import (
    MAX_CHARS_PER_S,
    MIN_CHARS_PER_S,
    RATE_PREFIX,
    evidence_name,
    implausible_rate,
)
from workbench.core.index.vectors import RECALL_TARGET, IndexDamaged, VectorIndex
from workbench.core.ingest.chunkers.identity import chunking_label
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

REPAIRABLE = ("meta ", "chunk set ")  # unreadable values ``--repair`` mends: problems; others are notes
RECALL_SLACK = 0.005  # re-measuring gives the calibrated figure exactly; this only absorbs float rounding

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
    if not unrepairable:
        meta = _check_values(store, notes)
        problems += meta
        if meta and repair:
            try:
                with ws.writing():
                    repaired += _repair_values(store, ws.data_dir, meta)
            except StoreError as exc:
                unrepairable.append(f"stored values not repaired ({exc})")
    if store.refusal and not unrepairable:
        notes.append(store.refusal)
    for info in sets:
        label = f"chunk set {info.id} ({chunking_label(info.config)})"
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


def _check_values(store: Store, notes: list[str]) -> list[str]:
    """Stored values that do not read back (``store.readback``): returns the meta table's (its counter and
    rates: problems, which ``--repair`` mends); a damaged run record or saved strategy becomes a note (it is
    left out wherever it would be read; ``workbench runs --delete`` removes a run)."""
    found = store.audit_values()
    for name in store.caches.rate_names():
        model = name.removeprefix(RATE_PREFIX)
        rate = implausible_rate(store, model) if name.startswith(RATE_PREFIX) else None
        if rate is not None:  # the workbench's own measurement (or an older version's): a note, never damage
            notes.append(f"the embedding rate kept for {model} ({rate:g} characters/s) is outside the plausible "
                         f"{MIN_CHARS_PER_S:g} to {MAX_CHARS_PER_S:g}: ignored, measured again by the next build")
    found += [m for m in store.bad_values.messages() if m not in found]
    notes += [m for m in found if not m.startswith(REPAIRABLE)]
    return [m for m in found if m.startswith(REPAIRABLE)]


def _repair_values(store: Store, data_dir: Path, meta: list[str]) -> list[str]:
    """Mend the values ``meta`` names: the counter rewritten as a number, a rate forgotten (this machine's rate
    is measured again by the next build), an unreadable chunk set removed (rebuilt when next used). Returns
    what was done."""
    done = store.repair_meta()
    for set_id in store.sets.unreadable_chunk_sets():
        store.sets.drop_chunk_set(set_id)
        index_path(data_dir, set_id).unlink(missing_ok=True)
        done.append(f"chunk set {set_id!r} removed (it is rebuilt when next used)")
    for name in store.caches.rate_names():
        if name.startswith(RATE_PREFIX) and any(f"'rate:{name}'" in m for m in meta):
            store.caches.forget_rate(name)
            store.caches.forget_rate(evidence_name(name.removeprefix(RATE_PREFIX)))
            done.append(f"meta 'rate:{name}' forgotten (measured again by the next build)")
    return done


def _orphans(store: Store) -> list[str]:
    out = []
    orphans = store.sets.orphan_chunk_count()
    if orphans:
        out.append(f"{orphans} chunk(s) belong to no document")
    return out


def _update_pending(store: Store, info: ChunkSetInfo) -> bool:
    """True when documents changed (or went) since the set was brought up to date: the designed lazy update,
    which the next search of the set completes (it re-cuts those documents and takes their earlier chunks'
    ids out of the FAISS file)."""
    return info.covers(store.documents.document_shas()) != store.sets.chunked_docs(info.id)


def nprobe_problem(index: VectorIndex) -> str | None:
    """For an IVF index: its kept ``nprobe`` re-measured against the recall target it was calibrated for
    (the same pseudo-questions from its own vectors as ``calibrate_nprobe``); a problem when it falls
    short (a lowered nprobe silently loses recall). None for an exact index or a sufficient nprobe."""
    if index.kind != "ivf" or index.size == 0:
        return None
    recall = index.measured_recall()
    if recall >= RECALL_TARGET - RECALL_SLACK:
        return None
    return (f"its approximate index scans {index.nprobe} list(s) per query (nprobe), which reaches recall@10 "
            f"{recall:.3f} against exact search, below the {RECALL_TARGET} it was calibrated for (lowered "
            "outside the workbench?): `workbench verify --repair` rebuilds it and measures nprobe again")


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
        if lost == 0 and _update_pending(store, info):
            notes.append(f"chunk set {info.id} ({chunking_label(info.config)}): documents changed since it was last "
                         f"searched; its FAISS file still holds {extra} id(s) of their earlier chunks, which no "
                         "search returns: it is up to date after the next search")
        else:
            found.append(f"FAISS holds {extra} id(s) with no chunk and lacks {lost} chunk id(s)")
    probes = store.sets.probe_vectors(info.id, info.model_id, 3)
    try:
        for blob in probes:
            index.search(np.frombuffer(blob, dtype=np.float32), 10)
    except IndexDamaged as exc:
        found.append(str(exc).split(":")[0])
    lowered = nprobe_problem(index)
    if lowered:
        found.append(lowered)
    if not checksums and not found:
        notes.append(f"chunk set {info.id}: index file {path.name} was written by an older version (no recorded "
                     "checksum); it holds exactly the set's chunks and answers a probe search, and the next "
                     "search rewrites it with a checksum")
    elif not checksums:
        found.append(f"index file {path.name} has no recorded checksum (written by an older version)")
    return found
