"""Choosing the chunker of a chunk set, and reading back which chunker cuts one: every chunking is a chunker
spec (a registered name and its parameters), whatever cuts it.

``--chunker recursive`` (a name, default parameters) or ``--chunker '{"name": "recursive", "max_tokens": 256,
"overlap": 32}'`` (a JSON object: ``name`` plus parameters). A chunk set's ``ChunkConfig`` stores its chunker in
one of two forms, and ``config_chunker`` / ``apply_chunker`` are the one adapter between them and the spec: the
built-in ``fixed``, ``sentence`` and ``structure`` chunkers keep their parameters in the config's own fields
(unit, size, overlap, structure awareness) and leave ``chunker`` empty, so they keep the identity chunk sets had
before chunkers existed; any other chunker is stored in ``ChunkConfig.chunker`` as canonical JSON (name and
every parameter, defaults filled in), with the config's size fields at their defaults. Everything else (cutting,
sizes, labels, chips) reads the spec and asks the chunker's registered kind, never which form it is stored in.

A grid or CLI *size* maps onto the chunker's size parameter: ``size`` where the chunker has one, else
``max_tokens``; for ``late``, its base chunker's. Chunkers with neither (``langchain_markdown``) refuse a size.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache

from workbench.core.ingest.chunkers.edited import HandSource
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX
from workbench.core.ingest.chunkers.protocol import (
    Chip,
    ChunkerKind,
    ChunkerSpec,
    name_chip,
    name_label_parts,
)
from workbench.core.ingest.chunkers.registry import get_kind, listed_kind
from workbench.core.ingest.values import ChunkConfig

CONFIG_KINDS = ("fixed", "sentence", "structure")  # cut by ChunkConfig's own fields
SIZE_PARAMS = ("size", "max_tokens")  # the parameter a size maps onto, first one the chunker has
MAX_CHUNKER_CHARS = 2_000


def parse_chunker(value: str | Mapping[str, object]) -> tuple[str, dict[str, object]]:
    """``(name, parameters)`` from a name or a JSON object (text or mapping) with a ``name`` key."""
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("{"):
            if not text:
                raise ChunkerError("a chunker needs a name (see 'workbench chunkers')")
            return text, {}
        if len(text) > MAX_CHUNKER_CHARS:
            raise ChunkerError(f"chunker JSON is {len(text):,} characters long (at most {MAX_CHUNKER_CHARS:,})")
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ChunkerError(f"chunker JSON is invalid: {getattr(exc, 'msg', exc)}") from None
    if not isinstance(value, Mapping):
        raise ChunkerError(f"a chunker is a name or a JSON object, not {type(value).__name__}")
    params = dict(value)
    name = params.pop("name", None)
    if not isinstance(name, str) or not name.strip():
        raise ChunkerError('a chunker JSON object needs a "name" (see \'workbench chunkers\')')
    return name.strip(), params


def size_param(kind: ChunkerKind) -> str | None:
    """The parameter a size maps onto (``size`` or ``max_tokens``), or None."""
    names = {p.name for p in kind.params}
    return next((n for n in SIZE_PARAMS if n in names), None)


def with_size(name: str, params: dict[str, object], size: int | None = None,
              overlap: int | None = None) -> dict[str, object]:
    """``params`` with ``size`` on the chunker's size parameter and ``overlap`` on its ``overlap`` (when it
    has one); for ``late`` both go to its base chunker's parameters."""
    if size is None and overlap is None:
        return params
    kind = get_kind(name)
    if kind.name == "late":
        base_name = str(params.get("base", "fixed"))
        raw = params.get("base_params", "{}")
        base_params = json.loads(raw) if isinstance(raw, str) else dict(raw)  # type: ignore[call-overload]
        if not isinstance(base_params, dict):
            raise ChunkerError("chunker 'late': base_params must be a JSON object")
        merged = with_size(base_name, base_params, size, overlap)
        return {**params, "base_params": json.dumps(merged, sort_keys=True)}
    out = dict(params)
    if size is not None:
        target = size_param(kind)
        if target is None:
            raise ChunkerError(f"chunker {name!r} has no size parameter (it takes "
                               f"{', '.join(p.name for p in kind.params) or 'none'})")
        out[target] = size
    if overlap is not None and any(p.name == "overlap" for p in kind.params):
        out["overlap"] = overlap
    return out


