"""``workbench cuts diff A B``: where two strategies' chunkings cut the same text — their cuts that agree
(within N characters) and the reference spans each splits — per document and overall."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.chunk_stats import check_question_set, question_references
from workbench.commands.common import UserError, add_common, emit, open_workspace, whole_number
from workbench.commands.strategy_sets import document_id, named_strategy, strategy_set
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.cut_agreement import DEFAULT_WITHIN, diff_line

if TYPE_CHECKING:
    from workbench.core.inspect.cut_compare import SetCutDiff
    from workbench.core.workspace import Workspace


def _records(ws: Workspace, diff: SetCutDiff) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for doc_id, cuts in diff.documents.items():
        doc = ws.corpus.document(doc_id)
        rows.append({"doc_id": doc_id, "doc_path": doc.path, **cuts.diff.as_dict(), "a": list(cuts.a),
                     "b": list(cuts.b), "agreeing_pairs": [list(p) for p in cuts.pairs]})
    return rows


def run(args: argparse.Namespace) -> int:
    from workbench.core.inspect.cut_compare import set_cut_diff

    strategy_a, strategy_b = named_strategy(args, args.strategy_a), named_strategy(args, args.strategy_b)
    check_question_set(args.questions)
    ws = open_workspace(args, existing=True)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    doc_ids = [document_id(ws, args.doc)] if args.doc else None
    references = question_references(ws, args.questions, args) or []
    rt_a, rt_b = strategy_set(ws, strategy_a, args), strategy_set(ws, strategy_b, args)
    diff = set_cut_diff(rt_a, rt_b, doc_ids, references, args.within)
    record = {"a": {"strategy": args.strategy_a, "chunk_set": chunking_label(rt_a.info.config),
                    "set_id": rt_a.info.id},
              "b": {"strategy": args.strategy_b, "chunk_set": chunking_label(rt_b.info.config),
                    "set_id": rt_b.info.id},
              "within": args.within, "overall": diff.total.as_dict(), "documents": _records(ws, diff)}
    lines = [f"A: {strategy_a.name} ({chunking_label(rt_a.info.config)})",
             f"B: {strategy_b.name} ({chunking_label(rt_b.info.config)})",
             f"overall ({len(diff.documents)} document(s)): {diff_line(diff.total, args.within)}"]
    if len(diff.documents) > 1 or args.doc:
        for doc_id, cuts in diff.documents.items():
            lines.append(f"  {Path(ws.corpus.document(doc_id).path).name}: {diff_line(cuts.diff, args.within)}")
    emit(args, record, "\n".join(lines))
    return 0


def add_diff(acts: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = acts.add_parser("diff", help="two strategies' cuts on the same text: cuts that agree within N characters "
                                     "and the reference spans split by A only, B only, both or neither")
    p.add_argument("strategy_a", metavar="STRATEGY_A", help="a named strategy (see 'workbench strategies') or a "
                                                            "JSON object, as --strategy takes")
    p.add_argument("strategy_b", metavar="STRATEGY_B", help="the strategy compared with it")
    p.add_argument("--doc", metavar="DOC", help="this document only (its id, path or file name; default: every "
                                                "document both chunk sets hold)")
    p.add_argument("--within", type=whole_number(0), default=DEFAULT_WITHIN, metavar="N",
                   help=f"two cuts at most N characters apart agree (default {DEFAULT_WITHIN})")
    p.add_argument("--questions", metavar="SET",
                   help="question set (a bundled name or a folder): count its reference spans split by each "
                        "(its corpora are indexed first when missing)")
    add_common(p)
    p.set_defaults(func=run)
