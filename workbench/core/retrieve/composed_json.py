"""The composed JSON form of a strategy read back as the flat form (``from_dict`` then checks every field)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from workbench.core.retrieve.expansions import EXPANSION_TYPES
from workbench.core.retrieve.field_checks import checked
from workbench.core.retrieve.search_config import FLAT_SEARCH_FIELDS


def flatten_composed(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with nested ``search`` and ``expansion`` objects (the composed form) as flat fields; unknown
    fields of either are refused with a message naming them."""
    search = data.get("search")
    if isinstance(search, dict):
        data.pop("search")
        names = {"mode": "search", **{k: k for k in FLAT_SEARCH_FIELDS if k != "search"}}
        unknown = sorted(repr(str(k))[1:-1] for k in search if k not in names)  # one line, control characters escaped
        if unknown:
            raise ValueError(f"unknown field(s) of 'search': {', '.join(unknown)[:200]}")
        data.update({names[k]: v for k, v in search.items()})
    expansion = data.get("expansion")
    if isinstance(expansion, dict):
        kind = checked("expansion", "str", expansion.get("kind", "none"))
        if kind not in EXPANSION_TYPES:
            raise ValueError(f"expansion must be one of {', '.join(EXPANSION_TYPES)}")
        own = {f.name for f in fields(EXPANSION_TYPES[kind])}
        unknown = sorted(repr(str(k))[1:-1] for k in expansion if k != "kind" and k not in own)
        if unknown:
            raise ValueError(f"unknown field(s) of expansion '{kind}': {', '.join(unknown)[:200]}")
        data.update({k: v for k, v in expansion.items() if k != "kind"}, expansion=kind)
    return data
