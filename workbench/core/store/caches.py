"""The store's caches: embedded vectors by model and text hash, this machine's measured rates, and LLM outputs.

A cache write that loses a race with another writer is skipped, not fatal (``cache_write``); none of them is a
change of documents or chunk sets.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from workbench.core.store.connection import Tables, cache_write, now, writes
from workbench.core.store.readback import positive_number
from workbench.core.store.values import ID_BATCH


class CacheTables(Tables):
    """The ``embeddings``, ``meta`` rate and ``llm_cache`` tables of a workbench database (``store.caches``)."""

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

    def cached_hashes(self, model_id: str, text_hashes: Iterable[str]) -> set[str]:
        """Which of these embedded-text hashes have a cached vector (no vector is read)."""
        wanted = list(dict.fromkeys(text_hashes))
        found: set[str] = set()
        for i in range(0, len(wanted), ID_BATCH):
            part = wanted[i : i + ID_BATCH]
            marks = ",".join("?" * len(part))
            found |= {r[0] for r in self.db.execute(
                f"SELECT text_hash FROM embeddings WHERE model_id = ? AND text_hash IN ({marks})", [model_id, *part])}
        return found

    def vector_dim(self, model_id: str) -> int | None:
        """The dimension of ``model_id``'s cached vectors (None when none is cached)."""
        row = self.db.execute("SELECT length(vector) FROM embeddings WHERE model_id = ? LIMIT 1", [model_id]).fetchone()
        return int(row[0]) // 4 if row else None

    @cache_write
    def put_vectors(self, model_id: str, vectors: dict[str, np.ndarray]) -> None:
        """Add vectors to the cache (one transaction)."""
        with self.connection.transaction():
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def embedding_count(self, model_id: str | None = None) -> int:
        """Number of cached vectors (for one model, or all)."""
        if model_id is None:
            return int(self.db.table("embeddings").count)
        return int(self.db.table("embeddings").count_where("model_id = ?", [model_id]))

    # ----- measured rates of this machine (``workbench.core.index.rates``) ---------------------------
    def rate(self, name: str) -> float | None:
        """A kept measurement (e.g. characters embedded per second by one model), or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [f"rate:{name}"]).fetchone()
        if not row:
            return None
        value, problem = positive_number(row[0])
        if problem:
            self.connection.bad_values.note(f"meta 'rate:{name}'",
                                            f"{problem}; ignored (measured again on the next build)")
        return value

    @cache_write
    def keep_rate(self, name: str, value: float) -> None:
        """Keep a measurement under ``name`` (replacing the one before); not a change of documents or sets."""
        self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                        "value = excluded.value", [f"rate:{name}", repr(float(value))])

    def rate_names(self) -> list[str]:
        """The names of every kept measurement."""
        return [str(r[0]).removeprefix("rate:") for r in self.db.execute(
            "SELECT key FROM meta WHERE key LIKE 'rate:%' ORDER BY key")]

    @writes
    def forget_rate(self, name: str) -> None:
        """Forget a kept measurement (the next build measures it again)."""
        self.db.execute("DELETE FROM meta WHERE key = ?", [f"rate:{name}"])

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
