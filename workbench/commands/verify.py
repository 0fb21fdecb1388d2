"""``workbench verify``: check that the database and the FAISS files agree (``--repair`` rebuilds indexes)."""

from __future__ import annotations

import argparse
from typing import Any

from workbench.commands.common import (
    EXIT_PROBLEMS,
    EXIT_UNOPENED,
    UserError,
    add_common,
    emit,
    open_workspace,
    require_store,
)


def run_verify(args: argparse.Namespace) -> int:
    from workbench.core.index.verify import verify_store

    require_store(args)  # no store there: say so (status 1) and create nothing
    try:
        ws = open_workspace(args)
    except UserError as exc:  # a store that cannot be opened: its own status, not "inconsistent"
        failed: dict[str, Any] = {"consistent": False, "opened": False, "problems": [str(exc)], "notes": [],
                                  "repaired": [], "unrepaired": [str(exc)] if args.repair else [], "chunk_sets": 0,
                                  "documents": 0}
        emit(args, failed, f"CANNOT OPEN ({args.data_dir or 'default data folder'})\n  {exc}")
        return EXIT_UNOPENED
    report = verify_store(ws, repair=args.repair)
    lines = [("consistent" if report["consistent"] else "INCONSISTENT") + f" ({ws.data_dir})"]
    lines += [f"  {p}" for p in report["problems"]]
    lines += [f"  repaired: {r}" for r in report["repaired"]]
    lines += [f"  NOT repaired: {r}" for r in report["unrepaired"]]
    lines += [f"  note: {n}" for n in report["notes"]]
    emit(args, report, "\n".join(lines))
    if report["consistent"] or (args.repair and not report["unrepaired"]):
        return 0
    return EXIT_PROBLEMS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("verify", help="check the database and that the FAISS files agree with it (exit 3 if not, "
                       "4 if the store cannot be opened, 1 if the folder holds none)")
    p.add_argument("--repair", action="store_true",
                   help="rebuild FAISS indexes that are damaged or do not match (exit 3 if something could not "
                        "be repaired, such as damage inside the database)")
    add_common(p)
    p.set_defaults(func=run_verify)
