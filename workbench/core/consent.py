"""Consent to run code that data names: a custom chunker (``custom:module:function``) or a local embedding
model folder (sentence-transformers imports Python code a model folder ships).

Data never names code. A strategy read from a run record, the settings, a question set or a strategy file
may *name* such a target (it is shown like any other), but the target is loaded only after the user allowed
it in this run of the program: by naming it on the command line or choosing it in the window (both call
``trust``), or by an explicit trust step (``--trust-custom TARGET``, or the window's dialog naming it).
A command line consents only through whole values: ``--chunker custom:M:F`` (or a chunker JSON object
whose ``name`` is exactly that), the ``chunker`` field of a strategy JSON object typed in the command,
``--model FOLDER`` and ``--trust-custom TARGET`` (``trust_typed``).
Consent lives in this process only: nothing is remembered on disk, where a data folder could plant it.
"""

from __future__ import annotations

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


def chunker_target(value: object) -> str | None:
    """The custom chunker ``value`` names as a whole, as ``module:function``: ``value`` is exactly
    ``custom:module:function``, or a chunker JSON object (or its text) whose ``name`` is exactly that. None
    for anything else: a ``custom:`` part inside a longer value names nothing."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                return None
        else:
            match = CUSTOM_TARGET.fullmatch(text)
            return match.group(1) if match else None
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, str) and not name.strip().startswith("{"):
            return chunker_target(name)
    return None


def strategy_chunker_target(text: str) -> str | None:
    """The custom chunker a strategy JSON object typed on the command line names in its ``chunker`` field
    (flat, or inside ``"chunk"``), as ``chunker_target`` reads it. A strategy's *name* (a preset's, a saved
    strategy's) names nothing, whatever it contains."""
    if not text.strip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    chunk = data.get("chunk")
    field = chunk.get("chunker") if isinstance(chunk, dict) and "chunker" in chunk else data.get("chunker")
    return chunker_target(field)


def trust_typed(chunkers: Iterable[str] = (), strategies: Iterable[str] = (), models: Iterable[str] = (),
                targets: Iterable[str] = ()) -> None:
    """Consent from one command line, each value taken whole (see the module docstring): the custom chunker
    each ``--chunker`` value names exactly (``chunker_target``), the one each typed strategy JSON's
    ``chunker`` field names (``strategy_chunker_target``), each ``--model`` folder and each
    ``--trust-custom`` target. Nothing else grants: not a ``custom:`` part of a longer value, not a saved
    strategy's name, not an argument that happens to be a folder."""
    found = [chunker_target(v) for v in chunkers] + [strategy_chunker_target(v) for v in strategies]
    for target in [*(t for t in found if t), *models, *targets]:
        if target.strip():
            trust(target)
