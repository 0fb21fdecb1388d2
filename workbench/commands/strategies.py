"""``workbench strategies``: the named strategies and what each does."""

from __future__ import annotations

import argparse

from workbench.commands.common import emit
from workbench.core.retrieve.strategies import PRESETS


def run_strategies(args: argparse.Namespace) -> int:
    data = [s.to_dict() | {"description": s.describe()} for s in PRESETS.values()]
    lines = [f"{s.name:<20} {s.describe()}" for s in PRESETS.values()]
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("strategies", help="list the named strategies and their parameters")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run_strategies)
