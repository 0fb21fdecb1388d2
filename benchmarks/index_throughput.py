"""Indexing throughput vs the raw model: ``workbench`` indexing (load, chunk, SQLite, cache, FAISS) against the
exact model's ``SentenceTransformer.encode`` (fp32, batch 64, every core) on exactly the same chunk texts,
measured in one process, one run, the two interleaved.

    .venv/bin/python benchmarks/index_throughput.py [--corpus FILE_OR_DIR ...] [--chunk-size 200] [--repeats 3]
        [--model default --model minilm-bf16]

Prints chunks/s of each model's chunk-set build and of raw ``encode``, their ratio (target ≥ 2.0 on the default
path, or for a documented fast model whose vectors agree with the exact ones), and the cached re-chunk speed-up.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT = [ROOT / "workbench/datasets/chroma-general/corpora/state_of_the_union.md",
           ROOT / "workbench/datasets/chroma-general/corpora/chatlogs.md"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="*", default=[str(p) for p in DEFAULT])
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--model", action="append", help="model specs to build with (default: default and minilm-bf16)")
    args = ap.parse_args()
    models = args.model or ["default", "minilm-bf16"]

    import torch

    from workbench.core.index.build import chunk_texts
    from workbench.core.index.embedder_pool import EmbedderPool
    from workbench.core.ingest.chunkers.identity import chunking_label
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.lanes import cores as torch_cores
    from workbench.core.workspace import Workspace

    pool = EmbedderPool()
    exact = pool.default
    for spec in models:
        pool.get(spec).encode(["warm up the model"] * 32)
    config = ChunkConfig(size=args.chunk_size)
    ours: dict[str, list[float]] = {spec: [] for spec in models}
    raw: list[float] = []  # every core (torch's default)
    raw_one: list[float] = []  # one thread
    cores = torch_cores()
    first_build: list[float] = []
    rechunk: list[float] = []
    n_chunks = 0
    for _ in range(args.repeats):
        for spec in models:
            with tempfile.TemporaryDirectory() as tmp:
                ws = Workspace(tmp, embedder=pool.get(spec))  # the model under test as the workspace's default
                t0 = time.perf_counter()
                report = ws.add_paths(args.corpus, config)
                t_ours = time.perf_counter() - t0
                info = ws.sets.find_chunk_set(config)
                n_chunks = info.chunk_count
                texts, _ = chunk_texts(ws.store, info.id, ws.store.sets.chunk_ids(info.id))
                ours[spec].append(len(texts) / t_ours)
                if spec == models[0]:  # the exact model's raw encode on the same texts, once a round
                    for threads in (cores, 1):
                        torch.set_num_threads(threads)
                        t0 = time.perf_counter()
                        exact.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                           show_progress_bar=False)
                        (raw if threads == cores else raw_one).append(len(texts) / (time.perf_counter() - t0))
                if spec == "default":
                    first_build.append(t_ours)
                    for d in ws.records.documents():  # cached re-chunk: drop the set's chunks, keep the vector cache
                        ws.store.sets.drop_doc_from_set(info.id, d["id"])
                    t0 = time.perf_counter()
                    ws.sets.ensure_chunk_set(config)
                    rechunk.append(time.perf_counter() - t0)
                del report
                ws.close()
    r, r1 = statistics.median(raw), statistics.median(raw_one)
    print(f"corpus: {', '.join(Path(c).name for c in args.corpus)}; {n_chunks} chunks of {chunking_label(config)}; "
          f"median of {args.repeats}, builds and raw encode interleaved")
    print("| figure | value |\n|---|---|")
    print(f"| raw SentenceTransformer.encode (exact fp32, batch 64, {cores} threads: torch's default) "
          f"| {r:.1f} chunks/s |")
    print(f"| raw SentenceTransformer.encode on 1 thread (the better of the two when another program is busy) "
          f"| {r1:.1f} chunks/s |")
    for spec in models:
        o = statistics.median(ours[spec])
        print(f"| chunk-set build, model {spec} (chunk+embed+SQLite+FAISS) | {o:.1f} chunks/s |")
        print(f"| ratio build / raw, model {spec} (target ≥ 2.0) | {o / r:.2f} (against the better raw setting: "
              f"{o / max(r, r1):.2f}) |")
    for label, guess, chunks, embedded, seconds in estimates(args.corpus, config, exact):
        print(f"| estimate before the build, {label} | {guess.describe()} ({guess.seconds:.1f} s) |")
        print(f"| the build it described | {chunks} chunks, {embedded} embedded, {seconds:.1f} s |")
    if first_build:
        print(f"| first build, default model | {statistics.median(first_build):.2f} s |")
        print(f"| rebuild with every embedding cached | {statistics.median(rechunk):.3f} s |")
        print(f"| speed-up of the cached rebuild (target ≥ 50×) | "
              f"{statistics.median(first_build) / statistics.median(rechunk):.0f}× |")


def estimates(corpus: list[str], config, embedder):
    """The cost estimate against the build it describes: in a fresh data folder (no rate kept: measured on a
    few texts first), then another chunk size (the rate the first build kept)."""
    from workbench.core.index.build import ingest_files
    from workbench.core.ingest.chunkers.identity import chunking_label
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.workspace import Workspace

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(tmp, embedder=embedder)
        ingest_files(ws.store, corpus)
        for label, cfg in (("fresh data folder", config), ("next chunk size, rate kept from the first build",
                                                           ChunkConfig(size=max(16, config.size // 2)))):
            guess = ws.sets.estimate_chunk_set(cfg)
            before = embedder.texts_encoded
            t0 = time.perf_counter()
            info = ws.sets.ensure_chunk_set(cfg)
            out.append((f"{label} ({chunking_label(cfg)})", guess, info.chunk_count, embedder.texts_encoded - before,
                        time.perf_counter() - t0))
        ws.close()
    return out


if __name__ == "__main__":
    main()
