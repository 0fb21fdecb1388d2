"""The store's documents: their text, headings and the problems of files that were skipped or failed.

A changed or removed document drops its chunks in every chunk set (through the chunk-set part it is given), in
the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from workbench.core.ingest.values import Document, Heading
from workbench.core.store.chunk_sets import ChunkSetTables
from workbench.core.store.connection import StoreConnection, Tables, now, writes
from workbench.core.store.values import ID_BATCH, DocumentGone


class DocumentTables(Tables):
    """The ``documents``, ``headings`` and ``problems`` tables of a workbench database (``store.documents``)."""

    def __init__(self, connection: StoreConnection, sets: ChunkSetTables) -> None:
        super().__init__(connection)
        self.sets = sets

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
        with self.connection.transaction():
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
            self.connection.bump_generation()
        return int(doc_id), True

    def _drop_doc_children(self, doc_id: int) -> None:
        """Delete a document's chunks in every chunk set and its headings (call inside a transaction)."""
        self.sets.delete_doc_chunks(doc_id)
        self.db.execute("DELETE FROM headings WHERE doc_id = ?", [doc_id])

    @writes
    def remove_document(self, doc_id: int) -> None:
        """Delete a document with its headings and chunks in every chunk set."""
        with self.connection.transaction():
            self._drop_doc_children(doc_id)
            self.db.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            self.connection.bump_generation()

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
        with self.connection.transaction():
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
        with self.connection.transaction():
            self.db.table("documents").update(doc_id, {"path": doc.path, "title": doc.title, "mtime": doc.mtime,
                                                 "size": doc.size, "note": doc.note})
            self.clear_problem(doc.path)
            if old.title != doc.title:
                for info in self.sets.chunk_sets():
                    if info.config.heading_prefix or info.config.contextual:
                        self.sets.drop_doc_from_set(info.id, doc_id)
                        dropped = True
            self.connection.bump_generation()
        return dropped

    def problems(self) -> list[dict[str, Any]]:
        """Files that were skipped or failed."""
        return list(self.db.query("SELECT path, status, reason, checked FROM problems ORDER BY path"))

    def rows(self) -> list[dict[str, Any]]:
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
