"""Values read back from the store's own tables, made total.

A data folder may be shared, hand-edited or written by another program: any value the store reads back (the
meta table's counter and rates, a run record's JSON, a saved strategy) may be unreadable. Such a value is
never raised as a bare Python error: it is named (which table, which row, which field), replaced by a safe
default or its row skipped, and the note is kept in ``BadValues`` for the command or the window to show and
for ``workbench verify`` to report. No other row or command is affected.
"""

from __future__ import annotations

import json
import math
from typing import Any


class BadValues:
    """The unreadable values one store connection met, by where they are (first note of each kept)."""

    def __init__(self) -> None:
        self._found: dict[str, str] = {}

    def note(self, where: str, problem: str) -> str:
        """Remember that the value at ``where`` (e.g. ``meta 'generation'``) is unreadable; returns the message."""
        message = f"{where}: {problem}"
        self._found.setdefault(where, message)
        return message

    def find(self, where: str) -> str | None:
        """The note about the value at ``where``, if one was met."""
        return self._found.get(where)

    def messages(self) -> list[str]:
        """Every note, in the order met."""
        return list(self._found.values())


def shown(raw: object, limit: int = 40) -> str:
    """A stored value as a short literal for a message (long values cut)."""
    text = repr(raw)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_object(raw: object) -> tuple[dict[str, Any] | None, str | None]:
    """``raw`` (a stored JSON text) decoded as a JSON object, or ``(None, why)`` when it is not one (not
    text, not JSON, nested too deeply, or another JSON value)."""
    if not isinstance(raw, str | bytes):
        return None, f"is {shown(raw)}, not JSON text"
    try:
        value = json.loads(raw)
    except RecursionError:
        return None, "is JSON nested too deeply to read"
    except ValueError as exc:
        return None, f"is not valid JSON ({str(exc).split(':')[0]}: {shown(raw)})"
    if not isinstance(value, dict):
        return None, f"is JSON {type(value).__name__ if value is not None else 'null'}, not an object"
    return value, None


def counter(raw: object) -> tuple[int | None, str | None]:
    """A stored whole number (SQLite may hand back text), or ``(None, why)``."""
    if isinstance(raw, bool):
        return None, f"is {shown(raw)}, not a whole number"
    if isinstance(raw, int):
        return raw, None
    if isinstance(raw, str) and (digits := raw.strip().lstrip("+-")).isascii() and digits.isdigit() \
            and len(raw) < 40:
        return int(raw), None
    return None, f"is {shown(raw)}, not a whole number"


def positive_number(raw: object) -> tuple[float | None, str | None]:
    """A stored finite number above zero, or ``(None, why)``."""
    try:
        value = float(raw) if isinstance(raw, int | float | str) and not isinstance(raw, bool) else math.nan
    except (ValueError, OverflowError):
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        return None, f"is {shown(raw)}, not a finite number above zero"
    return value, None
