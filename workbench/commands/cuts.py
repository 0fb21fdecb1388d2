"""``workbench cuts``: where chunkings cut the text (``cuts diff``: two strategies' cuts compared; ``cuts edit``,
``show``, ``list``, ``delete``: hand-made chunkings, ``edited:NAME``)."""

from __future__ import annotations

import argparse

from workbench.commands import cuts_diff, cuts_edit


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("cuts", help="where chunkings cut the text: diff (two strategies' cuts compared); edit, "
                                    "show, list, delete (hand-made chunkings, edited:NAME)")
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    cuts_diff.add_diff(acts)
    cuts_edit.add_edit(acts)
