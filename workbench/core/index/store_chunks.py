"""The store's chunk tables: chunk sets and chunks.

A chunk set is visible to search only when its ``state`` is ``ready``. Every SQL statement on these tables
lives here, one method per operation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.index.store_connection import StoreConnection, now, writes
from workbench.core.ingest.chunking import ChunkConfig, ChunkPiece
from workbench.core.ingest.documents import Document

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


class ChunkTables(StoreConnection):
    """Chunk sets and chunks of a workbench database."""

    # ----- chunk sets ------------------------------------------------------------------------
    @writes
    def ensure_chunk_set_row(self, config: ChunkConfig, model_id: str) -> ChunkSetInfo:
        """The row of the chunk set for ``config`` and ``model_id``, created (state ``new``) if missing."""
        set_id = config.set_id(model_id)
        if not self.db.table("chunk_sets").count_where("id = ?", [set_id]):
            self.db.table("chunk_sets").insert(
                {"id": set_id, "config_json": config.to_json(), "model_id": model_id, "state": "new",
                 "chunk_count": 0, "created": now(), "updated": now()}
            )
        return self.chunk_set(set_id)

    def chunk_set(self, set_id: str) -> ChunkSetInfo:
        """One chunk set by id."""
        rows = list(self.db.query("SELECT * FROM chunk_sets WHERE id = ?", [set_id]))
        if not rows:
            raise KeyError(f"no chunk set {set_id}")
        r = rows[0]
        return ChunkSetInfo(r["id"], ChunkConfig(**json.loads(r["config_json"])), r["model_id"], r["state"],
                            r["chunk_count"])

    def chunk_sets(self) -> list[ChunkSetInfo]:
        """Every chunk set."""
        return [self.chunk_set(r["id"]) for r in self.db.query("SELECT id FROM chunk_sets ORDER BY created")]

    @writes
    def set_state(self, set_id: str, state: str) -> None:
        """Mark a chunk set ``building`` or ``ready`` (and refresh its chunk count)."""
        count = self.db.table("chunks").count_where("set_id = ?", [set_id])
        with self.transaction():
            self.db.execute(
                "UPDATE chunk_sets SET state = ?, chunk_count = ?, updated = ? WHERE id = ?",
                [state, count, now(), set_id],
            )
            self._bump()

    def chunked_docs(self, set_id: str) -> dict[int, str]:
        """``{doc_id: sha256 of the text that was chunked}`` for a chunk set."""
        return {r[0]: r[1] for r in self.db.execute(
            "SELECT doc_id, doc_sha256 FROM chunk_set_docs WHERE set_id = ?", [set_id])}

    # ----- chunks ----------------------------------------------------------------------------
    def _delete_doc_chunks(self, doc_id: int, set_id: str | None = None) -> None:
        """Delete one document's chunks and chunked-document records: in one chunk
        set, or in every set when ``set_id`` is None (call inside a transaction)."""
        where, params = ("doc_id = ?", [doc_id]) if set_id is None else ("set_id = ? AND doc_id = ?", [set_id, doc_id])
        self.db.execute(f"DELETE FROM chunks WHERE {where}", params)
        self.db.execute(f"DELETE FROM chunk_set_docs WHERE {where}", params)

    @writes
    def replace_doc_chunks(
        self,
        set_id: str,
        doc: Document,
        pieces: Sequence[ChunkPiece],
        prefixes: Sequence[str],
        text_hashes: Sequence[str],
        tokens: Sequence[int],
    ) -> list[int]:
        """Replace the chunks of one document in one chunk set, in one transaction; returns new ids."""
        assert doc.id is not None
        with self.transaction():
            self._delete_doc_chunks(doc.id, set_id)
            ids: list[int] = []
            cur = self.db.conn.cursor()
            for piece, prefix, text_hash, n in zip(pieces, prefixes, text_hashes, tokens, strict=True):
                cur.execute(
                    'INSERT INTO chunks (set_id, doc_id, position, start, "end", heading_path, prefix, '
                    "text_hash, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [set_id, doc.id, piece.position, piece.start, piece.end,
                     json.dumps(piece.heading_path, ensure_ascii=False), prefix, text_hash, n],
                )
                assert cur.lastrowid is not None
                ids.append(cur.lastrowid)
            self.db.execute(
                "INSERT OR REPLACE INTO chunk_set_docs (set_id, doc_id, doc_sha256) VALUES (?, ?, ?)",
                [set_id, doc.id, doc.sha256],
            )
            self._bump()
        return ids

    @writes
    def drop_doc_from_set(self, set_id: str, doc_id: int) -> None:
        """Remove one document's chunks from a chunk set."""
        with self.transaction():
            self._delete_doc_chunks(doc_id, set_id)
            self._bump()

    def chunk_table(self, set_id: str) -> ChunkTable:
        """Every chunk of a set, ordered by document and position, as arrays."""
        rows = self.db.execute(
            'SELECT id, doc_id, position, start, "end", tokens, heading_path, prefix, text_hash '
            "FROM chunks WHERE set_id = ? ORDER BY doc_id, position",
            [set_id],
        ).fetchall()
        cols: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * 9
        ids, doc_ids, positions, starts, ends, tokens = (np.asarray(c, dtype=np.int64) for c in cols[:6])
        return ChunkTable(ids, doc_ids, positions, starts, ends, tokens, list(cols[6]), list(cols[7]), list(cols[8]))

    def chunk_ids(self, set_id: str) -> np.ndarray:
        """Ids of every chunk in a set, sorted."""
        rows = self.db.execute("SELECT id FROM chunks WHERE set_id = ? ORDER BY id", [set_id]).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.int64)

    def chunk_spans(self, ids: Sequence[int]) -> list[tuple[int, int, int, str, str]]:
        """``(doc_id, start, end, prefix, text_hash)`` of these chunks, ordered by id."""
        out: list[tuple[int, int, int, str, str]] = []
        for i in range(0, len(ids), ID_BATCH):
            part = [int(x) for x in ids[i : i + ID_BATCH]]
            marks = ",".join("?" * len(part))
            out += [(r[0], r[1], r[2], r[3], r[4]) for r in self.db.execute(
                f'SELECT doc_id, start, "end", prefix, text_hash FROM chunks WHERE id IN ({marks}) ORDER BY id',
                part)]
        return out

    def count_chunks_longer_than(self, set_id: str, tokens: int) -> int:
        """Chunks of a set whose tokens plus embedded prefix (about 4 characters a token) exceed ``tokens``."""
        return int(self.db.execute(
            "SELECT count(*) FROM chunks WHERE set_id = ? AND tokens + length(prefix) / 4 > ?", [set_id, tokens]
        ).fetchone()[0])
