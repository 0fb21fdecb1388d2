"""Do the fast model's vectors agree with the exact model's? Mean and least cosine, per corpus.

    .venv/bin/python benchmarks/fast_model_agreement.py [--corpus FILE_OR_DIR ...] [--chunk-size 200]
    .venv/bin/python benchmarks/fast_model_agreement.py --data-dirs EXACT_DIR FAST_DIR

The first form embeds the chunks of the bundled corpora (the sample corpus and the five Chroma corpora, default)
with the exact model and with ``--fast`` (default ``minilm-bf16``). The second compares what two data folders
already hold: every chunk of every chunk set of EXACT_DIR (built by the exact model) whose embedded text FAST_DIR
also cached under the fast model, e.g. the folders of one ``workbench eval`` run each (no embedding at all).
A fast model is offered only when the mean cosine is at least 0.995 (docs/performance.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT = [ROOT / "resources/sample", *sorted((ROOT / "workbench/datasets/chroma-general/corpora").glob("*.md"))]


def table(rows: list[tuple[str, np.ndarray]]) -> None:
    print("| texts of | texts | mean cosine | least cosine |\n|---|---:|---:|---:|")
    for name, cos in rows:
        print(f"| {name} | {len(cos):,} | {cos.mean():.5f} | {cos.min():.5f} |")
    every = np.concatenate([c for _, c in rows])
    print(f"| **all** | {len(every):,} | **{every.mean():.5f}** | {every.min():.5f} |")


def embed_corpora(paths: list[str], size: int, fast_spec: str) -> None:
    from workbench.core.index.embedder_pool import EmbedderPool
    from workbench.core.ingest.chunking import chunk_document
    from workbench.core.ingest.discovery import discover
    from workbench.core.ingest.documents import load_file
    from workbench.core.ingest.tokens import counter_for_model
    from workbench.core.ingest.values import ChunkConfig

    pool = EmbedderPool()
    exact, fast = pool.default, pool.get(fast_spec)
    counter = counter_for_model(exact.model_path)
    rows = []
    for path in paths:
        texts = []
        for f in discover([str(path)]).files:
            doc = load_file(f).document
            if doc is not None:
                texts += [doc.text[p.start:p.end]
                          for p in chunk_document(doc.text, doc.headings, ChunkConfig(size=size), counter)]
        a, b = exact.encode(texts), fast.encode(texts)
        rows.append((f"{Path(path).name}, {size}-token chunks", np.einsum("ij,ij->i", a, b)))
    print(f"{exact.model_id} against {fast.model_id}\n")
    table(rows)


def compare_folders(exact_dir: str, fast_dir: str, fast_spec: str) -> None:
    from workbench.core.index.embedder_pool import named_model_id
    from workbench.core.ingest.chunkers.identity import chunking_label
    from workbench.core.workspace import Workspace

    exact_ws, fast_ws = Workspace(exact_dir), Workspace(fast_dir)
    fast_id = named_model_id(fast_spec)
    rows = []
    for info in exact_ws.store.sets.chunk_sets():
        hashes = sorted(set(exact_ws.store.sets.chunk_table(info.id).text_hashes))
        a = exact_ws.store.caches.cached_vectors(info.model_id, hashes)
        b = fast_ws.store.caches.cached_vectors(fast_id, hashes)
        common = [h for h in hashes if h in a and h in b]
        if common:
            rows.append((f"chunk set {chunking_label(info.config)}", np.array([float(a[h] @ b[h]) for h in common])))
    print(f"chunks of {exact_dir} (exact) against {fast_dir} ({fast_id})\n")
    table(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="*", default=[str(p) for p in DEFAULT])
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--fast", default="minilm-bf16")
    ap.add_argument("--data-dirs", nargs=2, metavar=("EXACT_DIR", "FAST_DIR"))
    args = ap.parse_args()
    if args.data_dirs:
        compare_folders(*args.data_dirs, args.fast)
    else:
        embed_corpora(args.corpus, args.chunk_size, args.fast)


if __name__ == "__main__":
    main()
