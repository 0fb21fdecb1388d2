"""What contextual retrieval costs and what recall it buys: plain vs heading-path vs contextual (LLM) embedding
(and both prefixes together; its sentences come from the cache) at the same chunk size and top-k, so at the
same context size, on one corpus of a Chroma-format question set.

Usage::

    .venv/bin/python benchmarks/contextual.py [--dataset chroma-general]
        [--corpus state_of_the_union] [--chunk-size 100] [--top-k 5] [--limit N] [--backend embedded]
        [--data-dir DIR] [--json]

Without ``--data-dir`` a fresh temporary workspace is used, so every embedding and every sentence is paid
for (with one, a second run shows the cached cost: 0 LLM calls). Each chunk set is built and timed on its
own (the plain one includes reading the corpus); then all three run over the same questions. The table
also gives the share of chunks whose embedded text (prefix + chunk) exceeds the embedding model's input
length, whose tail the model therefore never sees.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.core.evaluate.datasets import index_corpora, load_question_set  # noqa: E402
from workbench.core.evaluate.export import summary_rows  # noqa: E402
from workbench.core.evaluate.sweep import SweepConfig, run_sweep  # noqa: E402
from workbench.core.index.situating import build_contextual_set  # noqa: E402
from workbench.core.ingest.chunkers.identity import chunking_label  # noqa: E402
from workbench.core.ingest.values import ChunkConfig  # noqa: E402
from workbench.core.jobs import ProgressEvent  # noqa: E402
from workbench.core.retrieve.strategy.presets import Strategy  # noqa: E402
from workbench.core.workspace import Workspace  # noqa: E402

DATASET = ROOT / "workbench" / "datasets" / "chroma-general"


def progress(ev: ProgressEvent, last=[0.0]) -> None:  # noqa: B006 - a throttle shared between calls
    """At most one line every 5 s on stderr."""
    now = time.monotonic()
    if now - last[0] >= 5 or ev.done == ev.total:
        last[0] = now
        print(f"  [{ev.stage}] {ev.done}/{ev.total} {ev.message}", file=sys.stderr, flush=True)


def overflow(ws: Workspace, set_id: str) -> float:
    """Share of a chunk set's chunks whose embedded text is longer than the embedding model reads."""
    limit = getattr(ws.embedder, "max_tokens", None) or 256
    rows = ws.store.db.execute("SELECT prefix, tokens FROM chunks WHERE set_id = ?", [set_id]).fetchall()
    over = sum(1 for prefix, tokens in rows if ws.corpus.count_tokens(prefix) + tokens + 2 > limit)
    return over / len(rows) if rows else 0.0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default=str(DATASET))
    p.add_argument("--corpus", default="state_of_the_union")
    p.add_argument("--chunk-size", type=int, default=100)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--limit", type=int, help="only the first N questions of the corpus")
    p.add_argument("--backend", default="embedded", choices=["auto", "embedded", "ollama"])
    p.add_argument("--model", help="LLM (Ollama name or GGUF file)")
    p.add_argument("--data-dir", help="workspace to use (default: a fresh temporary one)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()

    from workbench.core.llm import open_backend

    qset = load_question_set(args.dataset).subset(args.limit, args.corpus)
    tmp = None if args.data_dir else tempfile.TemporaryDirectory(prefix="bench-contextual-")
    ws = Workspace(args.data_dir or tmp.name)
    llm = open_backend(args.backend, args.model)
    size = args.chunk_size
    configs = {"plain": ChunkConfig(size=size), "heading-path": ChunkConfig(size=size, heading_prefix=True),
               "contextual": ChunkConfig(size=size, contextual=True),
               "contextual+heading": ChunkConfig(size=size, contextual=True, heading_prefix=True)}
    build: dict[str, dict] = {}
    for name, config in configs.items():
        print(f"building {name} ({chunking_label(config)})", file=sys.stderr)
        t0 = time.perf_counter()
        usage = None
        if name == "plain":
            index_corpora(ws, qset, config, progress)
            info = ws.sets.ensure_chunk_set(config)
        elif config.contextual:
            info, usage = build_contextual_set(ws, config, llm, progress)
        else:
            info = ws.sets.ensure_chunk_set(config, progress)
        build[name] = {"set_id": info.id, "chunks": info.chunk_count, "seconds": time.perf_counter() - t0,
                       "llm": usage.as_dict() if usage else {"calls": 0, "cached": 0, "tokens": 0, "seconds": 0.0},
                       "overflow": overflow(ws, info.id)}
    sweep_configs = [SweepConfig(name, Strategy(name=name, chunk=config, top_k=args.top_k), name)
                     for name, config in configs.items()]
    print(f"searching {len(qset.questions)} questions × {len(sweep_configs)} strategies", file=sys.stderr)
    sweep = run_sweep(ws, qset, sweep_configs, progress)
    rows = []
    for row in summary_rows(sweep.results):
        rows.append({**row, **build[row["key"]], "llm_model": llm.model if row["key"] == "contextual" else ""})
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    print(f"\n{qset.name}/{args.corpus}: {len(qset.questions)} questions; chunks of {size} tokens, "
          f"dense top-{args.top_k}; "
          f"embedding {ws.embedder.model_id}; LLM {llm.name} {llm.model}")
    head = ["strategy", "chunks", "build s", "LLM calls", "LLM tokens", "LLM s", "over limit", "recall %",
            "precision %", "IoU %", "hit %", "MRR", "ctx tokens"]
    body = []
    for r in rows:
        u = r["llm"]
        body.append([r["key"], str(r["chunks"]), f"{r['seconds']:.1f}", f"{u['calls']} (+{u['cached']} cached)",
                     str(u["tokens"]), f"{u['seconds']:.1f}", f"{100 * r['overflow']:.0f}%",
                     f"{100 * r['recall']:.1f}", f"{100 * r['precision']:.1f}", f"{100 * r['iou']:.1f}",
                     f"{100 * r['hit_rate']:.1f}", f"{r['mrr']:.3f}", f"{r['context_tokens']:.0f}"])
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    for cells in [head, ["-" * w for w in widths], *body]:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(cells, widths, strict=True))))
    if tmp is not None:
        ws.close()
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
