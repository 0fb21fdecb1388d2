"""Small commands: ``docs``, ``strategies``, ``verify``."""

from __future__ import annotations

import argparse

from workbench.commands.common import UserError, add_common, emit, open_workspace
from workbench.core.retrieve.strategies import PRESETS


def run_docs(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    docs = ws.store.documents()
    problems = ws.store.problems()
    lines = [f"{d['id']:>4}  {d['chars']:>9,} chars  {d['format']:<8} {d['title'][:40]:<40}  {d['path']}" for d in docs]
    lines += [f"   -  {p['status']:<8} {p['path']}: {p['reason']}" for p in problems]
    if not lines:
        lines = ["no documents indexed yet (workbench index PATH)"]
    emit(args, {"documents": docs, "problems": problems}, "\n".join(lines))
    return 0


def run_strategies(args: argparse.Namespace) -> int:
    data = [s.to_dict() | {"description": s.describe()} for s in PRESETS.values()]
    lines = [f"{s.name:<20} {s.describe()}" for s in PRESETS.values()]
    emit(args, data, "\n".join(lines))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from workbench.core.index.verify import verify_store

    try:
        ws = open_workspace(args)
    except UserError as exc:  # a store that cannot even be opened is the most inconsistent of all
        report = {"consistent": False, "problems": [str(exc)], "notes": [], "repaired": [],
                  "unrepaired": [str(exc)] if args.repair else [], "chunk_sets": 0, "documents": 0}
        emit(args, report, f"INCONSISTENT ({args.data_dir or 'default data folder'})\n  {exc}")
        return 3
    report = verify_store(ws, repair=args.repair)
    lines = [("consistent" if report["consistent"] else "INCONSISTENT") + f" ({ws.data_dir})"]
    lines += [f"  {p}" for p in report["problems"]]
    lines += [f"  repaired: {r}" for r in report["repaired"]]
    lines += [f"  NOT repaired: {r}" for r in report["unrepaired"]]
    lines += [f"  note: {n}" for n in report["notes"]]
    emit(args, report, "\n".join(lines))
    if report["consistent"] or (args.repair and not report["unrepaired"]):
        return 0
    return 3


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("docs", help="list indexed documents and files that were skipped or failed")
    add_common(p)
    p.set_defaults(func=run_docs)
    p = sub.add_parser("strategies", help="list the named strategies and their parameters")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run_strategies)
    p = sub.add_parser("verify", help="check the database and that the FAISS files agree with it (exit 3 if not)")
    p.add_argument("--repair", action="store_true",
                   help="rebuild FAISS indexes that are damaged or do not match (exit 3 if something could not "
                        "be repaired, such as damage inside the database)")
    add_common(p)
    p.set_defaults(func=run_verify)

