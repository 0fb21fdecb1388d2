"""``workbench contextualize``: build the contextual chunk set (an LLM sentence situating each chunk,
embedded before it) with a local model, and report what it cost.

Sentences are cached in the data folder, so running it again (or searching with
``--strategy '{"contextual": true, ...}'``) makes no LLM call for chunks already situated.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from workbench.commands.common import (
    UserError,
    add_chunk_options,
    add_common,
    emit,
    open_workspace,
    progress_printer,
    say,
)
from workbench.commands.index import chunk_config
from workbench.commands.llm_options import add_llm_options, check_llm_host, llm_choice, open_llm
from workbench.core.ingest.chunkers.identity import chunking_label


def run(args: argparse.Namespace) -> int:
    from workbench.core.index.situating import build_contextual_set

    config = replace(chunk_config(args), contextual=True)
    choice = llm_choice(args)
    check_llm_host(choice)
    ws = open_workspace(args)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    llm = open_llm(choice, needs="contextualize")
    if not args.quiet:
        say(f"situating chunks with {llm.label}", err=True)
    info, usage = build_contextual_set(ws, config, llm, progress_printer(args.quiet))
    data = {"chunk_set": info.id, "label": chunking_label(config), "chunks": info.chunk_count, "backend": llm.name,
            "model": llm.model, "llm": usage.as_dict(), "data_dir": str(ws.data_dir)}
    per_call = f", {usage.seconds / usage.calls:.2f} s/call" if usage.calls else ""
    lines = [
        f"chunk set ({chunking_label(config)}): {info.chunk_count} chunks",
        f"LLM ({llm.name} {llm.model}): {usage.calls} calls, {usage.cached} sentences from the cache, "
        f"{usage.prompt_tokens} prompt + {usage.output_tokens} output tokens, {usage.seconds:.1f} s{per_call}",
    ]
    if usage.empty:
        lines.append(f"warning: {usage.empty} sentence(s) came back empty (those chunks are embedded as they are)")
    lines.append(f"search it: workbench search \"…\" --strategy '{config.to_json()}'")
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("contextualize", help="build the contextual chunk set: a local LLM situates each chunk")
    add_chunk_options(p)
    add_common(p)
    add_llm_options(p, llm_meant_by_model=True)
    p.set_defaults(func=run)
