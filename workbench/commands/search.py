"""``workbench search``: run a strategy for a question and print the passages."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.commands.common import (
    UserError,
    add_chunk_options,
    add_common,
    emit,
    finite_float,
    open_workspace,
    progress_printer,
    say,
    whole_number,
)
from workbench.commands.index import chunk_config
from workbench.commands.llm_options import add_llm_options, check_llm_host, llm_choice
from workbench.core.index.embedder_pool import missing_model_folder
from workbench.core.retrieve.knobs import ParamValue
from workbench.core.retrieve.steps.base import step_field_types, step_knobs
from workbench.core.retrieve.strategy.names import descriptive_name
from workbench.core.retrieve.strategy.presets import Strategy, override, resolve

if TYPE_CHECKING:
    from workbench.core.ingest.documents import Document
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.retrieve.search import Hit
    from workbench.core.workspace import Workspace


def add_strategy_options(p: argparse.ArgumentParser, repeatable: bool = False) -> None:
    """Options that pick a strategy and override its knobs (search, ask and eval share them);
    ``repeatable``: ``--strategy`` may be given several times (eval compares them)."""
    if repeatable:
        p.add_argument("--strategy", action="append", metavar="S",
                       help="named strategy or JSON object; repeat to compare several (default: plain)")
    else:
        p.add_argument("--strategy", default=None,
                       help="a named strategy (see 'workbench strategies') or a JSON object (default: plain)")
    p.add_argument("--top-k", type=whole_number(1), help="hits to return")
    p.add_argument("--window", type=whole_number(0), help="neighbour window ±W chunks (0 = the hit chunk only)")
    p.add_argument("--budget", type=whole_number(0), help="context budget in tokens (0 = no limit)")
    p.add_argument("--search-mode", choices=["dense", "bm25", "hybrid"], help="first-stage search")
    p.add_argument("--coarse", metavar="SIZE:HITS+…",
                   help="multi-granularity search: also take the best HITS of the same documents cut at SIZE "
                        "(e.g. 100:1+200:1; '' = off), fused with the hits as windows of the strategy's chunks")
    p.add_argument("--window-edge", choices=["shift", "clip"],
                   help="token windows at a document edge: shift inward to keep their size (default) or clip")
    p.add_argument("--merge-parents", action="store_true", default=None,
                   help="parent-child: join adjacent parents into one passage (default: one passage per parent)")
    add_step_options(p)
    add_chunk_options(p)


def add_step_options(p: argparse.ArgumentParser) -> None:
    """One option per knob of every registered later step (``--per-doc-cap N`` …), from its declaration
    (``Step.knobs``): a yes/no field a flag, a field with choices those choices, a number a number."""
    for _cls, knob in step_knobs():
        kind = step_field_types()[knob.field]
        if kind == "bool":
            p.add_argument(knob.option, action="store_true", default=None, help=knob.cli_help)
        elif knob.choices:
            p.add_argument(knob.option, choices=list(knob.choices), help=knob.cli_help)
        else:
            p.add_argument(knob.option, type=finite_float if kind == "float" else whole_number(0), metavar="N",
                           help=knob.cli_help)


def step_changes(args: argparse.Namespace) -> dict[str, ParamValue | None]:
    """The later steps' fields given on the command line (None: not given)."""
    return {knob.field: getattr(args, knob.field, None) for _, knob in step_knobs()}


def saved_strategies(args: argparse.Namespace) -> dict[str, Strategy]:
    """The strategies saved in the data folder (``workbench advise`` saves its picks there), read once per
    command and only when a ``--strategy`` value is not a preset or JSON."""
    saved = getattr(args, "saved_strategies", None)
    if saved is None:
        from workbench.core.data_folder import resolve_data_dir
        from workbench.core.store import DB_NAME

        saved = {}
        if (resolve_data_dir(args.data_dir) / DB_NAME).exists():  # an unknown name never creates a data folder
            ws = open_workspace(args)
            try:
                saved = ws.records.saved_strategies()
            finally:
                ws.close()
        args.saved_strategies = saved
    return saved


def strategy_from_args(args: argparse.Namespace) -> Strategy:
    """The strategy named by ``--strategy`` (a preset, a strategy saved in the data folder, or JSON) with the
    command-line overrides applied (refused when its ``"model"`` names a folder that does not exist)."""
    try:
        try:
            base = resolve(args.strategy)
        except ValueError:  # perhaps a strategy saved in the data folder (read as data: no code is loaded)
            base = resolve(args.strategy, saved_strategies(args))
        strategy = override(
            base, top_k=args.top_k, window=args.window, budget=args.budget, search=args.search_mode,
            coarse=args.coarse, window_edge=args.window_edge, parent_merge=args.merge_parents,
            **step_changes(args),
        )
        chunk = chunk_config(args, strategy.chunk)
        strategy = replace(strategy, chunk=chunk) if chunk != strategy.chunk else strategy
        if strategy != base:  # changed on the command line: it is no longer what its name says
            strategy = replace(strategy, name=descriptive_name(strategy))  # (the name reads its settings only)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    folder = missing_model_folder(strategy.model)
    if folder:  # refused before the store is opened
        raise UserError(f"no such embedding model folder: {folder} (the strategy's \"model\")")
    return strategy


