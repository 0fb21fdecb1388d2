"""FAISS indexes, one per chunk set: inner product over normalised vectors, ids = chunk ids.

Small sets use an exact ``IndexIDMap2(IndexFlatIP)``; sets above ``APPROX_THRESHOLD`` vectors use an
inverted-file index (IVF-Flat, about 4·√n lists, ``nprobe`` lists scanned per query): approximate, and
much faster at a million chunks (``benchmarks/scale.py`` measures its recall@10 against exact search). Files are written to a temporary name and
renamed, so a crash never leaves a half-written index under the real name.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

APPROX_THRESHOLD = 200_000
IVF_NPROBE = 24


_configured = False


def _faiss():  # noqa: ANN202 - lazy import keeps `import workbench.core` light
    """FAISS, imported on first use and set to one thread.

    One query is a tiny job: with OpenMP threads FAISS spends most of its time waking and spinning
    threads, which measured ~9x slower (107 ms vs 12 ms for 100k vectors on this 2-core laptop while
    another process was busy). Index builds raise the thread count for their duration.
    """
    global _configured
    import faiss

    if not _configured:
        faiss.omp_set_num_threads(1)
        _configured = True
    return faiss


class VectorIndex:
    """A FAISS index plus the set of ids it holds."""

    def __init__(self, index, kind: str) -> None:  # noqa: ANN001
        self.index = index
        self.kind = kind

    @classmethod
    def build(cls, ids: np.ndarray, vectors: np.ndarray, dim: int, approx: bool | None = None) -> VectorIndex:
        """A new index over ``vectors`` with the given chunk ``ids``."""
        faiss = _faiss()
        if approx is None:
            approx = len(ids) > APPROX_THRESHOLD
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        try:
            if approx and len(ids) >= 1000:
                nlist = int(min(65536, len(ids) // 40, max(16, 4 * np.sqrt(len(ids)))))
                quantizer = faiss.IndexFlatIP(dim)
                ivf = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
                rng = np.random.default_rng(0)
                sample = vectors[rng.choice(len(vectors), size=min(len(vectors), nlist * 40), replace=False)]
                ivf.train(sample)
                ivf.nprobe = IVF_NPROBE
                index, kind = faiss.IndexIDMap2(ivf), "ivf"
            else:
                index, kind = faiss.IndexIDMap2(faiss.IndexFlatIP(dim)), "flat"
            if len(ids):
                index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))
            if kind == "ivf":
                faiss.extract_index_ivf(index).make_direct_map()  # reconstruct() by id for neighbour scores
        finally:
            faiss.omp_set_num_threads(1)
        return cls(index, kind)

    @property
    def size(self) -> int:
        """Number of vectors."""
        return int(self.index.ntotal)

    def ids(self) -> np.ndarray:
        """Sorted chunk ids held by the index."""
        faiss = _faiss()
        return np.sort(faiss.vector_to_array(self.index.id_map).astype(np.int64))

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` ``(scores, ids)`` for one query vector (ids of -1 dropped)."""
        if self.size == 0 or k <= 0:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        scores, ids = self.index.search(q, min(k, self.size))
        keep = ids[0] >= 0
        return scores[0][keep], ids[0][keep]

    def vectors_for(self, ids: np.ndarray) -> np.ndarray:
        """Stored vectors of the given chunk ids."""
        return np.stack([self.index.reconstruct(int(i)) for i in ids]) if len(ids) else np.zeros((0, 0))

    def save(self, path: Path) -> None:
        """Write atomically: temporary file, fsync, rename."""
        faiss = _faiss()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        faiss.write_index(self.index, str(tmp))
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> VectorIndex:
        """Read an index file; raises ``ValueError`` when it is missing or unreadable."""
        faiss = _faiss()
        if not path.exists():
            raise ValueError(f"index file {path.name} is missing")
        try:
            index = faiss.read_index(str(path))
        except Exception as exc:  # FAISS raises RuntimeError with C++ text
            raise ValueError(f"index file {path.name} is unreadable ({str(exc).splitlines()[0][:120]})") from None
        inner = faiss.downcast_index(index.index) if hasattr(index, "index") else index
        kind = "ivf" if "IVF" in type(inner).__name__ else "flat"
        if kind == "ivf":
            inner.nprobe = IVF_NPROBE
            if inner.direct_map.type == faiss.DirectMap.NoMap:
                inner.make_direct_map()
        if not hasattr(index, "id_map"):
            raise ValueError(f"index file {path.name} has no id map")
        return cls(faiss.downcast_index(index) if not isinstance(index, faiss.IndexIDMap2) else index, kind)
