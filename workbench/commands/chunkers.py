"""``workbench chunkers``: every chunker (built-in and ecosystem adapters) with its parameters, library,
version and availability."""

from __future__ import annotations

import argparse

from workbench.commands.common import emit
from workbench.core.ingest.chunkers.catalog import chunker_catalog, param_text


def run(args: argparse.Namespace) -> int:
    catalog = chunker_catalog()
    lines: list[str] = []
    for entry in catalog:
        where = f"{entry['library']} {entry['version']}".strip()
        state = "" if entry["available"] else "  [not available]"
        lines.append(f"{entry['name']:<20} {entry['summary']}  ({where}){state}")
        params = entry["params"]
        lines += [f"    {param_text(p)}" for p in (params if isinstance(params, list) else [])]
        if not entry["available"]:
            lines.append(f"    {entry['install_hint']}")
    lines.append("plus custom:module:function: your own function (text, headings) -> spans or chunk texts")
    emit(args, catalog, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chunkers", help="list every chunker: parameters, library and version, availability")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run)
