"""Chunk-set builds on a Ray cluster against the local build: the same corpus and chunking built with the local
lanes (every core), with ``--cluster local:1`` and with ``local:2``; the driver's write ceiling (cutting, token
counts, SQLite and FAISS with an embedder that costs nothing: what no cluster can pass, since one process writes
the data folder); the cost of one task (an empty slice's round trip); and from those an estimate for
LegalBench-RAG's corpus (~79M characters, ~150k chunks of 128 tokens) on N workers of the measured rate.

    .venv/bin/python benchmarks/cluster_build.py [--model minilm-bf16 | --model hashed] [--chunk-size 128]
        [--corpus FILE_OR_DIR ...] [--workers 1,2]

Each build starts from an empty data folder with the documents already stored; a cluster is started (and its
workers' models loaded) before its build is timed, and that start is reported apart. ``hashed`` is the tests'
hashed embedder (no model: it shows the plumbing's cost, not the model's). One run, figures as measured.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
CORPORA = ROOT / "workbench" / "datasets" / "chroma-general" / "corpora"
LEGALBENCH_CHUNKS = 150_000


class FreeEmbedder:
    """Vectors that cost nothing (a fixed unit vector per text, seeded by its length): the driver's ceiling."""

    model_id = "free-embedder-384"
    model_path = None
    dim = 384

    def encode(self, texts: Sequence[str], progress: Any = None, cancel: Any = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, len(text) % self.dim] = 1.0
        return out


def open_model(spec: str) -> Any:
    if spec == "hashed":
        from fake_embedder import HashEmbedder

        return HashEmbedder()
    from workbench.core.index.embedder_pool import open_embedder

    return open_embedder(spec)


def build(corpus: list[str], embedder: Any, chunk_size: int, cluster: Any = None) -> dict[str, float]:
    """One chunk-set build of ``corpus`` from an empty data folder (documents stored first, not timed)."""
    from workbench.core.index.build import IngestReport
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(tmp, embedder=embedder)
        ws.add_paths(corpus, ChunkConfig(size=10_000))  # documents in; a coarse set nobody times
        ws.sets.cluster = cluster
        report = IngestReport()
        t0 = time.perf_counter()
        info = ws.sets.ensure_chunk_set(ChunkConfig(size=chunk_size), report=report)
        seconds = time.perf_counter() - t0
        ws.close()
    return {"seconds": seconds, "chunks": info.chunk_count, "embedded": report.chunks_embedded}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="minilm-bf16", help="an embedding model spec, or 'hashed' (default minilm-bf16)")
    ap.add_argument("--chunk-size", type=int, default=128)
    ap.add_argument("--corpus", nargs="*", default=[str(CORPORA)])
    ap.add_argument("--workers", default="1,2", help="local cluster sizes to build on (default 1,2)")
    args = ap.parse_args()
    from workbench.core.index.cluster import SLICE_TEXTS, Cluster, ClusterAddress, recipe_for
    from workbench.core.lanes import lane_count

    embedder = open_model(args.model)
    embedder.encode(["warm up the model"] * 16)
    rows: list[tuple[str, dict[str, float], float]] = []
    local = build(args.corpus, embedder, args.chunk_size)
    rows.append((f"local ({lane_count()} lanes)", local, 0.0))
    round_trip = 0.0
    for workers in [int(w) for w in args.workers.split(",")]:
        with Cluster(ClusterAddress(workers=workers)) as cluster:
            t0 = time.perf_counter()
            ray = cluster.ray()
            actors = cluster.workers(embedder.model_id, recipe_for(embedder))
            ray.get([a.dim.remote() for a in actors])  # every worker's model loaded
            start = time.perf_counter() - t0
            if workers == 1:
                t1 = time.perf_counter()
                for _ in range(50):
                    ray.get(actors[0].encode.remote([]))
                round_trip = (time.perf_counter() - t1) / 50
            rows.append((f"--cluster local:{workers}", build(args.corpus, cluster.embedder(embedder),
                                                             args.chunk_size, cluster), start))
    ceiling = build(args.corpus, FreeEmbedder(), args.chunk_size)
    chars = sum(p.stat().st_size for c in args.corpus for p in ([Path(c)] if Path(c).is_file()
                                                                 else Path(c).rglob("*.*")))
    print(f"corpus: {chars / 1e6:.2f} MB ({', '.join(args.corpus)}), chunks of {args.chunk_size} tokens, "
          f"model {args.model}")
    print(f"{'build':<26}{'chunks':>8}{'seconds':>10}{'chunks/s':>10}{'vs local':>10}{'start s':>9}")
    for name, r, start in rows:
        rate = r["chunks"] / r["seconds"]
        ratio = local["seconds"] / r["seconds"]
        print(f"{name:<26}{r['chunks']:>8.0f}{r['seconds']:>10.1f}{rate:>10.1f}{ratio:>9.2f}×{start:>9.1f}")
    ceiling_rate = ceiling["chunks"] / ceiling["seconds"]
    print(f"driver write ceiling (cut, count, SQLite, FAISS; free vectors): {ceiling_rate:.0f} chunks/s")
    tasks = math.ceil(rows[1][1]["embedded"] / SLICE_TEXTS) if len(rows) > 1 else 0
    print(f"one task's round trip (an empty slice, local:1): {round_trip * 1000:.1f} ms; "
          f"{tasks} tasks of {SLICE_TEXTS} texts in the local:1 build")
    if len(rows) > 1:
        per_worker = rows[1][1]["chunks"] / rows[1][1]["seconds"]
        print(f"LegalBench-RAG (~{LEGALBENCH_CHUNKS} chunks) at {per_worker:.1f} chunks/s per worker (this machine's "
              f"local:1 rate), capped by this driver's {ceiling_rate:.0f} chunks/s:")
        for n in (1, 2, 8, 32, 128):
            rate = min(n * per_worker, ceiling_rate)
            print(f"  {n:>4} workers: {rate:8.0f} chunks/s, {LEGALBENCH_CHUNKS / rate / 60:8.1f} min")


if __name__ == "__main__":
    main()
