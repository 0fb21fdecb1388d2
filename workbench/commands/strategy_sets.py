"""What the commands that read a strategy's chunk set share (``cuts diff``, ``chunks export``): a strategy
named as ``--strategy`` names one, its chunk set found or built as ``chunk-stats`` builds one, and a
document named by id, path or file name."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.common import UserError, progress_printer
from workbench.commands.search import saved_strategies
from workbench.core.index.embedder_pool import missing_model_folder
from workbench.core.retrieve.strategy.presets import Strategy, resolve

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.workspace import Workspace


def named_strategy(args: argparse.Namespace, value: str) -> Strategy:
    """The strategy ``value`` names: a preset, a strategy saved in the data folder, or JSON (as ``--strategy``;
    refused in one line when it names none, or an embedding model folder that does not exist)."""
    try:
        try:
            strategy = resolve(value)
        except ValueError:  # perhaps a strategy saved in the data folder (read as data: no code is loaded)
            strategy = resolve(value, saved_strategies(args))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    folder = missing_model_folder(strategy.model)
    if folder:
        raise UserError(f"no such embedding model folder: {folder} (the strategy's \"model\")")
    return strategy


def strategy_set(ws: Workspace, strategy: Strategy, args: argparse.Namespace) -> LoadedSet:
    """The strategy's chunk set over every stored document, loaded: built or brought up to date first when
    needed, as ``chunk-stats`` does (a contextual set, which needs an LLM, only when already built)."""
    if strategy.chunk.contextual:
        info = ws.sets.find_chunk_set(strategy.chunk, strategy.model)
        if info is None:
            raise UserError(f"{strategy.name}: its contextual chunk set is not built; build it with "
                            "'workbench search' or 'workbench index' and this strategy first")
    else:
        info = ws.sets.ensure_chunk_set(strategy.chunk, progress_printer(args.quiet), model=strategy.model)
    return ws.sets.runtime(info.id)


def document_id(ws: Workspace, doc: str) -> int:
    """A stored document by id, path or (unique) file name."""
    rows = ws.records.documents()
    if doc.isascii() and doc.isdigit() and any(int(r["id"]) == int(doc) for r in rows):
        return int(doc)
    exact = [r for r in rows if r["path"] == doc]
    named = exact or [r for r in rows if Path(r["path"]).name == doc or r["path"].endswith("/" + doc)]
    if len(named) == 1:
        return int(named[0]["id"])
    if not named:
        raise UserError(f"no stored document {doc!r} (give its id, path or file name; 'workbench docs' lists them)")
    raise UserError(f"{doc!r} names {len(named)} documents ({', '.join(str(r['id']) for r in named[:5])}); "
                    "give its id")
