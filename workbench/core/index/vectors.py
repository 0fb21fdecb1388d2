"""FAISS indexes, one per chunk set: inner product over normalised vectors, ids = chunk ids.

Small sets use an exact ``IndexIDMap2(IndexFlatIP)``; sets above ``APPROX_THRESHOLD`` vectors use an
inverted-file index (IVF-Flat, about 4·√n lists, ``nprobe`` lists scanned per query): approximate, and
much faster at a million chunks (``benchmarks/scale.py`` measures its recall@10 against exact search). Files are written to a temporary name and
renamed, so a crash never leaves a half-written index under the real name.

Every file's sha256 is computed while it is written (the caller records it in SQLite) and checked on
load before FAISS parses a byte, so a damaged file is never searched. Search results are checked too:
inner products of normalised vectors lie in [-1, 1], anything else means damage and never reaches a user.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.store.errors import from_os_error

APPROX_THRESHOLD = 200_000
IVF_NPROBE = 24
SCORE_EPSILON = 1e-3  # float32 rounding of a 384-dimension inner product stays far below this
BLOCK = 1 << 20


class IndexDamaged(ValueError):
    """A FAISS file does not match its recorded checksum, or an index returned impossible scores."""


_configured = False


def _faiss() -> Any:  # the faiss module; imported lazily to keep `import workbench.core` light
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

    def __init__(self, index: Any, kind: str) -> None:  # index: a faiss.Index (faiss has no type information)
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
        scores, ids = scores[0][keep], ids[0][keep]
        check_scores(scores)
        return scores, ids

    def vectors_for(self, ids: np.ndarray) -> np.ndarray:
        """Stored vectors of the given chunk ids."""
        return np.stack([self.index.reconstruct(int(i)) for i in ids]) if len(ids) else np.zeros((0, 0))

    def save(self, path: Path, before_rename: Callable[[str, int], None] | None = None) -> str:
        """Write atomically (temporary file, fsync, rename); returns the file's sha256.

        ``before_rename(sha256, size)`` runs between the fsync and the rename (the indexer records the
        digest there). A failed write (full disk, read-only folder) removes the temporary file and raises
        ``StoreError`` with a message for people; the previous file stays as it was.
        """
        faiss = _faiss()
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        digest = hashlib.sha256()
        size = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:

                def write(chunk: bytes) -> None:
                    nonlocal size
                    fh.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)

                writer = faiss.PyCallbackIOWriter(write, BLOCK)
                faiss.write_index(self.index, writer)
                del writer  # flushes its last block
                fh.flush()
                os.fsync(fh.fileno())
            if before_rename is not None:
                before_rename(digest.hexdigest(), size)
            os.replace(tmp, path)
        except BaseException as exc:
            tmp.unlink(missing_ok=True)
            known = from_os_error(exc, path.parent.parent) if isinstance(exc, OSError) else None
            if known is not None:
                raise known from None
            raise
        return digest.hexdigest()

    @classmethod
    def load(cls, path: Path, checksums: set[str] | None = None) -> VectorIndex:
        """Read an index file; raises ``ValueError`` when it is missing or unreadable, ``IndexDamaged``
        when ``checksums`` (the digests recorded for it) are given and its content matches none."""
        faiss = _faiss()
        if not path.exists():
            raise ValueError(f"index file {path.name} is missing")
        try:
            with open(path, "rb") as fh:  # one open: the bytes checked are the bytes parsed
                if checksums:
                    digest = hashlib.sha256()
                    for block in iter(lambda: fh.read(BLOCK), b""):
                        digest.update(block)
                    if digest.hexdigest() not in checksums:
                        raise IndexDamaged(f"index file {path.name} does not match its recorded checksum "
                                           "(damaged or changed outside the workbench)")
                    fh.seek(0)
                index = faiss.read_index(faiss.PyCallbackIOReader(fh.read, BLOCK))
        except IndexDamaged:
            raise
        except Exception as exc:  # FAISS raises RuntimeError with C++ text
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:120]
            raise ValueError(f"index file {path.name} is unreadable ({first})") from None
        inner = faiss.downcast_index(index.index) if hasattr(index, "index") else index
        kind = "ivf" if "IVF" in type(inner).__name__ else "flat"
        if kind == "ivf":
            inner.nprobe = IVF_NPROBE
            if inner.direct_map.type == faiss.DirectMap.NoMap:
                inner.make_direct_map()
        if not hasattr(index, "id_map"):
            raise ValueError(f"index file {path.name} has no id map")
        return cls(faiss.downcast_index(index) if not isinstance(index, faiss.IndexIDMap2) else index, kind)


def check_scores(scores: np.ndarray) -> None:
    """Raise ``IndexDamaged`` unless every score is a finite inner product of unit vectors."""
    if len(scores) and not (np.isfinite(scores).all() and float(np.abs(scores).max()) <= 1 + SCORE_EPSILON):
        raise IndexDamaged("the vector index returned impossible scores (outside [-1, 1]): it is damaged. "
                           "Run `workbench verify --repair` to rebuild it from the cached vectors.")


