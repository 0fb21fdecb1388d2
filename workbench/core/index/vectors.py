"""FAISS indexes, one per chunk set: inner product over normalised vectors, ids = chunk ids.

Small sets use an exact ``IndexIDMap2(IndexFlatIP)``; sets above ``APPROX_THRESHOLD`` vectors use an
inverted-file index (IVF-Flat, about 4·√n lists). Where the approximate index starts was measured
(``benchmarks/ann_choice.py``, docs/performance.md): at 10k vectors no approximate setting reached recall@10
0.99 faster than exact search; from ~14k on, IVF-Flat did, 7x faster on real MiniLM vectors and 12-70x at 25k
to 100k; HNSW searched about as fast but took 7x longer to build and cannot remove vectors. How many lists a
query scans (``nprobe``) is measured when the index is built: the fewest for which pseudo-questions made from
the set's own vectors (``calibrate_nprobe``) keep recall@10 against exact search at ``RECALL_TARGET``; the
FAISS file keeps it. Files are written to a temporary name and renamed, so a crash never leaves a
half-written index under the real name.

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

from workbench.core.index.embedding import normalised
from workbench.core.store.errors import from_os_error

APPROX_THRESHOLD = 20_000
IVF_NPROBE = 24  # the least a query scans (and what files written before calibration were searched with)
NPROBE_STEPS = (24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
RECALL_TARGET = 0.995  # recall@10 of the pseudo-questions against exact search (the bar is 0.99 for questions)
CALIBRATION_QUERIES = 300
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

    @staticmethod
    def kind_for(size: int) -> str:
        """The kind of index a set of ``size`` vectors is built as: ``ivf`` above ``APPROX_THRESHOLD``."""
        return "ivf" if size > APPROX_THRESHOLD else "flat"

    @classmethod
    def build(cls, ids: np.ndarray, vectors: np.ndarray, dim: int, approx: bool | None = None) -> VectorIndex:
        """A new index over ``vectors`` with the given chunk ``ids`` (``approx``: None chooses by size)."""
        faiss = _faiss()
        if approx is None:
            approx = cls.kind_for(len(ids)) == "ivf"
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
                index, kind = faiss.IndexIDMap2(ivf), "ivf"
            else:
                index, kind = faiss.IndexIDMap2(faiss.IndexFlatIP(dim)), "flat"
            if len(ids):
                index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))
            if kind == "ivf":
                ivf.nprobe = calibrate_nprobe(ivf, vectors)
                faiss.extract_index_ivf(index).make_direct_map()  # reconstruct() by id for neighbour scores
        finally:
            faiss.omp_set_num_threads(1)
        return cls(index, kind)

    @property
    def nprobe(self) -> int:
        """Lists an IVF query scans (0 for an exact index)."""
        return int(_faiss().extract_index_ivf(self.index).nprobe) if self.kind == "ivf" else 0

    def measured_recall(self, count: int = CALIBRATION_QUERIES) -> float:
        """Recall@10 at the kept ``nprobe`` of the pseudo-questions ``calibrate_nprobe`` measured with (made
        from the held vectors, in id order as at build time), against exact search; 1.0 for an exact index."""
        if self.kind != "ivf" or self.size == 0:
            return 1.0
        faiss = _faiss()
        ids = self.ids()
        vectors = self.vectors_for(ids)
        queries = pseudo_questions(vectors, min(count, len(vectors)))
        _, truth = faiss.knn(queries, vectors, 10, faiss.METRIC_INNER_PRODUCT)
        _, found = self.index.search(queries, 10)  # chunk ids; truth holds positions in ``ids``
        truth = ids[truth]
        return float(np.mean([len(np.intersect1d(a, b)) for a, b in zip(found, truth, strict=True)]) / 10)

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
            inner.nprobe = max(IVF_NPROBE, int(inner.nprobe))  # calibrated when built, kept in the file
            if inner.direct_map.type == faiss.DirectMap.NoMap:
                inner.make_direct_map()
        if not hasattr(index, "id_map"):
            raise ValueError(f"index file {path.name} has no id map")
        return cls(faiss.downcast_index(index) if not isinstance(index, faiss.IndexIDMap2) else index, kind)


def pseudo_questions(vectors: np.ndarray, count: int, seed: int = 0) -> np.ndarray:
    """Queries that stand for questions about a set: the normalised sum of two of its vectors, each query
    between two topics (so its nearest chunks lie in several lists, as a question's do)."""
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, len(vectors), size=(count, 2))
    return normalised(vectors[pairs[:, 0]] + vectors[pairs[:, 1]])


def calibrate_nprobe(ivf: Any, vectors: np.ndarray, target: float = RECALL_TARGET,
                     count: int = CALIBRATION_QUERIES) -> int:
    """The fewest lists (of ``NPROBE_STEPS``) an IVF query must scan for recall@10 of ``count`` pseudo-questions
    against exact search to reach ``target``; every list when none does."""
    faiss = _faiss()
    queries = pseudo_questions(vectors, min(count, len(vectors)))
    _, truth = faiss.knn(queries, vectors, 10, faiss.METRIC_INNER_PRODUCT)  # exact, without a second copy
    for nprobe in [n for n in NPROBE_STEPS if n < ivf.nlist]:
        ivf.nprobe = nprobe
        _, found = ivf.search(queries, 10)
        if np.mean([len(np.intersect1d(a, b)) for a, b in zip(found, truth, strict=True)]) / 10 >= target:
            return nprobe
    return int(ivf.nlist)


def check_scores(scores: np.ndarray) -> None:
    """Raise ``IndexDamaged`` unless every score is a finite inner product of unit vectors."""
    if len(scores) and not (np.isfinite(scores).all() and float(np.abs(scores).max()) <= 1 + SCORE_EPSILON):
        raise IndexDamaged("the vector index returned impossible scores (outside [-1, 1]): it is damaged. "
                           "Run `workbench verify --repair` to rebuild it from the cached vectors.")


