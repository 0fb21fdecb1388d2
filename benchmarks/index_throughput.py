"""Indexing throughput vs the raw model: ``workbench`` indexing (load, chunk, SQLite, cache, FAISS) against
``SentenceTransformer.encode`` on exactly the same chunk texts, measured in one process, one run.

    .venv/bin/python benchmarks/index_throughput.py [--corpus FILE_OR_DIR ...] [--chunk-size 200] [--repeats 3]

Prints chunks/s for both and the ratio (target ≥ 0.85), plus the cached re-chunk speed-up.
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
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", nargs="*", default=[str(p) for p in DEFAULT])
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    from workbench.core.index.build import chunk_texts
    from workbench.core.index.embedding import SentenceTransformerEmbedder
    from workbench.core.ingest.chunking import ChunkConfig
    from workbench.core.workspace import Workspace

    embedder = SentenceTransformerEmbedder()
    embedder.encode(["warm up the model"])
    config = ChunkConfig(size=args.chunk_size)
    ours, raw, rechunk, first_build = [], [], [], []
    n_chunks = 0
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            ws = Workspace(tmp, embedder=embedder)
            t0 = time.perf_counter()
            report = ws.add_paths(args.corpus, config)
            t_ours = time.perf_counter() - t0
            n_chunks = report.chunks_total
            info = ws.find_chunk_set(config)
            texts, _ = chunk_texts(ws.store, info.id, ws.store.chunk_ids(info.id))
            t0 = time.perf_counter()
            embedder.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                  show_progress_bar=False)
            t_raw = time.perf_counter() - t0
            # cached re-chunk: drop the set's chunks (keep the vector cache) and build it again
            info = ws.find_chunk_set(config)
            for d in ws.store.documents():
                ws.store.drop_doc_from_set(info.id, d["id"])
            t0 = time.perf_counter()
            ws.ensure_chunk_set(config)
            t_cached = time.perf_counter() - t0
            ws.close()
        ours.append(len(texts) / t_ours)
        raw.append(len(texts) / t_raw)
        first_build.append(t_ours)
        rechunk.append(t_cached)
    o, r = statistics.median(ours), statistics.median(raw)
    print(f"corpus: {', '.join(Path(c).name for c in args.corpus)}; {n_chunks} chunks of {config.label()}; "
          f"median of {args.repeats}")
    print("| figure | value |\n|---|---|")
    print(f"| raw SentenceTransformer.encode | {r:.1f} chunks/s |")
    print(f"| workbench index (load+chunk+embed+SQLite+FAISS) | {o:.1f} chunks/s |")
    print(f"| ratio ours / raw (target ≥ 0.85) | {o / r:.2f} |")
    print(f"| first build | {statistics.median(first_build):.2f} s |")
    print(f"| rebuild with every embedding cached | {statistics.median(rechunk):.3f} s |")
    print(f"| speed-up of the cached rebuild (target ≥ 50×) | {statistics.median(first_build) / statistics.median(rechunk):.0f}× |")


if __name__ == "__main__":
    main()
