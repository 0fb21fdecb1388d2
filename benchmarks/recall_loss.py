"""Where does a budgeted strategy lose recall, and do window shapes or gap filling win it back? (issue #16)

For every question of the bundled Chroma benchmark, the reference characters the strategy's context misses
are classed by where they lie: in a document no passage touches, next to a passage (< 300 characters away:
about one 64-token chunk), near one (< 1,500), or further away in the same document; and whether a passage
cuts through the reference span. Two what-ifs, measured and not shipped:

* ``--before B --after A``: neighbour windows of B chunks before and A after each hit instead of ±window
  (the expansion is swapped for this run only; budget-aware assembly trims them as it trims any window);
* ``--fill-gaps CHARS``: passages of one document closer than CHARS merged, the gap's tokens added.

    .venv/bin/python benchmarks/recall_loss.py --data-dir /tmp/rse-data [--corpora fit|rest|all] \\
        [--strategy JSON] [--before 1 --after 2] [--fill-gaps 600]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.bundled import resolve_dataset
from workbench.core.evaluate.datasets import index_corpora, load_question_set
from workbench.core.evaluate.metrics import span_scores
from workbench.core.retrieve import passages
from workbench.core.retrieve.expansions import neighbours, none
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.spans import Span, merge_spans, subtract_spans
from workbench.core.workspace import Workspace

FIT = {"chatlogs", "finance"}  # the corpora the presets were fitted on


def shaped_windows(before: int, after: int):
    """A ``neighbour_windows`` replacement with ``before`` / ``after`` chunks instead of ±w."""
    def windows(runtime, hits, w, doc_text=None):
        if w == 0:
            return none.no_expansion(runtime, hits)
        out = []
        for hit in hits:
            first, end = runtime.doc_rows(hit.span.doc_id)
            lo, hi = max(first, hit.row - before), min(end - 1, hit.row + after)
            out.append(passages.Window(runtime.range_span(lo, hi), [hit], (lo, hi), []))
        return passages.merge_windows(out, doc_text)
    return windows


def fill_gaps(spans: list[Span], gap: int, ws: Workspace) -> tuple[list[Span], int]:
    """Passages of one document closer than ``gap`` characters merged; the tokens the gaps add."""
    out: list[Span] = []
    extra = 0
    for s in sorted(spans, key=lambda s: (s.doc_id, s.start)):
        if out and out[-1].doc_id == s.doc_id and 0 <= s.start - out[-1].end <= gap:
            extra += ws.counter.count(ws.corpus.doc_text(s.doc_id)[out[-1].end : s.start])
            out[-1] = Span(s.doc_id, out[-1].start, max(out[-1].end, s.end))
        else:
            out.append(s)
    return out, extra


def where_missed(missed: list[Span], got: list[Span]) -> Counter[str]:
    """Missed reference characters by where they lie relative to the passages."""
    found: Counter[str] = Counter()
    for m in missed:
        same_doc = [g for g in got if g.doc_id == m.doc_id]
        if not same_doc:
            found["in a document no passage touches"] += m.end - m.start
            continue
        distance = min(max(g.start - m.end, m.start - g.end, 0) for g in same_doc)
        place = "next to a passage (< 300 chars)" if distance < 300 else \
            "near a passage (< 1,500 chars)" if distance < 1500 else "further away in the same document"
        found[place] += m.end - m.start
        if any(g.end == m.start or g.start == m.end for g in same_doc):
            found["  of which: the reference span is cut by a passage"] += m.end - m.start
        if any(0 <= m.start - g.end < 300 for g in same_doc) and not any(0 <= g.start - m.end < 300 for g in same_doc):
            found["  of which: right after a passage only"] += m.end - m.start
        if any(0 <= g.start - m.end < 300 for g in same_doc) and not any(0 <= m.start - g.end < 300 for g in same_doc):
            found["  of which: right before a passage only"] += m.end - m.start
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", default="/tmp/rse-data")
    ap.add_argument("--corpora", choices=("fit", "rest", "all"), default="all")
    ap.add_argument("--strategy", default='{"preset": "budgeted-neighbours"}')
    ap.add_argument("--before", type=int)
    ap.add_argument("--after", type=int)
    ap.add_argument("--fill-gaps", type=int, default=0)
    args = ap.parse_args()
    if args.before is not None or args.after is not None:
        neighbours.neighbour_windows = shaped_windows(args.before or 0, args.after or 0)
    ws = Workspace(args.data_dir)
    qset = load_question_set(resolve_dataset("chroma-general"))
    doc_ids = index_corpora(ws, qset)
    strategy = resolve(json.loads(args.strategy))
    recalls, tokens, missed_where, reference_chars = [], [], Counter(), 0
    for q in qset.questions:
        if not q.covered or (args.corpora == "fit") != (q.corpus_id in FIT) and args.corpora != "all":
            continue
        refs = merge_spans(q.spans(doc_ids))
        result = ws.search(q.question, strategy)
        got, extra = fill_gaps(result.spans(), args.fill_gaps, ws) if args.fill_gaps else (result.spans(), 0)
        got = merge_spans(got)
        recalls.append(span_scores(got, refs)[0])
        tokens.append(result.context.tokens + extra)
        missed_where += where_missed(subtract_spans(refs, got), got)
        reference_chars += sum(r.end - r.start for r in refs)
    shape = (f" windows -{args.before or 0}/+{args.after or 0}"
             if args.before is not None or args.after is not None else "")
    print(f"{strategy.name}{shape}{f', gaps < {args.fill_gaps} chars filled' if args.fill_gaps else ''}; "
          f"{args.corpora} corpora, {len(recalls)} questions: recall {100 * statistics.mean(recalls):.1f}, "
          f"mean context tokens {statistics.mean(tokens):.0f}")
    print("reference characters missed, by where they lie (% of all reference characters):")
    for place, chars in sorted(missed_where.items(), key=lambda kv: (kv[0].startswith(" "), -kv[1])):
        print(f"  {place:55s} {100 * chars / reference_chars:5.1f}")


if __name__ == "__main__":
    main()
