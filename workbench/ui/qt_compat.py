"""Work-arounds for bugs of the installed Qt binding, detected at run time (never assumed by version).

PySide6 6.12.0 on CPython < 3.12 returns ``None`` from every void method without taking a reference,
so each such call (``setText``, ``insertText``, ``setValue`` …) lowers ``None``'s reference count by
one; after a few hundred thousand calls CPython aborts with "none_dealloc: deallocating None". From
CPython 3.12 on ``None`` is immortal and the bug is harmless. When the bug is detected, ``None`` gets
a reserve of references large enough to never run out (the same idea as 3.12's immortal objects).
Pinning the binding to a fixed release makes this a no-op.
"""

from __future__ import annotations

import ctypes
import sys

RESERVE = 1 << 40  # ~10^12 references: centuries of calls


def void_calls_leak_none() -> bool:
    """True when calling a void Qt method lowers ``None``'s reference count."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    from PySide6.QtCore import QPoint

    point = QPoint()
    point.setX(0)
    before = sys.getrefcount(None)
    for _ in range(64):
        point.setX(1)
    return sys.getrefcount(None) < before - 32


def guard_none_refcount() -> bool:
    """Give ``None`` a reference reserve when the binding leaks them; returns True when applied."""
    if not void_calls_leak_none():
        return False
    refcount = ctypes.c_ssize_t.from_address(id(None))  # ob_refcnt is the first field of every object
    refcount.value += RESERVE
    return True


def describe_guard() -> str:
    """One line for the log about the work-around (logged once logging is set up)."""
    import PySide6

    return (f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]} leaks references to None on "
            "void calls; a reserve of references keeps None alive (pin PySide6 to a fixed release)")
