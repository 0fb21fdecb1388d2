"""Reading a chunk set without writing: what a search uses while another thread or process writes, or when
the data folder is read-only."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workbench.core.index.build import index_path
from workbench.core.index.vectors import IndexDamaged, VectorIndex
from workbench.core.store import ChunkTable, Store, StoreError

Snapshot = tuple[ChunkTable, VectorIndex]


def try_snapshot(store: Store, data_dir: Path, set_id: str) -> Snapshot | None:
    """The FAISS file of ``set_id`` verified against its recorded digest, with the chunks it holds; None
    when the file does not match (a writer is between replacing the file and recording its digest, or
    has not written it yet: the caller waits for the writer, or rebuilds the file itself)."""
    path = index_path(data_dir, set_id)
    try:
        index = VectorIndex.load(path, store.sets.index_checksums(set_id) or None)
    except (IndexDamaged, ValueError):
        return None
    table = store.sets.chunk_table(set_id)
    return table.subset(np.isin(table.ids, index.ids())), index


def read_only_snapshot(store: Store, data_dir: Path, set_id: str) -> Snapshot:
    """``try_snapshot`` on a store nothing can write to: a file that does not match its digest is damaged
    (no writer can be replacing it) and cannot be rebuilt there."""
    snapshot = try_snapshot(store, data_dir, set_id)
    if snapshot is None:
        path = index_path(data_dir, set_id)
        what = "is missing" if not path.exists() else "does not match its recorded checksum"
        raise StoreError(f"the vector index of chunk set {set_id} ({path.name}) {what} and cannot be rebuilt "
                         f"here: {store.refusal or 'the store cannot be written'}")
    return snapshot
