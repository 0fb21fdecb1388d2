"""``workbench strategies``: the named strategies and what each does — the presets and the strategies saved in
the data folder (``workbench advise`` saves its picks there); ``--delete NAME`` forgets a saved one."""

from __future__ import annotations

import argparse

from workbench.commands.common import UserError, add_common, emit, open_workspace, require_store, safe_text, say
from workbench.core.retrieve.strategy.presets import PRESETS


def run_strategies(args: argparse.Namespace) -> int:
    from workbench.core.data_folder import resolve_data_dir
    from workbench.core.store import DB_NAME

    folder = resolve_data_dir(args.data_dir)
    if args.data_dir or args.delete:  # a folder named (or a strategy to forget) must hold a store
        require_store(args)
    ws = None
    if (folder / DB_NAME).exists():  # listing never creates a data folder
        try:
            ws = open_workspace(args)
        except UserError as exc:  # the default folder unreadable: the presets are still listed
            if args.data_dir or args.delete:
                raise
            say(f"warning: saved strategies not listed: {exc}", err=True)
    if args.delete:
        if ws is None or not ws.records.delete_saved_strategy(args.delete):
            raise UserError(f"no strategy saved as {args.delete!r} in {folder}")
        emit(args, {"deleted": args.delete}, f"forgot the saved strategy {args.delete!r}")
        return 0
    saved = ws.records.saved_strategies() if ws is not None else {}
    rows = {r.name: r for r in ws.records.saved_strategy_rows()} if ws is not None else {}
    data = [s.to_dict() | {"description": s.describe(), "saved": False} for s in PRESETS.values()]
    data += [s.to_dict() | {"description": s.describe(), "saved": True, "source": rows[name].source,
                            "note": rows[name].note} for name, s in saved.items()]
    lines = [f"{s.name:<20} {s.describe()}" for s in PRESETS.values()]
    if saved:
        lines += ["", f"saved in {folder}:"]
        for name, s in saved.items():
            source = f" (from run {rows[name].source})" if rows[name].source else ""
            lines.append(f"{name:<20} {s.describe()}{source}")
    problems = ws.records.saved_strategy_problems() if ws is not None else []
    data += [{"name": name, "saved": True, "problem": why} for name, why in problems]
    lines += [f"warning: saved strategy {name!r}: {why}" for name, why in problems]
    for message in ws.records.stored_value_warnings() if ws is not None else []:  # a damaged record, named
        say(f"warning: {safe_text(message)}", err=True)
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("strategies", help="list the named strategies (presets and those saved in the data folder)")
    p.add_argument("--delete", metavar="NAME", help="forget a strategy saved in the data folder")
    add_common(p)
    p.set_defaults(func=run_strategies)
