"""Named strategies and the one way to get a strategy from what a person gives: a preset name, a JSON object
(optionally ``{"preset": NAME, ...}`` with changes), or a ``Strategy`` value.

The value itself is ``strategy.Strategy``; its JSON is read and written at the edge by ``strategy_json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from workbench.core.retrieve.strategy.json_form import from_dict, override
from workbench.core.retrieve.strategy.preset_specs import PRESET_SPECS
from workbench.core.retrieve.strategy.search_config import SEARCH_MODES, SearchConfig
from workbench.core.retrieve.strategy.value import Strategy

MAX_JSON_CHARS = 10_000  # a strategy is a few dozen fields; anything longer is not one

PRESETS: dict[str, Strategy] = {str(spec["name"]): from_dict(spec) for spec in PRESET_SPECS}


def resolve(spec: str | Mapping[str, object] | Strategy | None,
            named: Mapping[str, Strategy] | None = None) -> Strategy:
    """A strategy from a preset name, the name of a strategy saved in the data folder (``named``: name →
    strategy, read as data: naming one loads no code), a JSON object or its text (optionally with ``"preset"``:
    that preset or saved strategy with the object's fields changed), or a Strategy (returned as it is); None:
    ``plain``."""
    known = {**PRESETS, **(named or {})}
    if spec is None:
        return PRESETS["plain"]
    if isinstance(spec, Strategy):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if text in known:
            return known[text]
        if not text.startswith("{"):
            raise ValueError(f"unknown strategy {spec[:80]!r}; named strategies: {', '.join(known)}")
        if len(text) > MAX_JSON_CHARS:
            raise ValueError(f"strategy JSON is {len(text):,} characters long (at most {MAX_JSON_CHARS:,})")
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"strategy JSON is invalid: {exc.msg}") from None
        except RecursionError:
            raise ValueError("strategy JSON is nested too deeply") from None
        if not isinstance(loaded, dict):
            raise ValueError(f"a strategy must be a JSON object, not {type(loaded).__name__}")
        spec = loaded
    if not isinstance(spec, Mapping):
        raise ValueError(f"a strategy must be a JSON object, not {type(spec).__name__}")
    data = dict(spec)
    preset = data.pop("preset", None)
    if preset is None:
        return from_dict(data)
    if not isinstance(preset, str) or preset not in known:
        raise ValueError(f"unknown preset {str(preset)[:40]!r}; named strategies: {', '.join(known)}")
    return from_dict(data, known[preset])


SAVED_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,59}$")


def check_saved_name(name: str) -> str:
    """``name`` when a strategy may be saved under it: 1–60 letters, digits, ``_``, ``.`` or ``-``, not a
    preset's name (a saved strategy never hides a preset); else a one-line ``ValueError``."""
    if not SAVED_NAME.match(name):
        raise ValueError(f"a saved strategy's name is 1-60 letters, digits, '_', '.' or '-', not {name[:70]!r}")
    if name in PRESETS or name == "custom":
        raise ValueError(f"{name!r} is a preset's name; choose another name for the saved strategy")
    return name


__all__ = ["MAX_JSON_CHARS", "PRESETS", "SEARCH_MODES", "SearchConfig", "Strategy", "check_saved_name", "from_dict",
           "override", "resolve"]
