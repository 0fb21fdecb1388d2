"""The store's chunk sets: their rows and scopes, their chunks, the checksums of their FAISS files, and the
consistency checks ``workbench verify`` runs over them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from workbench.core.ingest.chunkers.edited import HandSource
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.values import ChunkConfig, ChunkPiece, Document
from workbench.core.store.connection import StoreConnection, Tables, now, writes
from workbench.core.store.errors import StoreError
from workbench.core.store.readback import counter, json_object, shown
from workbench.core.store.values import ID_BATCH, ChunkSetInfo, ChunkTable, Scope


class ChunkSetTables(Tables):
    """The ``chunk_sets``, ``chunk_set_scopes``, ``chunk_set_docs``, ``chunks`` and ``index_files`` tables of a
    workbench database (``store.sets``). ``hands``: the database's hand-made chunkings (an ``edited:NAME`` set's
    id is read from them)."""

    def __init__(self, connection: StoreConnection, hands: HandSource) -> None:
        super().__init__(connection)
        self.hands = hands

    @writes
    def ensure_chunk_set_row(self, config: ChunkConfig, model_id: str, scope: Scope | None = None) -> ChunkSetInfo:
        """The row of the chunk set for ``config`` and ``model_id`` (over the documents of ``scope``, or every
        stored document), created (state ``new``) if missing."""
        set_id = chunk_set_id(config, model_id, scope.key if scope else "", self.hands)
        if not self.db.table("chunk_sets").count_where("id = ?", [set_id]):
            self.db.table("chunk_sets").insert(
                {"id": set_id, "config_json": config.to_json(), "model_id": model_id, "state": "new",
                 "chunk_count": 0, "created": now(), "updated": now()}
            )
            if scope is not None:
                self.db.conn.executemany("INSERT OR IGNORE INTO chunk_set_scopes (set_id, doc_id) VALUES (?, ?)",
                                         [(set_id, d) for d in scope.doc_ids])
        return self.chunk_set(set_id)

    def chunk_set(self, set_id: str) -> ChunkSetInfo:
        """One chunk set by id."""
        rows = list(self.db.query("SELECT * FROM chunk_sets WHERE id = ?", [set_id]))
        if not rows:
            raise KeyError(f"no chunk set {set_id}")
        info = self._chunk_set_info(rows[0])
        if isinstance(info, str):
            raise StoreError(info)
        return info

    def _chunk_set_info(self, r: dict[str, Any]) -> ChunkSetInfo | str:
        """The chunk set of a ``chunk_sets`` row, or the message naming its unreadable field (noted in the
        connection's ``bad_values``)."""
        set_id = r["id"]
        data, problem = json_object(r["config_json"])
        config = None
        if data is not None:
            try:
                config = ChunkConfig(**data)
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                problem = f"is not a chunking ({str(exc)[:120]})"
        count = counter(r["chunk_count"])[0]
        if config is None or not isinstance(r["model_id"], str) or count is None:
            field = "config_json" if config is None else "model_id" if not isinstance(r["model_id"], str) \
                else "chunk_count"
            why = problem if config is None else f"is {shown(r[field])}"
            return self.connection.bad_values.note(
                f"chunk set {shown(set_id)}", f"{field} {why}; the set is left out (`workbench verify --repair` "
                "removes it; it is rebuilt when next used)")
        scope = tuple(x[0] for x in self.db.execute(
            "SELECT doc_id FROM chunk_set_scopes WHERE set_id = ? ORDER BY doc_id", [set_id]))
        return ChunkSetInfo(str(set_id), config, r["model_id"], str(r["state"]), count, scope)

    def chunk_sets(self) -> list[ChunkSetInfo]:
        """Every chunk set that reads (one whose row does not is named in ``bad_values`` and left out)."""
        infos = (self._chunk_set_info(r) for r in self.db.query("SELECT * FROM chunk_sets ORDER BY created"))
        return [i for i in infos if not isinstance(i, str)]

    def unreadable_chunk_sets(self) -> list[str]:
        """Ids of the chunk sets whose rows do not read (``chunk_sets`` leaves them out)."""
        return [str(r["id"]) for r in self.db.query("SELECT * FROM chunk_sets ORDER BY created")
                if isinstance(self._chunk_set_info(r), str)]

    @writes
    def drop_chunk_set(self, set_id: str) -> None:
        """Remove a chunk set's row, chunks, scope and FAISS checksum, in one transaction (its FAISS file is
        the caller's; the set is rebuilt when next used)."""
        for table in ("chunks", "chunk_set_docs", "chunk_set_scopes", "index_files"):
            self.db.execute(f"DELETE FROM {table} WHERE set_id = ?", [set_id])
        self.db.execute("DELETE FROM chunk_sets WHERE id = ?", [set_id])
        self.connection.bump_generation()

    @writes
    def set_state(self, set_id: str, state: str) -> None:
        """Mark a chunk set ``building`` or ``ready`` (and refresh its chunk count)."""
        count = self.db.table("chunks").count_where("set_id = ?", [set_id])
        with self.connection.transaction():
            self.db.execute(
                "UPDATE chunk_sets SET state = ?, chunk_count = ?, updated = ? WHERE id = ?",
                [state, count, now(), set_id],
            )
            self.connection.bump_generation()

    def chunk_counts(self, set_id: str) -> dict[int, int]:
        """``{doc_id: chunks}`` of the documents a chunk set holds chunks of."""
        return {r[0]: r[1] for r in self.db.execute(
            "SELECT doc_id, count(*) FROM chunks WHERE set_id = ? GROUP BY doc_id", [set_id])}

    def chunked_docs(self, set_id: str) -> dict[int, str]:
        """``{doc_id: sha256 of the text that was chunked}`` for a chunk set."""
        return {r[0]: r[1] for r in self.db.execute(
            "SELECT doc_id, doc_sha256 FROM chunk_set_docs WHERE set_id = ?", [set_id])}

    # ----- chunks ----------------------------------------------------------------------------
    def delete_doc_chunks(self, doc_id: int, set_id: str | None = None) -> None:
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
        with self.connection.transaction():
            self.delete_doc_chunks(doc.id, set_id)
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
            self.connection.bump_generation()
        return ids

    @writes
    def drop_doc_from_set(self, set_id: str, doc_id: int) -> None:
        """Remove one document's chunks from a chunk set."""
        with self.connection.transaction():
            self.delete_doc_chunks(doc_id, set_id)
            self.connection.bump_generation()

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

    # ----- FAISS file checksums ---------------------------------------------------------------
    def index_checksums(self, set_id: str) -> set[str]:
        """sha256 digests a chunk set's FAISS file may have: the recorded one, and during a save the
        one it replaces (so a reader, or a crash, between the rename and the record sees a valid file)."""
        row = self.db.execute(
            "SELECT sha256, previous_sha256 FROM index_files WHERE set_id = ?", [set_id]).fetchone()
        return {h for h in row if h} if row else set()

    @writes
    def prepare_index_file(self, set_id: str, sha256: str, size: int) -> None:
        """Record the digest of a FAISS file about to replace the current one (call before the rename)."""
        self.db.execute(
            "INSERT INTO index_files (set_id, sha256, previous_sha256, size, written) VALUES (?, ?, NULL, ?, ?) "
            "ON CONFLICT(set_id) DO UPDATE SET previous_sha256 = sha256, sha256 = excluded.sha256, "
            "size = excluded.size, written = excluded.written",
            [set_id, sha256, size, now()],
        )

    @writes
    def commit_index_file(self, set_id: str) -> None:
        """The new FAISS file is in place: only its digest is valid from now on."""
        self.db.execute("UPDATE index_files SET previous_sha256 = NULL WHERE set_id = ?", [set_id])

    # ----- consistency checks (``workbench.core.index.verify``) ----------------------------------
    def orphan_chunk_count(self) -> int:
        """Chunks whose document is gone."""
        return int(self.db.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id WHERE d.id IS NULL"
        ).fetchone()[0])

    def chunks_without_vector_count(self, set_id: str, model_id: str) -> int:
        """Chunks of a set with no cached vector for ``model_id``."""
        return int(self.db.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.text_hash = c.text_hash AND e.model_id = ? "
            "WHERE c.set_id = ? AND e.text_hash IS NULL", [model_id, set_id]).fetchone()[0])

    def probe_vectors(self, set_id: str, model_id: str, limit: int) -> list[bytes]:
        """Cached vectors (raw float32 bytes) of the first ``limit`` chunks of a set, by chunk id."""
        rows = self.db.execute(
            "SELECT e.vector FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash AND e.model_id = ? "
            "WHERE c.set_id = ? ORDER BY c.id LIMIT ?", [model_id, set_id, limit]).fetchall()
        return [r[0] for r in rows]
