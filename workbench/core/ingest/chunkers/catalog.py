"""Every registered chunker described as plain data: what ``workbench chunkers`` lists (and a UI can show)."""

from __future__ import annotations

from typing import cast

from workbench.core.ingest.chunkers.protocol import ChunkerKind, ParamSpec
from workbench.core.ingest.chunkers.registry import chunker_kinds


def describe_param(param: ParamSpec) -> dict[str, object]:
    """One parameter: name, type, default, range or choices, help."""
    out: dict[str, object] = {"name": param.name, "type": type(param.default).__name__, "default": param.default,
                              "help": param.help}
    if param.choices:
        out["choices"] = list(param.choices)
    if param.minimum is not None or param.maximum is not None:
        out["range"] = [param.minimum, param.maximum]
    return out


def describe_kind(kind: ChunkerKind) -> dict[str, object]:
    """One chunker kind: name, summary, library and installed version, availability (with the install hint
    when it is not available), what it needs from the caller and its parameters."""
    hint = kind.available()
    return {"name": kind.name, "summary": kind.summary, "library": kind.library,
            "version": kind.version() if hint is None else "", "available": hint is None,
            "install_hint": hint or "", "needs": list(kind.needs),
            "params": [describe_param(p) for p in kind.params]}


def chunker_catalog(kinds: list[ChunkerKind] | None = None) -> list[dict[str, object]]:
    """``describe_kind`` of every registered kind (or of ``kinds``), in registration order."""
    return [describe_kind(k) for k in (chunker_kinds() if kinds is None else kinds)]


def param_text(param: dict[str, object]) -> str:
    """A parameter as one short line: ``max_tokens=256 (1..100000) largest chunk, …``."""
    bounds = ""
    if "choices" in param:
        bounds = " (" + "|".join(str(c) for c in param["choices"]) + ")"  # type: ignore[attr-defined]
    elif "range" in param:
        low, high = cast("tuple[float, float]", param["range"])
        bounds = f" ({_number(low)}..{_number(high)})"
    return f"{param['name']}={param['default']}{bounds} {param['help']}".rstrip()


def _number(value: object) -> str:
    if value is None:
        return ""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
