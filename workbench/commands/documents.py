"""``workbench docs``: the indexed documents, and the files that were skipped or failed with the reason."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from workbench.commands.common import add_common, emit, open_workspace


def run_docs(args: argparse.Namespace) -> int:
    ws = open_workspace(args, existing=True)
    docs = ws.records.documents()
    problems = ws.records.problems()
    lines = [f"{d['id']:>4}  {d['chars']:>9,} chars  {d['format']:<8} {d['title'][:40]:<40}  {d['path']}" for d in docs]
    lines += [f"   -  {p.status:<8} {p.path}: {p.reason}" for p in problems]
    if not lines:
        lines = ["no documents indexed yet (workbench index PATH)"]
    emit(args, {"documents": docs, "problems": [asdict(p) for p in problems]}, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("docs", help="list indexed documents and files that were skipped or failed")
    add_common(p)
    p.set_defaults(func=run_docs)
