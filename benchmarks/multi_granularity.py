"""Does multi-granularity search add recall per context token? (issue #16, item 3)

For every question of the bundled Chroma benchmark, hybrid (dense + BM25) hits are taken from two chunk sets
of the same documents, small (100 tokens) and large (200 tokens), fused by reciprocal rank fusion over the
two ranked lists, and their text added in fused order (text already taken is not counted twice) until the
context budget is spent. Compared at the same budget with each granularity alone and with the shipped
``budgeted-neighbours`` preset and with ``multi-granularity`` (neighbour windows over small chunks plus the
best coarse hits, the same idea inside the pipeline). Recall is the evaluation lab's character-span recall;
context tokens are counted with the embedding model's tokenizer, as the lab counts them.

    .venv/bin/python benchmarks/multi_granularity.py --data-dir /tmp/rse-data [--budget 1000] [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.bundled import resolve_dataset
from workbench.core.evaluate.datasets import index_corpora, load_question_set
from workbench.core.evaluate.metrics import span_scores
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.spans import Span, merge_spans, subtract_spans
from workbench.core.workspace import Workspace

FIT = {"chatlogs", "finance"}  # the corpora the presets were fitted on


def _pct(values: list[float]) -> str:
    return f"{100 * statistics.mean(values):.1f}" if values else "–"


def fused_context(ranked_lists: list[list[Span]], ws: Workspace, budget: int,
                  rrf_k: int = 60) -> tuple[list[Span], int]:
    """Spans in RRF order, each added minus the text already taken, while the token budget allows."""
    scores: dict[Span, float] = defaultdict(float)
    for ranked in ranked_lists:
        for rank, span in enumerate(ranked, start=1):
            scores[span] += 1.0 / (rrf_k + rank)
    taken: list[Span] = []
    tokens = 0
    for span in sorted(scores, key=lambda s: -scores[s]):
        new = subtract_spans([span], taken)
        cost = sum(ws.counter.count(ws.corpus.document(p.doc_id).text[p.start : p.end]) for p in new)
        if not new or tokens + cost > budget:
            continue
        taken = merge_spans([*taken, *new])
        tokens += cost
    return taken, tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", default="/tmp/rse-data")
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    ws = Workspace(args.data_dir)
    qset = load_question_set(resolve_dataset("chroma-general"))
    doc_ids = index_corpora(ws, qset)
    small = resolve({"preset": "plain", "size": 100, "top_k": 20, "search": "hybrid"})
    large = resolve({"preset": "plain", "size": 200, "top_k": 10, "search": "hybrid"})
    presets = {name: resolve({"preset": name, "budget": args.budget})
               for name in ("budgeted-neighbours", "multi-granularity")}
    rows: dict[str, list[tuple[str, float, int]]] = defaultdict(list)
    questions = [q for q in qset.questions if q.covered][: args.limit or None]
    for q in questions:
        refs = q.spans(doc_ids)
        lists = [ws.search(q.question, s).spans() for s in (small, large)]
        for name, chosen in (("small (100) alone", [lists[0]]), ("large (200) alone", [lists[1]]),
                             ("fused 100 + 200", lists)):
            spans, tokens = fused_context(chosen, ws, args.budget)
            rows[name].append((q.corpus_id, span_scores(spans, refs)[0], tokens))
        for name, preset in presets.items():
            result = ws.search(q.question, preset)
            rows[f"{name} preset"].append((q.corpus_id, span_scores(result.spans(), refs)[0], result.context.tokens))
    print(f"{len(questions)} questions, budget {args.budget} tokens, hybrid first stage; fit corpora: "
          f"{', '.join(sorted(FIT))}")
    print("| context | recall % (all) | recall % (fit) | recall % (not fit) | mean context tokens |")
    print("|---|---:|---:|---:|---:|")
    for name, values in rows.items():
        fit = [r for c, r, _ in values if c in FIT]
        rest = [r for c, r, _ in values if c not in FIT]
        print(f"| {name} | {_pct([r for _, r, _ in values])} | {_pct(fit)} | {_pct(rest)} "
              f"| {statistics.mean(t for *_, t in values):.0f} |")
    ws.close()


if __name__ == "__main__":
    main()
