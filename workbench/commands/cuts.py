"""``workbench cuts``: where chunkings cut the text (``cuts diff``: two strategies' cuts compared)."""

from __future__ import annotations

import argparse

from workbench.commands import cuts_diff


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("cuts", help="where chunkings cut the text: diff (two strategies' cuts compared)")
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    cuts_diff.add_diff(acts)
