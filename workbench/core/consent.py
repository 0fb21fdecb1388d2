"""Consent to run code that data names: a custom chunker (``custom:module:function``) or a local embedding
model folder (sentence-transformers imports Python code a model folder ships).

Data never names code. A strategy read from a run record, the settings, a question set or a strategy file
may *name* such a target (it is shown like any other), but the target is loaded only after the user allowed
it in this run of the program: by naming it on the command line or choosing it in the window (both call
``trust``), or by an explicit trust step (``--trust-custom TARGET``, or the window's dialog naming it).
Consent lives in this process only: nothing is remembered on disk, where a data folder could plant it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterable

CUSTOM_TARGET = re.compile(r"custom:([A-Za-z_][\w.]*:[A-Za-z_][\w.]*)")
TRUST_OPTION = "--trust-custom"

_TRUSTED: set[str] = set()
_GUARD = threading.Lock()


class NotTrusted(ValueError):
    """Data named code the user has not allowed in this run; ``target`` is what ``trust`` takes."""

    def __init__(self, target: str, what: str) -> None:
        self.target = target
        self.what = what
        super().__init__(
            f"{what} was named by data this run read (a run record, saved settings, a question set or a "
            f"strategy file), not by you, and would run Python code, so it was refused. If you trust where it "
            f"came from, allow it with {TRUST_OPTION} {target} (in the window: choose it yourself, or allow it "
            "in the dialog that names it)")


def key(target: str) -> str:
    """The consent key of a target: ``module:function`` as given, a folder as its real path."""
    text = target.strip()
    if text.startswith("custom:"):
        text = text[len("custom:"):]
    if CUSTOM_TARGET.fullmatch("custom:" + text):
        return text
    return os.path.realpath(os.path.expanduser(text))


def trust(target: str) -> None:
    """Allow ``target`` (``module:function``, ``custom:module:function`` or a model folder) for this run."""
    with _GUARD:
        _TRUSTED.add(key(target))


def is_trusted(target: str) -> bool:
    """True when ``target`` was allowed in this run."""
    with _GUARD:
        return key(target) in _TRUSTED


def forget_all() -> None:
    """Withdraw every consent (tests; a new data folder in the window)."""
    with _GUARD:
        _TRUSTED.clear()


def named_targets(text: str) -> list[str]:
    """Every target one command-line argument names: ``custom:module:function`` anywhere in it, and each
    string value that could be a model folder (the argument itself, the values of ``key=a,b`` grid
    arguments, the string values of a JSON object)."""
    found = [m.group(1) for m in CUSTOM_TARGET.finditer(text)]
    values: list[str] = []
    if text.lstrip().startswith("{"):  # a strategy or chunker as JSON
        with contextlib.suppress(ValueError, RecursionError):
            values += list(_strings(json.loads(text)))
    elif "=" in text:  # a grid: "window=0,1 model=/x,/y"
        values += [v for part in text.split() if "=" in part for v in part.split("=", 1)[1].split(",")]
    else:
        values.append(text)
    found += [v for v in values if v.strip() and not CUSTOM_TARGET.search(v)
              and ("/" in v or os.sep in v or os.path.isdir(v))]
    return found


def trust_named_in(arguments: Iterable[str]) -> None:
    """Allow every target the user named on this command line (see ``named_targets``)."""
    for argument in arguments:
        for target in named_targets(argument):
            trust(target)


def _strings(value: object, depth: int = 0) -> Iterable[str]:
    if depth > 20:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)
