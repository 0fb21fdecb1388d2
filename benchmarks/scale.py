"""How cost grows with the corpus: indexing and query time at 10k / 100k / 1M chunks.

Chunk vectors are synthetic (clustered, instant); chunking, SQLite, BM25 (FTS5's tokenizer, scored in
memory), FAISS, expansion and assembly are the real code paths, and each question is embedded by the real MiniLM model.

    .venv/bin/python benchmarks/scale.py --sizes 10000 100000 [1000000] [--work /tmp/wb-scale]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import QueryTimedEmbedder, SyntheticEmbedder, write_corpus

CHUNK_TOKENS = 48


def questions(n: int, offset: int = 0) -> list[str]:
    path = Path(__file__).resolve().parents[1] / "workbench/datasets/chroma-general/questions.csv"
    with open(path, encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh)][offset : offset + n]


def p95(xs: list[float]) -> float:
    return float(np.percentile(xs, 95))


# Presets timed end to end (question embedding + first stage + expansion + budget-aware assembly).
TIMED_PRESETS = ("hybrid", "budgeted-neighbours", "multi-granularity", "segments-balanced", "segments-recall")


def run_size(n_chunks: int, work: Path, real, qs: list[str], fresh: list[str]) -> dict:
    from dataclasses import replace

    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.retrieve.expansions import NoExpansion
    from workbench.core.retrieve.strategy.presets import from_dict, override, resolve
    from workbench.core.workspace import Workspace

    docs, data = work / f"{n_chunks}" / "docs", work / f"{n_chunks}" / "data"
    if not docs.exists():
        write_corpus(docs, n_chunks * CHUNK_TOKENS)
    config = ChunkConfig(size=CHUNK_TOKENS)
    row: dict = {"chunks_target": n_chunks}
    ws = Workspace(data, embedder=SyntheticEmbedder(model_path=real.model_path))
    t0 = time.perf_counter()
    report = ws.add_paths([str(docs)], config)
    row["index_s"] = time.perf_counter() - t0
    info = ws.sets.find_chunk_set(config)
    row["chunks"] = info.chunk_count
    t0 = time.perf_counter()
    for preset in TIMED_PRESETS:  # coarse chunk sets of multi-granularity search (synthetic vectors too)
        for coarse in resolve({"preset": preset, "size": CHUNK_TOKENS}).chunk_configs()[1:]:
            ws.sets.ensure_chunk_set(coarse)
    row["coarse_sets_s"] = time.perf_counter() - t0
    ws.close()

    wq = Workspace(data, embedder=QueryTimedEmbedder(real))
    t0 = time.perf_counter()
    rt = wq.sets.runtime(wq.sets.find_chunk_set(config).id)
    row["open_s"] = time.perf_counter() - t0
    row["index_kind"] = rt.index.kind
    t0 = time.perf_counter()
    lexical = rt.lexical(wq.corpus.doc_text)  # built on a set's first BM25 query; timed here on its own
    row["bm25_build_s"] = time.perf_counter() - t0
    row["bm25_mb"] = lexical.memory_bytes / 1e6
    base = from_dict({"size": CHUNK_TOKENS, "top_k": 10})
    cold = []
    for q in qs:
        t0 = time.perf_counter()
        wq.search(q, base)
        cold.append((time.perf_counter() - t0) * 1000)
    row["query_ms_median"] = statistics.median(cold)
    changes = []
    variants = [{"window": w} for w in range(6)] + [{"top_k": k} for k in (5, 8, 10)] + \
               [{"budget": b, "window": 1} for b in (500, 1000, 2000)]
    for q in qs:
        for v in variants:
            s = override(replace(base, expander=NoExpansion()), **v)  # a window > 0 means neighbours
            t0 = time.perf_counter()
            wq.search(q, s)
            changes.append((time.perf_counter() - t0) * 1000)
    row["change_ms_p95"] = p95(changes)
    row["change_ms_median"] = statistics.median(changes)
    for preset in TIMED_PRESETS:  # coarse chunk sets of multi-granularity search, loaded before the timing
        for config in resolve({"preset": preset, "size": CHUNK_TOKENS}).chunk_configs()[1:]:
            wq.sets.runtime(wq.sets.ensure_chunk_set(config).id).lexical(wq.corpus.doc_text)
    for n, preset in enumerate(TIMED_PRESETS, start=1):  # fresh questions: each pays its own embedding
        strategy = resolve({"preset": preset, "size": CHUNK_TOKENS})
        times, steps = [], {}
        for q in fresh[(n - 1) * len(qs) : n * len(qs)]:
            t0 = time.perf_counter()
            result = wq.search(q, strategy)
            times.append((time.perf_counter() - t0) * 1000)
            for step, ms in result.timings.items():
                steps.setdefault(step, []).append(ms)
        row[f"{preset}_ms_median"] = statistics.median(times)
        row[f"{preset}_steps_ms"] = {step: round(statistics.median(ms), 1) for step, ms in steps.items()}
    if rt.index.kind != "flat":
        row["recall_at_10"] = approx_recall(rt, wq, qs)
    del report
    wq.close()
    return row


def approx_recall(rt, ws, qs) -> float:
    """recall@10 of the approximate index against exact search over the same vectors."""
    from workbench.core.index.vectors import VectorIndex

    ids = rt.table.ids
    vecs = rt.index.vectors_for(ids) if len(ids) < 50_000 else np.vstack(
        [rt.index.vectors_for(ids[i : i + 50_000]) for i in range(0, len(ids), 50_000)])
    exact = VectorIndex.build(ids, vecs, vecs.shape[1], approx=False)
    hits = []
    for q in qs:
        v = ws.corpus.query_vector(q)
        _, a = rt.index.search(v, 10)
        _, e = exact.search(v, 10)
        hits.append(len(set(a) & set(e)) / 10)
    return float(np.mean(hits))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    ap.add_argument("--work", default="/tmp/wb-scale")
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--question-offset", type=int, default=0,
                    help="use other questions than an earlier run (their vectors are cached in the store)")
    args = ap.parse_args()
    from workbench.core.index.embedding import SentenceTransformerEmbedder

    real = SentenceTransformerEmbedder()
    real.encode(["warm up"])
    qs = questions(args.questions, args.question_offset)
    fresh = questions(args.questions * len(TIMED_PRESETS), args.question_offset + args.questions)
    rows = [run_size(n, Path(args.work), real, qs, fresh) for n in args.sizes]
    print("| chunks | index kind | indexing (synthetic vectors) | open set | query end to end (median) "
          "| window/top-k/budget change (median / p95) | recall@10 vs exact |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        rec = f"{r['recall_at_10']:.3f}" if "recall_at_10" in r else "exact"
        print(f"| {r['chunks']:,} | {r['index_kind']} | {r['index_s']:.1f} s "
              f"({r['chunks'] / r['index_s']:.0f} chunks/s) "
              f"| {r['open_s']:.2f} s | {r['query_ms_median']:.1f} ms | {r['change_ms_median']:.1f} / "
              f"{r['change_ms_p95']:.1f} ms | {rec} |")
    print()
    print("| chunks | " + " | ".join(f"{p} query (median)" for p in TIMED_PRESETS) + " |")
    print("|---|" + "---|" * len(TIMED_PRESETS))
    for r in rows:
        print(f"| {r['chunks']:,} | " + " | ".join(f"{r[p + '_ms_median']:.1f} ms" for p in TIMED_PRESETS) + " |")
    print()
    for r in rows:
        print(f"{r['chunks']:,} chunks: BM25 index built in {r['bm25_build_s']:.1f} s ({r['bm25_mb']:.0f} MB) "
              "on the set's first lexical query")
        for p in TIMED_PRESETS:
            print(f"  {p} steps (median ms): {r[p + '_steps_ms']}")


if __name__ == "__main__":
    main()
