"""Reading a chunk set without writing: what a search uses while another thread or process writes, or when
the data folder is read-only."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from workbench.core.index.build import index_path
from workbench.core.index.store import ChunkTable, Store, StoreError
from workbench.core.index.vectors import IndexDamaged, VectorIndex


def read_snapshot(store: Store, data_dir: Path, set_id: str,
                  writer_busy: Callable[[], bool]) -> tuple[ChunkTable, VectorIndex]:
    """The verified FAISS file of ``set_id`` and the chunks it holds. A writer may be between replacing the
    file and recording its digest, so a mismatch is retried for a moment while ``writer_busy()``."""
    path = index_path(data_dir, set_id)
    for attempt in range(20):
        try:
            index = VectorIndex.load(path, store.index_checksums(set_id) or None)
            break
        except IndexDamaged:
            if attempt == 19 or not writer_busy():
                raise StoreError(
                    f"the vector index of chunk set {set_id} is damaged ({path.name} does not match its "
                    "recorded checksum) and cannot be rebuilt now"
                    + (": the data folder is read-only." if not store.writable else
                       " while another process writes; try again when it has finished.")) from None
            time.sleep(0.1)
    table = store.chunk_table(set_id)
    return table.subset(np.isin(table.ids, index.ids())), index