def _config_defaults(name: str, base: ChunkConfig) -> dict[str, object]:
    """A config chunker's parameters not given: the base config's (``--chunk-size`` etc. carry over)."""
    if name == "sentence":
        return {"size": base.size, "overlap": base.overlap} if base.unit == "sentences" else {}
    return {"unit": base.unit, "size": base.size, "overlap": base.overlap}


def apply_chunker(base: ChunkConfig, value: str | Mapping[str, object] | None, size: int | None = None,
                  overlap: int | None = None) -> ChunkConfig:
    """``base`` cut by the chunker ``value`` (None or ``""``: ``base`` unchanged, or with ``size`` and
    ``overlap`` applied to its own chunker). Parameters are checked; ``ChunkerError`` says what is wrong."""
    name, params = config_chunker(base) if value is None or value == "" else parse_chunker(value)
    kind = get_kind(name)
    params = with_size(kind.name, params, size, overlap)
    if kind.name in CONFIG_KINDS:
        values = {**_config_defaults(kind.name, base), **params}
        spec = kind.spec(**values)
        p = spec.param_dict
        try:
            return replace(base, unit=str(p.get("unit", "sentences")), size=int(p["size"]), overlap=int(p["overlap"]),
                           structure_aware=kind.name == "structure", chunker="")
        except ValueError as exc:
            raise ChunkerError(f"chunker {kind.name!r}: {exc}") from None
    checked = kind.checked_params(**params)  # no version: naming a chunker loads no code (see consent)
    canonical = json.dumps({"name": kind.name, **checked}, sort_keys=True, separators=(",", ":"))
    defaults = ChunkConfig()
    return replace(base, unit=defaults.unit, size=defaults.size, overlap=defaults.overlap, structure_aware=False,
                   chunker=canonical)


def chunk_size(config: ChunkConfig) -> int:
    """The size ``config`` cuts at, wherever it lives: the config's own ``size`` for the built-in cuts, the
    registry chunker's size parameter otherwise (``late``: its base chunker's); 0 when the chunker has none
    (``langchain_markdown`` cuts at headings)."""
    name, params = config_chunker(config)
    kind = get_kind(name)
    if kind.name == "late":
        raw = params.get("base_params", "{}")
        base_params = json.loads(raw) if isinstance(raw, str) else dict(raw)  # type: ignore[call-overload]
        base = {"name": str(params.get("base", "fixed")), **base_params}
        return chunk_size(apply_chunker(ChunkConfig(), base))
    target = size_param(kind)
    if target is None:
        return 0
    value = kind.checked_params(**params)[target]
    return int(value)


def chunk_overlap(config: ChunkConfig) -> int:
    """The overlap ``config`` cuts with, wherever it lives (see ``chunk_size``): the chunker's ``overlap``
    parameter in ``chunk_unit`` units (``late``: its base chunker's); 0 when the chunker has none."""
    name, params = config_chunker(config)
    kind = get_kind(name)
    if kind.name == "late":
        raw = params.get("base_params", "{}")
        base_params = json.loads(raw) if isinstance(raw, str) else dict(raw)  # type: ignore[call-overload]
        return chunk_overlap(apply_chunker(ChunkConfig(), {"name": str(params.get("base", "fixed")), **base_params}))
    if not any(p.name == "overlap" for p in kind.params):
        return 0
    return int(kind.checked_params(**params)["overlap"])


