"""``workbench chunk-stats``: boundary diagnostics of one or more chunkers over the indexed corpus —
chunk sizes, chunks that end mid-sentence, headings cut off from their text and, with a question set,
reference spans split across chunks."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from workbench.commands.common import (
    UserError,
    add_common,
    emit,
    existing_path,
    open_workspace,
    progress_printer,
)
from workbench.commands.index import chunk_config
from workbench.core.ingest.chunkers.identity import chunking_label

if TYPE_CHECKING:
    from workbench.core.ingest.chunk_diagnostics import ChunkDiagnostics
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace

BAR_WIDTH = 30


def _config(value: str | None) -> ChunkConfig:
    blank = argparse.Namespace(chunker=value, chunk_size=None, overlap=None, unit=None, heading_path=None,
                               structure_aware=None)
    return chunk_config(blank)


def question_references(ws: Workspace, dataset: str | None, args: argparse.Namespace) -> list[Span] | None:
    """Every reference span of the question set (its corpora indexed first when missing, as eval does)."""
    if dataset is None:
        return None
    from workbench.core.evaluate.datasets import DatasetError, index_corpora, load_question_set

    try:
        qset = load_question_set(dataset)
        doc_ids = index_corpora(ws, qset, progress=progress_printer(args.quiet))
    except DatasetError as exc:
        raise UserError(str(exc)) from None
    return [s for q in qset.questions for s in q.spans(doc_ids)]


def check_question_set(dataset: str | None) -> None:
    """Refuse ``--questions`` naming neither a bundled set nor a folder that exists (before the store is
    touched)."""
    if dataset:
        from pathlib import Path

        from workbench.core.evaluate.bundled import bundled_path

        if bundled_path(dataset) is None or Path(dataset).expanduser().exists():
            existing_path(dataset, "question set folder", "dir")


def _percent(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.1f}%)" if whole else "none"


def diagnostics_lines(d: ChunkDiagnostics) -> list[str]:
    """The diagnostics as indented text lines (sizes, shares, a histogram of '#' bars)."""
    lines = [f"  chunks: {d.chunks}; tokens mean {d.tokens_mean:.1f}, p10 {d.tokens_p10:.0f}, p90 {d.tokens_p90:.0f}",
             f"  chunks ending mid-sentence: {_percent(d.mid_sentence, d.chunks)}",
             f"  headings separated from their text: {_percent(d.separated_headings, d.headings)}"]
    if d.split_reference_share is not None:
        lines.append(f"  reference spans split across chunks: {_percent(d.split_references, d.references)}")
    peak = max(d.histogram.counts, default=0)
    if peak:
        lines.append("  sizes (tokens):")
    edges = d.histogram.edges
    for low, high, count in zip(edges, edges[1:], d.histogram.counts, strict=False):
        bar = "#" * max(1 if count else 0, round(BAR_WIDTH * count / peak)) if peak else ""
        lines.append(f"    {low:>6}–{high - 1:<6} {count:>6} {bar}")
    return lines


def run(args: argparse.Namespace) -> int:
    from workbench.core.inspect.chunk_map import set_diagnostics

    configs = [_config(value) for value in (args.chunker or [None])]  # bad chunkers refused before the store
    check_question_set(args.questions)
    ws = open_workspace(args, existing=True)
    references = question_references(ws, args.questions, args)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    records, lines = [], []
    for value, config in zip(args.chunker or ["(default)"], configs, strict=True):
        info = ws.sets.ensure_chunk_set(config, progress_printer(args.quiet))
        diagnostics = set_diagnostics(ws.sets.runtime(info.id), ws.corpus.document, references or ())
        records.append({"chunker": value, "chunk_set": chunking_label(config), "set_id": info.id,
                        **diagnostics.as_dict()})
        lines += [f"{chunking_label(config)}:", *diagnostics_lines(diagnostics), ""]
    emit(args, records, "\n".join(lines).rstrip())
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chunk-stats", help="chunk boundary diagnostics per chunker: sizes, mid-sentence ends, "
                                           "separated headings, split reference spans")
    p.add_argument("--chunker", action="append", metavar="NAME_OR_JSON",
                   help="a chunker by name or JSON object, as for 'search --chunker' (the chunk set is built when "
                        "missing); repeat to compare several (default: the default chunk set)")
    p.add_argument("--questions", metavar="SET",
                   help="question set (a bundled name or a folder): also report the share of its reference spans "
                        "that no single chunk contains (its corpora are indexed first when missing)")
    add_common(p)
    p.set_defaults(func=run)
