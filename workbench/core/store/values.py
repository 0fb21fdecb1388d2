"""The store's values: a chunk set's row, a chunk set's chunks as arrays, and the error of a document that is
not stored (any more)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.ingest.chunking import ChunkConfig

# Largest number of ids bound into one ``IN (...)`` list (SQLite's variable limit is far above).
ID_BATCH = 500


@dataclass(frozen=True)
class ChunkSetInfo:
    """One chunk set: a chunking configuration plus an embedding model."""

    id: str
    config: ChunkConfig
    model_id: str
    state: str
    chunk_count: int


@dataclass(frozen=True)
class ChunkTable:
    """All chunks of a chunk set as parallel arrays, ordered by (doc_id, position)."""

    ids: np.ndarray
    doc_ids: np.ndarray
    positions: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    tokens: np.ndarray
    heading_paths: list[str]
    prefixes: list[str]
    text_hashes: list[str]

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, keep: np.ndarray) -> ChunkTable:
        """Only the rows where the boolean mask ``keep`` is true (order kept)."""
        idx = np.flatnonzero(keep)

        def pick(xs: list[str]) -> list[str]:
            return [xs[i] for i in idx]

        return ChunkTable(self.ids[idx], self.doc_ids[idx], self.positions[idx], self.starts[idx], self.ends[idx],
                          self.tokens[idx], pick(self.heading_paths), pick(self.prefixes), pick(self.text_hashes))


class DocumentGone(KeyError):
    """A document id that is not (or no longer) stored: another process may have removed it."""
