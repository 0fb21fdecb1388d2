"""Which FAISS index to search with, measured: exact (flat) against IVF-Flat (``nprobe`` swept) and HNSW
(``efSearch`` swept), at several sizes, on one thread (as the workbench searches).

Vectors are the synthetic clustered ones of ``benchmarks/scale.py`` (``--vectors synthetic``, queries drawn the
same way), or real MiniLM vectors of the bundled corpora's sentences and chunks (``--vectors real``, the
benchmark's questions as queries; that corpus holds ~20k texts). For each size: the exact search's median
time, and for each setting recall@10 against exact search and median time; the cheapest setting with
recall@10 ≥ ``--recall`` is marked. Build times are printed too.

    .venv/bin/python benchmarks/ann_choice.py [--sizes 10000 25000 50000 100000 200000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def synthetic(n: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` clustered unit vectors and ``queries`` more from the same clusters (as ``SyntheticEmbedder``)."""
    rng = np.random.default_rng(0)
    centres = np.random.default_rng(42).normal(size=(2000, 384)).astype(np.float32)
    def draw(k: int) -> np.ndarray:
        v = centres[rng.integers(0, len(centres), k)] + 0.6 * rng.normal(size=(k, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)
    return draw(n), draw(queries)


def real(queries: int) -> tuple[np.ndarray, np.ndarray]:
    """MiniLM vectors of the bundled corpora's sentences and 64-token chunks, and of the benchmark's questions."""
    import csv
    import re

    from synthetic import CORPORA

    from workbench.core.index.embedding import SentenceTransformerEmbedder

    texts: list[str] = []
    for f in sorted(CORPORA.glob("*.md")):
        body = f.read_text(encoding="utf-8")
        texts += [s.strip() for s in re.split(r"(?<=[.!?])\s+", body) if len(s.strip()) > 20]
        words = body.split()
        texts += [" ".join(words[i : i + 48]) for i in range(0, len(words), 48)]
    with open(ROOT / "workbench/datasets/chroma-general/questions.csv", encoding="utf-8") as fh:
        qs = [row["question"] for row in csv.DictReader(fh)][:queries]
    emb = SentenceTransformerEmbedder(precision="bf16")  # agrees with fp32 to a cosine of 0.99998, twice as fast
    print(f"embedding {len(texts)} texts with MiniLM (bf16)…", file=sys.stderr)
    return emb.encode(texts), emb.encode(qs)


def median_ms(index, queries: np.ndarray, k: int = 10) -> tuple[float, np.ndarray]:
    times, found = [], []
    for q in queries:
        t0 = time.perf_counter()
        _, ids = index.search(q.reshape(1, -1), k)
        times.append((time.perf_counter() - t0) * 1000)
        found.append(ids[0])
    return statistics.median(times), np.asarray(found)


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth, strict=True)]))


def measure(vectors: np.ndarray, queries: np.ndarray, target: float) -> None:
    import faiss

    faiss.omp_set_num_threads(1)
    n, dim = vectors.shape
    flat = faiss.IndexFlatIP(dim)
    flat.add(vectors)
    exact_ms, truth = median_ms(flat, queries)
    rows = [("exact (flat)", "", 0.0, exact_ms, 1.0)]
    faiss.omp_set_num_threads(2)
    t0 = time.perf_counter()
    nlist = int(min(65536, n // 40, max(16, 4 * np.sqrt(n))))
    ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
    sample = vectors[np.random.default_rng(0).choice(n, size=min(n, nlist * 40), replace=False)]
    ivf.train(sample)
    ivf.add(vectors)
    ivf_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    hnsw = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
    hnsw.hnsw.efConstruction = 80
    hnsw.add(vectors)
    hnsw_build = time.perf_counter() - t0
    faiss.omp_set_num_threads(1)
    for nprobe in (8, 16, 24, 32, 48, 64, 96, 128):
        if nprobe > nlist:
            break
        ivf.nprobe = nprobe
        ms, found = median_ms(ivf, queries)
        rows.append((f"IVF-Flat, {nlist} lists", f"nprobe {nprobe}", ivf_build, ms, recall(found, truth)))
    for ef in (16, 32, 64, 128, 256):
        hnsw.hnsw.efSearch = ef
        ms, found = median_ms(hnsw, queries)
        rows.append(("HNSW-Flat, M 32", f"efSearch {ef}", hnsw_build, ms, recall(found, truth)))
    best: dict[str, float] = {}
    for kind, _, _, ms, r in rows:
        if r >= target and ms < best.get(kind, np.inf):
            best[kind] = ms
    print(f"\n### {n:,} vectors\n")
    print("| index | setting | build | query (median) | recall@10 vs exact |")
    print("|---|---|---:|---:|---:|")
    for kind, setting, build, ms, r in rows:
        mark = " ←" if best.get(kind) == ms and r >= target and kind != "exact (flat)" else ""
        print(f"| {kind} | {setting} | {build:.1f} s | {ms:.2f} ms{mark} | {r:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 25_000, 50_000, 100_000, 200_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--vectors", choices=["synthetic", "real"], default="synthetic")
    ap.add_argument("--recall", type=float, default=0.99, help="recall@10 the cheapest setting must reach")
    args = ap.parse_args()
    print(f"vectors: {args.vectors}; {args.queries} queries; one search thread; ← the cheapest setting with "
          f"recall@10 ≥ {args.recall}")
    if args.vectors == "real":
        vectors, queries = real(args.queries)
        measure(vectors, queries, args.recall)
        return
    for n in args.sizes:
        vectors, queries = synthetic(n, args.queries)
        measure(vectors, queries, args.recall)


if __name__ == "__main__":
    main()
