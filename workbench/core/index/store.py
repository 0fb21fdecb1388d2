"""The SQLite store (sqlite-utils): documents, headings, chunk sets, chunks, embedding cache.

All writes that belong together happen in one transaction, so a crash leaves the previous state.
A chunk set is visible to search only when its ``state`` is ``ready``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from workbench.core.index.storage_errors import StoreError
from workbench.core.index.store_connection import StoreConnection, cache_write, writes
from workbench.core.ingest.chunking import ChunkConfig, ChunkPiece
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import Heading

DB_NAME = "workbench.sqlite3"
__all__ = ["DB_NAME", "ChunkSetInfo", "ChunkTable", "Store", "StoreError", "now"]


def now() -> str:
    """UTC timestamp in ISO format."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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
        pick = lambda xs: [xs[i] for i in idx]  # noqa: E731
        return ChunkTable(self.ids[idx], self.doc_ids[idx], self.positions[idx], self.starts[idx], self.ends[idx],
                          self.tokens[idx], pick(self.heading_paths), pick(self.prefixes), pick(self.text_hashes))


class Store(StoreConnection):
    """A workbench database file: documents, headings, chunk sets, chunks, FAISS checksums and caches.

    One instance per thread (SQLite connections are not shared); opening, read-only and damage rules are
    ``StoreConnection``'s.
    """

    # ----- documents -------------------------------------------------------------------------
    def document_by_path(self, path: str) -> dict | None:
        """Metadata row of the document stored for ``path`` (no text)."""
        rows = list(self.db.query("SELECT id, sha256 FROM documents WHERE path = ?", [path]))
        return rows[0] if rows else None

    @writes
    def upsert_document(self, doc: Document) -> tuple[int, bool]:
        """Store a document; returns ``(id, changed)``. Unchanged content (same sha256) is not touched.

        A changed document replaces its text and headings and drops its chunks in every chunk set, in
        one transaction.
        """
        existing = self.document_by_path(doc.path)
        if existing and existing["sha256"] == doc.sha256:
            return existing["id"], False
        with self.db.atomic():
            row = {
                "path": doc.path, "title": doc.title, "text": doc.text, "format": doc.format,
                "sha256": doc.sha256, "size": doc.size, "mtime": doc.mtime, "status": "indexed",
                "note": doc.note, "added": now(),
            }
            if existing:
                doc_id = existing["id"]
                self.db["documents"].update(doc_id, row)
                self._drop_doc_children(doc_id)
            else:
                doc_id = self.db["documents"].insert(row).last_pk
            self.db["headings"].insert_all(
                {"doc_id": doc_id, "level": h.level, "title": h.title, "start": h.start, "end": h.end}
                for h in doc.headings
            )
            self.db.execute("DELETE FROM problems WHERE path = ?", [doc.path])
            self._bump()
        return int(doc_id), True

    def _drop_doc_children(self, doc_id: int) -> None:
        self.db.execute(
            "DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)", [doc_id]
        )
        for table in ("chunks", "chunk_set_docs", "headings"):
            self.db.execute(f"DELETE FROM {table} WHERE doc_id = ?", [doc_id])

    @writes
    def remove_document(self, doc_id: int) -> None:
        """Delete a document with its headings and chunks in every chunk set."""
        with self.db.atomic():
            self._drop_doc_children(doc_id)
            self.db.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            self._bump()

    @writes
    def record_problem(self, path: str, status: str, reason: str) -> None:
        """Remember that a file was skipped or failed, with the reason shown to the user."""
        self.db["problems"].upsert(
            {"path": path, "status": status, "reason": reason, "checked": now()}, pk="path"
        )

    def clear_problem(self, path: str) -> None:
        """Forget the problem recorded for ``path`` (its file is indexed now)."""
        self.db.execute("DELETE FROM problems WHERE path = ?", [path])

    def forget_problems(self, paths: Iterable[str]) -> None:
        """Forget the problems recorded for these paths (their files are gone or were read again)."""
        with self.db.atomic():
            self.db.conn.executemany("DELETE FROM problems WHERE path = ?", [(p,) for p in paths])

    def move_document(self, doc_id: int, doc: Document) -> bool:
        """Give a stored document the path (and title, mtime) of ``doc``, which has the same content.

        Its chunks and vectors are kept, except in chunk sets whose embedded prefixes hold the title
        (heading path or contextual): there a changed title drops the chunks, rebuilt on the next use.
        Returns True when chunks were dropped.
        """
        old = self.document(doc_id)
        dropped = False
        with self.db.atomic():
            self.db["documents"].update(doc_id, {"path": doc.path, "title": doc.title, "mtime": doc.mtime,
                                                 "size": doc.size, "note": doc.note})
            self.db.execute("DELETE FROM problems WHERE path = ?", [doc.path])
            if old.title != doc.title:
                for info in self.chunk_sets():
                    if info.config.heading_prefix or info.config.contextual:
                        self.drop_doc_from_set(info.id, doc_id)
                        dropped = True
            self._bump()
        return dropped

    def problems(self) -> list[dict]:
        """Files that were skipped or failed."""
        return list(self.db.query("SELECT path, status, reason, checked FROM problems ORDER BY path"))

    def documents(self) -> list[dict]:
        """Metadata of every stored document (no text), ordered by path."""
        return list(
            self.db.query(
                "SELECT id, path, title, format, sha256, size, mtime, status, note, added, length(text) AS chars "
                "FROM documents ORDER BY path"
            )
        )

    def document(self, doc_id: int) -> Document:
        """The full document with its text and headings."""
        rows = list(self.db.query("SELECT * FROM documents WHERE id = ?", [doc_id]))
        if not rows:
            raise KeyError(f"no document {doc_id}")
        r = rows[0]
        headings = tuple(
            Heading(h["level"], h["title"], h["start"], h["end"])
            for h in self.db.query(
                'SELECT level, title, start, "end" FROM headings WHERE doc_id = ? ORDER BY start', [doc_id]
            )
        )
        return Document(
            path=r["path"], title=r["title"], text=r["text"], sha256=r["sha256"], size=r["size"],
            mtime=r["mtime"], format=r["format"], headings=headings, id=r["id"], note=r["note"],
        )

    def document_shas(self) -> dict[int, str]:
        """``{doc_id: sha256}`` of every stored document."""
        return {r[0]: r[1] for r in self.db.execute("SELECT id, sha256 FROM documents")}

    # ----- chunk sets ------------------------------------------------------------------------
    @writes
    def ensure_chunk_set_row(self, config: ChunkConfig, model_id: str) -> ChunkSetInfo:
        """The row of the chunk set for ``config`` and ``model_id``, created (state ``new``) if missing."""
        set_id = config.set_id(model_id)
        if not self.db["chunk_sets"].count_where("id = ?", [set_id]):
            self.db["chunk_sets"].insert(
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
        count = self.db["chunks"].count_where("set_id = ?", [set_id])
        with self.db.atomic():
            self.db.execute(
                "UPDATE chunk_sets SET state = ?, chunk_count = ?, updated = ? WHERE id = ?",
                [state, count, now(), set_id],
            )
            self._bump()

    def chunked_docs(self, set_id: str) -> dict[int, str]:
        """``{doc_id: sha256 of the text that was chunked}`` for a chunk set."""
        return {r[0]: r[1] for r in self.db.execute(
            "SELECT doc_id, doc_sha256 FROM chunk_set_docs WHERE set_id = ?", [set_id])}

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
        with self.db.atomic():
            self.db.execute(
                "DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE set_id = ? AND doc_id = ?)",
                [set_id, doc.id],
            )
            self.db.execute("DELETE FROM chunks WHERE set_id = ? AND doc_id = ?", [set_id, doc.id])
            ids = []
            cur = self.db.conn.cursor()
            for piece, prefix, text_hash, n in zip(pieces, prefixes, text_hashes, tokens, strict=True):
                cur.execute(
                    'INSERT INTO chunks (set_id, doc_id, position, start, "end", heading_path, prefix, '
                    "text_hash, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [set_id, doc.id, piece.position, piece.start, piece.end,
                     json.dumps(piece.heading_path, ensure_ascii=False), prefix, text_hash, n],
                )
                ids.append(cur.lastrowid)
            cur.executemany(
                "INSERT INTO chunk_fts (rowid, text) VALUES (?, ?)",
                [(cid, doc.text[p.start : p.end]) for cid, p in zip(ids, pieces, strict=True)],
            )
            self.db.execute(
                "INSERT OR REPLACE INTO chunk_set_docs (set_id, doc_id, doc_sha256) VALUES (?, ?, ?)",
                [set_id, doc.id, doc.sha256],
            )
            self._bump()
        return ids

    @writes
    def drop_doc_from_set(self, set_id: str, doc_id: int) -> None:
        """Remove one document's chunks from a chunk set."""
        with self.db.atomic():
            self.db.execute(
                "DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE set_id = ? AND doc_id = ?)",
                [set_id, doc_id],
            )
            self.db.execute("DELETE FROM chunks WHERE set_id = ? AND doc_id = ?", [set_id, doc_id])
            self.db.execute("DELETE FROM chunk_set_docs WHERE set_id = ? AND doc_id = ?", [set_id, doc_id])
            self._bump()

    def chunk_table(self, set_id: str) -> ChunkTable:
        """Every chunk of a set, ordered by document and position, as arrays."""
        rows = self.db.execute(
            'SELECT id, doc_id, position, start, "end", tokens, heading_path, prefix, text_hash '
            "FROM chunks WHERE set_id = ? ORDER BY doc_id, position",
            [set_id],
        ).fetchall()
        cols = list(zip(*rows, strict=True)) if rows else [()] * 9
        ints = [np.asarray(c, dtype=np.int64) for c in cols[:6]]
        return ChunkTable(*ints, list(cols[6]), list(cols[7]), list(cols[8]))

    def chunk_ids(self, set_id: str) -> np.ndarray:
        """Ids of every chunk in a set, sorted."""
        rows = self.db.execute("SELECT id FROM chunks WHERE set_id = ? ORDER BY id", [set_id]).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.int64)

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

    # ----- embedding cache -------------------------------------------------------------------
    def cached_vectors(self, model_id: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Vectors already computed for these embedded-text hashes."""
        wanted = list(dict.fromkeys(text_hashes))
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            marks = ",".join("?" * len(part))
            for h, blob in self.db.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE model_id = ? AND text_hash IN ({marks})",
                [model_id, *part],
            ):
                found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

    @cache_write
    def put_vectors(self, model_id: str, vectors: dict[str, np.ndarray]) -> None:
        """Add vectors to the cache (one transaction)."""
        with self.db.atomic():
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def embedding_count(self, model_id: str | None = None) -> int:
        """Number of cached vectors (for one model, or all)."""
        if model_id is None:
            return self.db["embeddings"].count
        return self.db["embeddings"].count_where("model_id = ?", [model_id])

    # ----- LLM output cache (summaries, contextual sentences) ---------------------------------
    def llm_cached(self, kind: str, key: str, model: str) -> str | None:
        """A cached LLM output, or None."""
        row = self.db.execute(
            "SELECT value FROM llm_cache WHERE kind = ? AND key = ? AND model = ?", [kind, key, model]
        ).fetchone()
        return row[0] if row else None

    @cache_write
    def put_llm_cached(self, kind: str, key: str, model: str, value: str) -> None:
        """Remember an LLM output."""
        self.db.execute(
            "INSERT OR REPLACE INTO llm_cache (kind, key, model, value, created) VALUES (?, ?, ?, ?, ?)",
            [kind, key, model, value, now()],
        )
