"""The store's values: a chunk set's row and scope, a chunk set's chunks as arrays, and the error of a document
that is not stored (any more)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from workbench.core.ingest.values import ChunkConfig

# Largest number of ids bound into one ``IN (...)`` list (SQLite's variable limit is far above).
ID_BATCH = 500


@dataclass(frozen=True)
class Scope:
    """The documents a scoped chunk set covers (a question set's corpora), by stored document id.

    A chunk set without a scope covers every stored document of the data folder (what the user's own
    searches use); a scoped one covers exactly these documents, so searching it ranks only them: its top-k is
    the top-k within the scope. The scope is part of the set's identity (``key``)."""

    doc_ids: tuple[int, ...]

    def __post_init__(self) -> None:
        ids = tuple(sorted({int(i) for i in self.doc_ids}))
        if not ids:
            raise ValueError("a scope holds at least one document")
        object.__setattr__(self, "doc_ids", ids)

    @classmethod
    def of(cls, doc_ids: Iterable[int]) -> Scope:
        """The scope of these document ids (order and repeats do not matter)."""
        return cls(tuple(doc_ids))

    @property
    def key(self) -> str:
        """A short stable digest of the document ids (enters the chunk set's identity)."""
        return hashlib.sha256(("scope:" + ",".join(map(str, self.doc_ids))).encode()).hexdigest()[:16]

    def __len__(self) -> int:
        return len(self.doc_ids)


@dataclass(frozen=True)
class ChunkSetInfo:
    """One chunk set: a chunking configuration plus an embedding model, over every stored document or, with a
    ``scope`` (document ids), over those documents only."""

    id: str
    config: ChunkConfig
    model_id: str
    state: str
    chunk_count: int
    scope: tuple[int, ...] = ()  # () = every stored document

    def covers(self, shas: dict[int, str]) -> dict[int, str]:
        """The part of ``{doc_id: sha256}`` (every stored document) this set should hold."""
        if not self.scope:
            return shas
        return {d: shas[d] for d in self.scope if d in shas}


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
