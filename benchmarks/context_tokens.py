"""Context tokens as the workbench counts them, against what the earlier count charged, recounted independently.

For each strategy, every question of the bundled Chroma benchmark (or ``--limit`` of them) is searched with no
budget, and three figures are printed per strategy, as means over the questions:

- ``counted``: the context tokens the workbench reports now (each passage counted on its own text);
- ``recount``: the same passages counted by a tokenizer of this script's own (the model's ``tokenizer.json``
  loaded again), the independent check: it must equal ``counted``;
- ``earlier``: what the count before the fix charged the same passages: the sum of the stored per-chunk counts
  for chunk-aligned passages of a chunk set whose fields form said "no overlap" (registry chunkers keep their
  overlap in their parameters, so theirs were summed too), else the text's count.

    .venv/bin/python benchmarks/context_tokens.py --data-dir /tmp/ctx-tokens            # MiniLM
    .venv/bin/python benchmarks/context_tokens.py --data-dir /tmp/ctx-tokens-h --hashed  # no model: plumbing
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tokenizers import Tokenizer  # noqa: E402

from workbench.core.evaluate.bundled import bundled_path  # noqa: E402
from workbench.core.evaluate.datasets import index_corpora, load_question_set  # noqa: E402
from workbench.core.index.embedding import default_model_path  # noqa: E402
from workbench.core.retrieve.strategy.presets import resolve  # noqa: E402
from workbench.core.workspace import Workspace  # noqa: E402

STRATEGIES = {
    "plain (fixed 200, no overlap)": {"preset": "plain"},
    "neighbours ±1 (fixed 100)": {"preset": "neighbours"},
    "fixed 128 / overlap 48, ±1": {"size": 128, "overlap": 48, "expansion": "neighbours", "window": 1},
    "recursive 128 / overlap 48, ±1": {"chunker": {"name": "recursive", "max_tokens": 128, "overlap": 48},
                                       "expansion": "neighbours", "window": 1},
    "semchunk 128 / overlap 32, ±1": {"chunker": {"name": "semchunk", "max_tokens": 128, "overlap": 32},
                                      "expansion": "neighbours", "window": 1},
    "recursive 128 / overlap 48, top-5": {"chunker": {"name": "recursive", "max_tokens": 128, "overlap": 48}},
}


def main() -> int:
    """Search every question under every strategy and print the three figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", required=True)
    p.add_argument("--limit", type=int, default=0, help="first N questions only (0 = all 472)")
    p.add_argument("--hashed", action="store_true", help="embed with the tests' hashed embedder (no model)")
    p.add_argument("--out", help="write the rows as JSON here")
    args = p.parse_args()
    embedder = None
    if args.hashed:
        sys.path.insert(0, str(ROOT / "tests"))
        from fake_embedder import HashEmbedder

        embedder = HashEmbedder()
    root = bundled_path("chroma-general")
    assert root is not None
    qset = load_question_set(root)
    questions = qset.questions[: args.limit] if args.limit else qset.questions
    ws = Workspace(args.data_dir, embedder=embedder) if embedder else Workspace(args.data_dir)
    index_corpora(ws, qset)
    tok = Tokenizer.from_file(str(Path(default_model_path()) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    rows = []
    for label, spec in STRATEGIES.items():
        strategy = resolve({"name": label, "top_k": 5, **spec})
        counted = recount = earlier = 0
        for q in questions:
            result = ws.search(q.question, strategy)
            rt = ws.sets.runtime(result.set_id)
            for passage in result.context.passages:
                text = ws.corpus.doc_text(passage.span.doc_id)[passage.span.start:passage.span.end]
                counted += passage.tokens
                recount += len(tok.encode(text, add_special_tokens=False).ids)
                if passage.chunk_rows is not None and not rt.info.config.overlap:
                    lo, hi = passage.chunk_rows
                    earlier += int(rt.table.tokens[lo:hi + 1].sum())
                else:
                    earlier += passage.tokens
        n = len(questions)
        rows.append({"strategy": label, "questions": n, "counted": counted / n, "recount": recount / n,
                     "earlier": earlier / n, "overcharge_pct": 100 * (earlier - counted) / max(counted, 1)})
        print(f"{label}: counted {counted / n:.1f}, recount {recount / n:.1f}, earlier {earlier / n:.1f}",
              file=sys.stderr)
    print(f"| strategy ({'hashed embedder' if args.hashed else 'all-MiniLM-L6-v2'}, {len(questions)} questions, "
          "no budget) | context tokens now | independent recount | before the fix | overcharged |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['strategy']} | {r['counted']:,.1f} | {r['recount']:,.1f} | {r['earlier']:,.1f} "
              f"| {r['overcharge_pct']:+.1f} % |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
