"""The store's caches and file records: FAISS file checksums, cached embeddings, cached LLM outputs.

A cache write is skipped on a store that refuses writes, so searching a read-only folder works.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from workbench.core.index.store_chunks import ID_BATCH
from workbench.core.index.store_connection import StoreConnection, cache_write, now, writes


class CacheTables(StoreConnection):
    """``index_files``, ``embeddings`` and ``llm_cache``."""

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
        for i in range(0, len(wanted), ID_BATCH):
            part = wanted[i : i + ID_BATCH]
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
        with self.transaction():
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def embedding_count(self, model_id: str | None = None) -> int:
        """Number of cached vectors (for one model, or all)."""
        if model_id is None:
            return int(self.db.table("embeddings").count)
        return int(self.db.table("embeddings").count_where("model_id = ?", [model_id]))

    # ----- LLM output cache (summaries, contextual sentences) ---------------------------------
    def llm_cached(self, kind: str, key: str, model: str) -> str | None:
        """A cached LLM output, or None."""
        row = self.db.execute(
            "SELECT value FROM llm_cache WHERE kind = ? AND key = ? AND model = ?", [kind, key, model]
        ).fetchone()
        value: str | None = row[0] if row else None
        return value

    @cache_write
    def put_llm_cached(self, kind: str, key: str, model: str, value: str) -> None:
        """Remember an LLM output."""
        self.db.execute(
            "INSERT OR REPLACE INTO llm_cache (kind, key, model, value, created) VALUES (?, ?, ?, ?, ?)",
            [kind, key, model, value, now()],
        )
