"""Chunkers compared on the bundled Chroma benchmark: dense top-k, no expansion, one row per chunker.

Each chunk set is built once (timed: chunking + embedding, with the embedding cache of the data folder, so
use a fresh ``--data-dir`` for honest build times), then every question is searched under every chunker.
Prints a Markdown table (recall, precision, IoU, mean context tokens, chunk count, build seconds, chunks/s)
and writes the same rows as JSON with ``--out``. ``--window 1`` adds ±1 neighbours to every row.

    .venv/bin/python benchmarks/chunkers_compared.py --data-dir /tmp/chunk-data-cmp \\
        --chunkers fixed,recursive,semantic,langchain_recursive,chonkie_recursive,cluster_semantic --size 256
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.bundled import bundled_path
from workbench.core.evaluate.datasets import index_corpora, load_question_set
from workbench.core.evaluate.sweep import expand_grid, run_sweep
from workbench.core.index.build import IngestReport
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.workspace import Workspace

METRICS = ("recall", "precision", "iou", "context_tokens")


def main() -> int:
    """Build each chunker's set (timed), run the sweep, print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", required=True)
    p.add_argument("--chunkers", default="fixed,recursive")
    p.add_argument("--size", type=int, default=256)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--window", type=int, default=0, help="±N neighbouring chunks (0 = no expansion)")
    p.add_argument("--limit", type=int, default=0, help="first N questions only (0 = all)")
    p.add_argument("--out", help="write the rows as JSON here")
    args = p.parse_args()
    root = bundled_path("chroma-general")
    assert root is not None
    qset = load_question_set(root)
    if args.limit:
        qset = qset.subset(args.limit, None)
    ws = Workspace(args.data_dir)
    grid = f"chunker={args.chunkers} size={args.size} top_k={args.top_k}"
    base = "plain" if not args.window else json.dumps({"name": "neighbours", "expansion": "neighbours",
                                                       "window": args.window})
    configs = expand_grid([base], grid)
    started = time.perf_counter()
    index_corpora(ws, qset, configs[0].strategy.chunk)  # builds the first set when the corpus is new
    builds: dict[str, tuple[float, int, int]] = {}
    for config in configs:
        if config is not configs[0]:
            started = time.perf_counter()
        report = IngestReport()
        info = ws.sets.ensure_chunk_set(config.strategy.chunk, report=report)
        builds[config.key] = (time.perf_counter() - started, info.chunk_count, report.chunks_embedded)
        print(f"built {config.key}: {info.chunk_count} chunks in {builds[config.key][0]:.1f}s "
              f"({report.chunks_embedded} texts embedded, the rest cached)", file=sys.stderr)
    sweep = run_sweep(ws, qset, configs)
    rows = []
    for result in sweep.results:
        seconds, count, embedded = builds[result.config.key]
        summary = result.summary
        rows.append({"chunker": str(result.config.params.get("chunker")),
                     "label": chunking_label(result.config.strategy.chunk),
                     **{m: round(summary[m].mean, 4) for m in METRICS if m in summary},
                     "chunks": count, "embedded": embedded, "build_s": round(seconds, 1),
                     "chunks_per_s": round(count / seconds, 1) if seconds > 0 else None})
    print(f"| chunker (size {args.size}, top-{args.top_k}{f', ±{args.window}' if args.window else ''}) "
          "| recall | precision | IoU | context tokens | chunks | build s | chunks/s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r.get('recall', 0):.3f} | {r.get('precision', 0):.3f} | {r.get('iou', 0):.3f} "
              f"| {r.get('context_tokens', 0):.0f} | {r['chunks']} | {r['build_s']} | {r['chunks_per_s']} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