def needs_llm(strategy: Strategy) -> bool:
    """True when running ``strategy`` may call an LLM (rerank, summaries, a contextual chunk set)."""
    return bool(strategy.llm_steps()) or strategy.chunk.contextual


def check_question(question: str) -> None:
    """Refuse a question over the length cap (core ``question_problem``) with its one-line message."""
    from workbench.core.retrieve.search import question_problem

    problem = question_problem(question)
    if problem:
        raise UserError(problem)


def passage_records(ws: Workspace, result: SearchResult) -> list[dict[str, Any]]:
    """JSON-ready passages: the hit, the passage span and text (``text == document_text[start:end]``); like
    ``context_tokens``, ``duplicates_dropped`` (passages left out because their text repeats a kept one's)
    describes the whole result."""
    out = []
    for p in result.passages:
        doc = ws.corpus.document(p.span.doc_id)
        best = next(h for h in result.hits if h.chunk_id == p.hit_chunk_ids[0])
        out.append({
            "rank": p.rank, "score": round(p.score, 6), "doc_id": doc.id, "doc_path": doc.path,
            "doc_title": doc.title, "chunk_id": best.chunk_id, "chunk_start": best.span.start,
            "chunk_end": best.span.end, "start": p.span.start, "end": p.span.end,
            "text": doc.text[p.span.start : p.span.end], "tokens": p.tokens, "chunks": p.chunk_count,
            "heading_path": list(_heading_path(ws, result, best)),
            **_chunk_texts(ws, result, best, doc),
            "initial_rank": best.first_rank or best.rank,
            "hits": [{"chunk_id": h.chunk_id, "rank": h.rank, "initial_rank": h.first_rank or h.rank,
                      "score": round(h.score, 6), "start": h.span.start, "end": h.span.end,
                      **({"coarse_rows": list(h.cover)} if h.cover else {})}
                     for h in result.hits if h.chunk_id in p.hit_chunk_ids],
            "reasons": list(p.reasons), "strategy": result.strategy.name,
            "context_tokens": result.context.tokens, "duplicates_dropped": result.context.duplicates,
        })
    return out


def _heading_path(ws: Workspace, result: SearchResult, hit: Hit) -> tuple[str, ...]:
    return ws.sets.runtime(result.set_id).heading_path(hit.row)


def _chunk_texts(ws: Workspace, result: SearchResult, hit: Hit, doc: Document) -> dict[str, str]:
    """The best hit's chunk as embedded (prefix + text) and as displayed (``[file] heading - text``)."""
    from workbench.core.index.heading_prefix import display_text

    rt = ws.sets.runtime(result.set_id)
    body = doc.text[hit.span.start : hit.span.end]
    source = Path(doc.path).name if doc.path else doc.title
    return {"embedded_text": rt.table.prefixes[hit.row] + body,
            "display": display_text(source, rt.heading_path(hit.row), body)}


def run(args: argparse.Namespace) -> int:
    from workbench.core.llm import opener_for

    strategy = strategy_from_args(args)
    check_question(args.question)
    choice = llm_choice(args)
    if needs_llm(strategy):
        check_llm_host(choice)
    ws = open_workspace(args, existing=True)
    ws.use_llm(opener_for(choice))
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    result = ws.search(args.question, strategy, progress=progress_printer(args.quiet))
    records = passage_records(ws, result)
    lines = [f"{strategy.name}: {strategy.describe()}",
             f"{len(records)} passage(s), {result.context.tokens} context tokens, "
             f"{result.timings['total_ms']:.0f} ms"]
    lines += [f"warning: {w}" for w in result.warnings]
    reranked = any(h.first_rank for h in result.hits)
    for r in records:
        moved = f"(#{r['initial_rank']} → #{r['rank']}) " if reranked else ""
        lines.append(f"\n[{r['rank']}] {moved}{r['score']:.3f}  {Path(r['doc_path']).name}  "
                     f"{' > '.join(r['heading_path'])}  ({r['tokens']} tokens, chars {r['start']}-{r['end']})")
        lines.extend("    " + line for line in r["text"].strip().splitlines()[:12])
        lines.extend(f"    ({reason})" for reason in r["reasons"])
    if result.context.duplicates:
        lines.append(f"\n{result.context.duplicates} passage(s) dropped as duplicate text (the same words as a "
                     "passage shown)")
    if result.context.dropped:
        lines.append(f"\nbudget dropped {len(result.context.dropped)} passage(s)")
    if args.json:  # the text lines carry the warnings; JSON keeps its shape, so they go to stderr
        for w in result.warnings:
            say(f"warning: {w}", err=True)
    emit(args, records, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("search", help="search the corpus with a strategy and print the passages")
    p.add_argument("question", help="the question")
    add_strategy_options(p)
    add_common(p)
    add_llm_options(p)
    p.set_defaults(func=run)

