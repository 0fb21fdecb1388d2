"""The SQLite store (sqlite-utils): documents, headings, chunk sets, chunks, caches and run records.

Every SQL statement of the application lives in this package, one method per operation; callers outside it go
through ``workbench.core.workspace.Workspace`` or a narrow protocol. All writes that belong together happen in
one transaction, so a crash leaves the previous state. A chunk set is visible to search only when its
``state`` is ``ready``. Opening, read-only and damage rules are ``StoreConnection``'s; the caches are
``CacheTables``' (``caches``) and the run records ``RunTables``' (``runs``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from workbench.core.ingest.chunking import ChunkConfig, ChunkPiece
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import Heading
from workbench.core.store.caches import CacheTables
from workbench.core.store.connection import now, writes
from workbench.core.store.question_sets import QuestionSetTables
from workbench.core.store.runs import RunTables
from workbench.core.store.values import ID_BATCH, ChunkSetInfo, ChunkTable, DocumentGone, Scope

DB_NAME = "workbench.sqlite3"


class Store(CacheTables, RunTables):
    """A workbench database file: documents, headings, chunk sets, chunks, FAISS checksums, caches and runs.
    One instance per thread (SQLite connections are not shared)."""

    @cached_property
    def question_sets(self) -> QuestionSetTables:
        """The question-set tables (a part over this connection)."""
        return QuestionSetTables(self)

    # ----- documents, headings and problems -------------------------------------------------
    def document_by_path(self, path: str) -> dict[str, Any] | None:
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
            return int(existing["id"]), False
        with self.transaction():
            row = {
                "path": doc.path, "title": doc.title, "text": doc.text, "format": doc.format,
                "sha256": doc.sha256, "size": doc.size, "mtime": doc.mtime, "status": "indexed",
                "note": doc.note, "added": now(),
            }
            if existing:
                doc_id = existing["id"]
                self.db.table("documents").update(doc_id, row)
                self._drop_doc_children(doc_id)
            else:
                doc_id = self.db.table("documents").insert(row).last_pk
            self.db.table("headings").insert_all(
                {"doc_id": doc_id, "level": h.level, "title": h.title, "start": h.start, "end": h.end}
                for h in doc.headings
            )
            self.clear_problem(doc.path)
            self._bump()
        return int(doc_id), True

    def _drop_doc_children(self, doc_id: int) -> None:
        """Delete a document's chunks in every chunk set and its headings (call inside a transaction)."""
        self._delete_doc_chunks(doc_id)
        self.db.execute("DELETE FROM headings WHERE doc_id = ?", [doc_id])

    @writes
    def remove_document(self, doc_id: int) -> None:
        """Delete a document with its headings and chunks in every chunk set."""
        with self.transaction():
            self._drop_doc_children(doc_id)
            self.db.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            self._bump()

    @writes
    def record_problem(self, path: str, status: str, reason: str) -> None:
        """Remember that a file was skipped or failed, with the reason shown to the user."""
        self.db.table("problems").upsert(
            {"path": path, "status": status, "reason": reason, "checked": now()}, pk="path"
        )

    def clear_problem(self, path: str) -> None:
        """Forget the problem recorded for ``path`` (its file is indexed now)."""
        self.db.execute("DELETE FROM problems WHERE path = ?", [path])

    @writes
    def forget_problems(self, paths: Iterable[str]) -> None:
        """Forget the problems recorded for these paths (their files are gone or were read again)."""
        with self.transaction():
            self.db.conn.executemany("DELETE FROM problems WHERE path = ?", [(p,) for p in paths])

    @writes
    def move_document(self, doc_id: int, doc: Document) -> bool:
        """Give a stored document the path (and title, mtime) of ``doc``, which has the same content.

        Its chunks and vectors are kept, except in chunk sets whose embedded prefixes hold the title
        (heading path or contextual): there a changed title drops the chunks, rebuilt on the next use.
        Returns True when chunks were dropped.
        """
        old = self.document(doc_id)
        dropped = False
        with self.transaction():
            self.db.table("documents").update(doc_id, {"path": doc.path, "title": doc.title, "mtime": doc.mtime,
                                                 "size": doc.size, "note": doc.note})
            self.clear_problem(doc.path)
            if old.title != doc.title:
                for info in self.chunk_sets():
                    if info.config.heading_prefix or info.config.contextual:
                        self.drop_doc_from_set(info.id, doc_id)
                        dropped = True
            self._bump()
        return dropped

    def problems(self) -> list[dict[str, Any]]:
        """Files that were skipped or failed."""
        return list(self.db.query("SELECT path, status, reason, checked FROM problems ORDER BY path"))

    def documents(self) -> list[dict[str, Any]]:
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
            raise DocumentGone(f"no document {doc_id}")
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

    def document_sizes(self, doc_ids: Sequence[int]) -> dict[int, int]:
        """``{doc_id: characters of its text}`` for these documents (no text is read into Python)."""
        out: dict[int, int] = {}
        for i in range(0, len(doc_ids), ID_BATCH):
            part = [int(x) for x in doc_ids[i : i + ID_BATCH]]
            marks = ",".join("?" * len(part))
            out |= {r[0]: r[1] for r in self.db.execute(
                f"SELECT id, length(text) FROM documents WHERE id IN ({marks})", part)}
        return out

    # ----- chunk sets ------------------------------------------------------------------------
    @writes
    def ensure_chunk_set_row(self, config: ChunkConfig, model_id: str, scope: Scope | None = None) -> ChunkSetInfo:
        """The row of the chunk set for ``config`` and ``model_id`` (over the documents of ``scope``, or every
        stored document), created (state ``new``) if missing."""
        set_id = config.set_id(model_id, scope.key if scope else "")
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
        r = rows[0]
        scope = tuple(x[0] for x in self.db.execute(
            "SELECT doc_id FROM chunk_set_scopes WHERE set_id = ? ORDER BY doc_id", [set_id]))
        return ChunkSetInfo(r["id"], ChunkConfig(**json.loads(r["config_json"])), r["model_id"], r["state"],
                            r["chunk_count"], scope)

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

    def chunk_counts(self, set_id: str) -> dict[int, int]:
        """``{doc_id: chunks}`` of the documents a chunk set holds chunks of."""
        return {r[0]: r[1] for r in self.db.execute(
            "SELECT doc_id, count(*) FROM chunks WHERE set_id = ? GROUP BY doc_id", [set_id])}

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
    def quick_check(self, limit: int) -> list[str]:
        """SQLite's ``PRAGMA quick_check``: ``["ok"]``, or up to ``limit`` problems."""
        return [str(r[0]) for r in self.db.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]

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
