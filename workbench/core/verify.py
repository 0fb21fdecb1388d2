"""Consistency checks of a data folder: database integrity, chunks vs documents, FAISS vs database."""

from __future__ import annotations

import numpy as np

from workbench.core.indexer import index_path, sync_index
from workbench.core.vectors import VectorIndex


def verify_store(ws, repair: bool = False) -> dict:  # noqa: ANN001 - Workspace
    """Check the store; with ``repair`` rebuild FAISS files that do not match. Returns a JSON-ready report."""
    store = ws.store
    problems: list[str] = []
    notes: list[str] = []
    repaired: list[str] = []
    check = store.db.execute("PRAGMA quick_check").fetchone()[0]
    if check != "ok":
        problems.append(f"SQLite integrity check failed: {check}")
    orphans = store.db.execute(
        "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id WHERE d.id IS NULL").fetchone()[0]
    if orphans:
        problems.append(f"{orphans} chunk(s) belong to no document")
    fts_orphans = store.db.execute(
        "SELECT count(*) FROM chunk_fts WHERE rowid NOT IN (SELECT id FROM chunks)").fetchone()[0]
    if fts_orphans:
        problems.append(f"{fts_orphans} full-text row(s) belong to no chunk")
    sets = store.chunk_sets()
    for info in sets:
        label = f"chunk set {info.id} ({info.config.label()})"
        if info.state != "ready":
            notes.append(f"{label} is incomplete (state '{info.state}'): not visible to search; "
                         "the next search or index run completes it")
            continue
        db_ids = store.chunk_ids(info.id)
        missing_vectors = store.db.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.text_hash = c.text_hash AND e.model_id = ? "
            "WHERE c.set_id = ? AND e.text_hash IS NULL", [info.model_id, info.id]).fetchone()[0]
        if missing_vectors:
            problems.append(f"{label}: {missing_vectors} chunk(s) have no cached vector")
        try:
            index = VectorIndex.load(index_path(ws.data_dir, info.id))
            held = index.ids()
            if not np.array_equal(held, db_ids):
                extra = len(np.setdiff1d(held, db_ids))
                lost = len(np.setdiff1d(db_ids, held))
                problems.append(f"{label}: FAISS holds {extra} id(s) with no chunk and lacks {lost} chunk id(s)")
                bad = True
            else:
                bad = False
        except ValueError as exc:
            problems.append(f"{label}: {exc}")
            bad = True
        if bad and repair:
            sync_index(store, ws.data_dir, info.id, ws.embedder, rebuild=True)
            repaired.append(f"{label}: FAISS index rebuilt from cached vectors")
    consistent = not problems
    return {"consistent": consistent, "problems": problems, "notes": notes, "repaired": repaired,
            "chunk_sets": len(sets), "documents": len(store.documents())}