def chunk_unit(config: ChunkConfig) -> str:
    """What ``chunk_size(config)`` counts: the chunker's ``unit`` parameter where it has one (``fixed``,
    ``structure``; ``sentence`` counts sentences), else tokens (every other chunker measures in tokens)."""
    return spec_unit(*config_chunker(config))


def spec_unit(name: str, params: Mapping[str, object]) -> str:
    """What the size of chunker ``name`` with ``params`` counts (see ``chunk_unit``)."""
    return "sentences" if name == "sentence" else str(params.get("unit", "tokens"))


def with_chunk_size(config: ChunkConfig, size: int | None = None, overlap: int | None = None) -> ChunkConfig:
    """``config`` cut at ``size`` (and ``overlap``), wherever its size lives (see ``chunk_size``): the one
    place a size from the command line, a grid, the window or strategy JSON lands."""
    return apply_chunker(config, None, size=size, overlap=overlap)


def config_chunker(config: ChunkConfig) -> tuple[str, dict[str, object]]:
    """The chunker (name, parameters as stored) that cuts ``config``, whichever form it is stored in: the JSON
    of ``config.chunker``, else the built-in cut the config's own fields describe, ``fixed`` (unit, size,
    overlap), ``sentence`` (size, overlap: a ``sentences`` unit) or ``structure`` (unit, size, overlap). With
    ``apply_chunker`` (which stores a spec back in its form) the one place the two forms are told apart."""
    if config.chunker:
        return parse_chunker(config.chunker)
    if config.structure_aware:
        return "structure", {"unit": config.unit, "size": config.size, "overlap": config.overlap}
    if config.unit == "sentences":
        return "sentence", {"size": config.size, "overlap": config.overlap}
    return "fixed", {"unit": config.unit, "size": config.size, "overlap": config.overlap}


def chunker_spec(config: ChunkConfig, hands: HandSource | None = None) -> ChunkerSpec:
    """The full spec (installed library version included) of the chunker that cuts ``config``; naming a
    ``custom:`` chunker loads its code (callers check consent first); an ``edited:NAME`` chunker is read from
    ``hands`` (the data folder's hand-made chunkings)."""
    name, params = config_chunker(config)
    if name.startswith(HAND_PREFIX):  # its version follows its stored edits: never cached
        return get_kind(name, hands).spec(**params)
    return _spec_of(json.dumps({"name": name, **params}, sort_keys=True))


@lru_cache(maxsize=256)
def _spec_of(chunker: str) -> ChunkerSpec:
    """The spec of a stored chunker (cached: set ids are computed on every search)."""
    name, params = parse_chunker(chunker)
    return get_kind(name).spec(**params)


def chunker_name(config: ChunkConfig) -> str:
    """The chunker that cuts ``config``: its registered name (``fixed``, ``recursive``, ``custom:m:f`` …)."""
    return config_chunker(config)[0]


def _described(config: ChunkConfig) -> tuple[ChunkerKind | None, str, dict[str, object]]:
    """The listed kind (None for an unknown or ``custom:`` name: describing loads no code), name and params."""
    try:
        name, params = config_chunker(config)
    except ChunkerError:
        return None, config.chunker[:60], {}
    return listed_kind(name), name, params


def cut_label_parts(config: ChunkConfig) -> list[str]:
    """How ``config``'s chunker reads in a chunk set's label, as its kind says: ``200 tokens / 20 overlap``,
    ``structure-aware``; ``recursive (max_tokens=256, overlap=0)`` for a chunker that says nothing itself."""
    kind, name, params = _described(config)
    return (kind.label_parts if kind else name_label_parts)(name, params)


def cut_chips(config: ChunkConfig) -> list[Chip]:
    """``config``'s chunker as a strategy's chips, as its kind says (``200 tok``, ``overlap 20``)."""
    kind, name, params = _described(config)
    return (kind.chips if kind else name_chip)(name, params)
