"""``workbench datasets``: the question sets bundled with the package (usable by name in ``eval``)."""

from __future__ import annotations

import argparse

from workbench.commands.common import emit
from workbench.core.evaluate.bundled import bundled_sets


def run(args: argparse.Namespace) -> int:
    sets = bundled_sets()
    lines = [f"{s.name:<16} {s.questions:>4} questions  {len(s.corpora)} corpora ({', '.join(s.corpora)})  "
             f"licence {s.licence}" for s in sets]
    lines.append("use a name wherever a question set folder is taken, e.g. workbench eval chroma-general")
    emit(args, [s.as_dict() for s in sets], "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("datasets", help="list the bundled question sets (name, corpora, questions, licence)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run)
