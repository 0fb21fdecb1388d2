"""Checks of one strategy field read from JSON: its type and its range, with a message naming it."""

from __future__ import annotations

import json
import math
from typing import Any

MAX_INT = 1_000_000  # no count, size or budget of a strategy is larger
FLOAT_RANGES = {"dense_weight": (0.0, 100.0), "bm25_weight": (0.0, 100.0), "margin": (0.0, 1.0)}


def checked(name: str, kind: str, value: Any) -> Any:
    """``value`` of strategy field ``name`` of type ``kind`` ("int", "float", "bool", "str"), checked; a
    ``ValueError`` naming the field otherwise (``true`` is not a number, ``"yes"`` is not a boolean)."""
    def wrong(expected: str) -> ValueError:
        shown = json.dumps(value)[:40] if jsonable(value) else type(value).__name__
        return ValueError(f"strategy field '{name}' must be {expected}, not {shown}")

    if kind == "bool":
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if kind == "int":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("a whole number")
        if not -MAX_INT <= value <= MAX_INT:
            raise ValueError(f"strategy field '{name}' is out of range (at most {MAX_INT:,})")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise wrong("a finite number")
        lo, hi = FLOAT_RANGES.get(name, (-MAX_INT, MAX_INT))
        if not lo <= value <= hi:
            raise ValueError(f"strategy field '{name}' must be between {lo:g} and {hi:g}, not {value:g}")
        return float(value)
    if not isinstance(value, str):
        raise wrong("a string")
    if len(value) > 200:
        raise ValueError(f"strategy field '{name}' is too long ({len(value)} characters, at most 200)")
    return value


def jsonable(value: Any) -> bool:
    """True when ``value`` can be written as JSON."""
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True
