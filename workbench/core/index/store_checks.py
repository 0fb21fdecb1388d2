"""The store's consistency queries, used by ``workbench.core.index.verify``: SQLite's own integrity check,
rows that lost their owner, chunks with no cached vector, and vectors to probe a FAISS file with."""

from __future__ import annotations

from workbench.core.index.store_connection import StoreConnection


class ConsistencyChecks(StoreConnection):
    """Read-only checks of a workbench database."""

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
