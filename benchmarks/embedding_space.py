"""How long the embedding-space view takes to project a chunk set: random unit vectors (20,000 × 384 by
default, the size of MiniLM's vectors) sampled to the window's limit and projected by PCA, the question by
the same transform; then all of them, unsampled, for comparison; then the whole path the window runs on its
pool thread (``set_projection``: sample, read the sampled vectors back from a FAISS index of the set, project).

    .venv/bin/python benchmarks/embedding_space.py [--chunks 20000] [--dim 384] [--limit 5000] [--repeat 3]

Prints the best time of each over ``--repeat`` runs (a measurement, not a test: nothing is asserted).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.index.vectors import VectorIndex
from workbench.core.ingest.values import ChunkConfig
from workbench.core.inspect.embedding_space import project_vectors, sample_rows, set_projection
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.store import ChunkSetInfo, ChunkTable


def loaded_set(vectors: np.ndarray) -> LoadedSet:
    """A chunk set of ``vectors`` (one chunk each, 50 chunks a document) as the window loads it."""
    n = len(vectors)
    ids = np.arange(1, n + 1, dtype=np.int64)
    rows = np.arange(n, dtype=np.int64)
    table = ChunkTable(ids, rows // 50, rows % 50, (rows % 50) * 100, (rows % 50) * 100 + 100,
                       np.full(n, 25, dtype=np.int64), [""] * n, [""] * n, [""] * n)
    info = ChunkSetInfo("bench", ChunkConfig(), "random", "ready", n)
    return LoadedSet(info, table, VectorIndex.build(ids, vectors, vectors.shape[1]))


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=20_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--limit", type=int, default=5_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(args.chunks, args.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[0]

    def sampled() -> None:
        rows = sample_rows(args.chunks, args.limit, seed=0, keep=range(10))
        project_vectors(vectors[rows], query)

    def whole() -> None:
        project_vectors(vectors, query)

    rt = loaded_set(vectors)

    def window() -> None:
        set_projection(rt, query, keep=range(10), limit=args.limit)

    print(f"{args.chunks:,} vectors of {args.dim} dimensions, PCA, best of {args.repeat}")
    print(f"  sampled to {args.limit:,}: {best_of(args.repeat, sampled):.3f} s")
    print(f"  all {args.chunks:,}:      {best_of(args.repeat, whole):.3f} s")
    print(f"  the window's job (sample, read {args.limit:,} vectors from FAISS, project): "
          f"{best_of(args.repeat, window):.3f} s")


if __name__ == "__main__":
    main()
