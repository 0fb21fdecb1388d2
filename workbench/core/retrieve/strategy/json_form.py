"""Strategy JSON at the edge: the one reader of both forms, and the flat writer that records keep.

``Strategy.to_dict`` writes the composed form (``chunk``, ``search`` and ``expansion`` as objects). Earlier
versions wrote a flat form (``search`` as the mode, every expansion field at the top level, chunk fields
nested or flat, a few aliases); ``from_dict`` reads either, checking every field (type, range, unknown
names, nesting): bad input raises a one-line ``ValueError`` naming the field. Read over a ``base`` strategy,
the same reader applies overrides by name (the command line's and a grid's vocabulary). Experiment records
are written flat (``to_flat_dict``) so that earlier versions still read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields, replace

from workbench.core.ingest.chunkers.choice import apply_chunker, with_chunk_size
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.expansions import EXPANSION_TYPES
from workbench.core.retrieve.expansions.base import (
    FIELD_OWNER,
    ParamValue,
    build_expansion,
    expansion_type,
    field_types,
    with_changes,
)
from workbench.core.retrieve.steps.base import STEP_FIELDS, step_field_types, with_step_changes
from workbench.core.retrieve.strategy.field_checks import checked
from workbench.core.retrieve.strategy.search_config import SearchConfig, coarse_text, parse_coarse
from workbench.core.retrieve.strategy.value import Strategy, StrategyJson

ALIASES = {"chunk_size": "size", "chunk_unit": "unit", "k": "top_k", "hybrid": "search"}
CHUNK_TYPES = {f.name: str(f.type) for f in fields(ChunkConfig)}
SEARCH_TYPES = {"mode": "str", "dense_weight": "float", "bm25_weight": "float", "rrf_k": "int", "coarse": "str"}
FLAT_SEARCH = {"search": "mode", "dense_weight": "dense_weight", "bm25_weight": "bm25_weight", "rrf_k": "rrf_k",
               "coarse": "coarse"}  # flat name → search field
GENERAL_TYPES = {"name": "str", "top_k": "int", "candidate_k": "int", "budget": "int", "model": "str"}
"""The strategy's own fields; the later steps' fields sit beside them (``steps.base.STEP_FIELDS``)."""
FLAT_ORDER = ("name", "chunk", "model", "search", "top_k", "candidate_k", "dense_weight", "bm25_weight", "rrf_k",
              "coarse", "expansion", "window", "window_tokens", "window_edge", "parent_size", "parent_top_k",
              "parent_merge", "margin", "merge_gap", "max_steps", "rerank", "rerank_candidates", "rerank_parents",
              "summary", "summary_sections", "budget", "per_doc_cap", "whole_doc_tokens")
"""The flat form's key order (fields of expansion kinds added later follow, only when used)."""


def from_dict(data: Mapping[str, object], base: Strategy | None = None) -> Strategy:
    """A strategy from ``data`` (flat or composed form, see the module docstring), each field given taking
    the place of ``base``'s (default: plain dense top-5 over 200-token chunks, named ``custom``).

    A chunk size without a chunker lands where ``base``'s chunking keeps it (``with_chunk_size``); a window
    on no expansion means neighbour windows, and a field of another expansion kind than the one chosen is
    refused unless it holds that kind's default (``expansions.base.with_changes``).
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"a strategy must be a JSON object, not {type(data).__name__}")
    base = base or Strategy()
    data = {ALIASES.get(str(k), str(k)): v for k, v in data.items()}
    search_config = _search_config(data, base.search_config)
    kind, expansion = _split_expansion(data)
    chunk = _split_chunk(data)
    steps = _split_steps(data)
    unknown = sorted(repr(k)[1:-1] for k in data if k not in GENERAL_TYPES)  # control characters escaped
    if unknown:
        raise ValueError(f"unknown strategy field(s): {', '.join(unknown)[:200]}")
    general = {k: checked(k, GENERAL_TYPES[k], v) for k, v in data.items()}
    if kind is not None:
        _check_other_kinds(kind, expansion)
        expander = build_expansion(kind, expansion, base.expander)
    else:
        expander = with_changes(base.expander, expansion) if expansion else base.expander
    try:
        return replace(base, chunk=_chunk_config(base.chunk, chunk), search_config=search_config,
                       expander=expander, steps=with_step_changes(base.steps, steps) if steps else base.steps,
                       **general)
    except TypeError as exc:  # a value of the right JSON type that a field still cannot take
        raise ValueError(f"strategy: {exc}") from None


def override(strategy: Strategy, **changes: ParamValue | None) -> Strategy:
    """``strategy`` with the command line's (or a grid's) changes by flat name, ``None`` values ignored
    (``from_dict`` over ``strategy``: its name is kept)."""
    given = {k: v for k, v in changes.items() if v is not None}
    return from_dict(given, strategy) if given else strategy


def to_flat_dict(strategy: Strategy) -> StrategyJson:
    """The flat form every version reads (nested ``chunk``; every expansion field of the kinds in
    ``FLAT_ORDER``, those of other kinds at their defaults; fields of later kinds only when the strategy uses
    that kind): what experiment records store."""
    kind = strategy.expander.kind
    own = {k for k, owner in FIELD_OWNER.items() if k in FLAT_ORDER or owner == kind}
    expansion: StrategyJson = {}
    for name in FIELD_OWNER:
        if name in own:
            holder = strategy.expander if FIELD_OWNER[name] == kind else EXPANSION_TYPES[FIELD_OWNER[name]]()
            expansion[name] = getattr(holder, name)
    chunk: StrategyJson = dict(asdict(strategy.chunk))
    if not chunk["chunker"]:
        del chunk["chunker"]
    sc = strategy.search_config
    search: StrategyJson = {"search": sc.mode, "dense_weight": sc.dense_weight, "bm25_weight": sc.bm25_weight,
                            "rrf_k": sc.rrf_k, **({"coarse": coarse_text(sc.coarse)} if sc.coarse else {})}
    composed = strategy.to_dict()
    general = {k: v for k, v in composed.items() if k not in ("name", "chunk", "search", "expansion")}
    flat: StrategyJson = {"name": strategy.name, "chunk": chunk, **search, "expansion": kind, **expansion,
                          **general}
    return {k: flat.pop(k) for k in FLAT_ORDER if k in flat} | flat


# ----- the parts of one dict ------------------------------------------------------------------------------
def _search_config(data: dict[str, object], base: SearchConfig) -> SearchConfig:
    """``base`` with the search fields of one dict, composed (``"search": {...}``) or flat (``"search":
    "hybrid"``, ``rrf_k`` …), checked and taken out of ``data``; ``coarse`` parsed into its levels."""
    given: dict[str, object] = {}
    value = data.pop("search", None)
    if value is True or value is False:  # {"hybrid": true} of the earliest versions
        value = "hybrid" if value else "dense"
    if isinstance(value, dict):
        unknown = sorted(repr(str(k))[1:-1] for k in value if k not in SEARCH_TYPES)
        if unknown:
            raise ValueError(f"unknown field(s) of 'search': {', '.join(unknown)[:200]}")
        given.update({str(k): v for k, v in value.items()})
    elif value is not None:
        given["mode"] = value
    for flat, name in FLAT_SEARCH.items():
        if flat != "search" and flat in data:
            given[name] = data.pop(flat)
    if not given:
        return base
    v = {name: checked("search" if name == "mode" else name, SEARCH_TYPES[name], x) for name, x in given.items()}
    return SearchConfig(mode=str(v.get("mode", base.mode)),
                        dense_weight=float(v.get("dense_weight", base.dense_weight)),
                        bm25_weight=float(v.get("bm25_weight", base.bm25_weight)),
                        rrf_k=int(v.get("rrf_k", base.rrf_k)),
                        coarse=parse_coarse(str(v["coarse"])) if "coarse" in v else base.coarse)


def _split_expansion(data: dict[str, object]) -> tuple[str | None, dict[str, ParamValue]]:
    """``(kind or None, fields)`` of the expansion, composed (``"expansion": {"kind": ...}``) or flat (a kind
    name and its fields at the top level), checked and taken out of ``data``."""
    types = field_types()
    value = data.pop("expansion", None)
    kind: str | None = None
    found: dict[str, object] = {}
    if isinstance(value, dict):
        kind = str(checked("expansion", "str", value.get("kind", "none")))
        cls = expansion_type(kind)
        own = {f.name for f in fields(cls)}
        unknown = sorted(repr(str(k))[1:-1] for k in value if k != "kind" and k not in own)
        if unknown:
            raise ValueError(f"unknown field(s) of expansion '{kind}': {', '.join(unknown)[:200]}")
        found.update({str(k): v for k, v in value.items() if k != "kind"})
    elif value is not None:
        kind = str(checked("expansion", "str", value))
        expansion_type(kind)
    for name in list(data):
        if name in FIELD_OWNER:
            found[name] = data.pop(name)
    return kind, {k: checked(k, types[k], v) for k, v in found.items()}


def _split_steps(data: dict[str, object]) -> dict[str, ParamValue]:
    """The later steps' fields (at the top level in both forms), checked and taken out of ``data``."""
    types = step_field_types()
    return {name: checked(name, types[name], data.pop(name)) for name in list(data) if name in STEP_FIELDS}


def _check_other_kinds(kind: str, values: Mapping[str, ParamValue]) -> None:
    """Values of other kinds' fields beside an explicit ``kind``: each is checked by building its own kind
    (a negative window is refused even for a token window); one that is not its kind's default is refused,
    since it would not apply."""
    own = {f.name for f in fields(expansion_type(kind))}
    others: dict[str, dict[str, ParamValue]] = {}
    for name, value in values.items():
        if name not in own:
            others.setdefault(FIELD_OWNER[name], {})[name] = value
    for other, given in others.items():
        cls = EXPANSION_TYPES[other]
        built, default = cls(**given), cls()
        for name in given:
            if getattr(built, name) != getattr(default, name):
                raise ValueError(f"{name} belongs to the {other} expansion; this strategy expands by {kind}, "
                                 "so it would not apply")


def _split_chunk(data: dict[str, object]) -> dict[str, object]:
    """Chunk fields, nested (``"chunk": {...}``) or flat, checked and taken out of ``data``."""
    nested = data.pop("chunk", None)
    if nested is not None and not isinstance(nested, dict):
        raise ValueError("strategy field 'chunk' must be an object of chunk fields")
    chunk = {str(k): v for k, v in (nested or {}).items()}
    for key in list(data):
        if key in CHUNK_TYPES:
            chunk[key] = data.pop(key)
    unknown = sorted(repr(k)[1:-1] for k in chunk if k not in CHUNK_TYPES)
    if unknown:
        raise ValueError(f"unknown strategy field(s): {', '.join('chunk.' + k for k in unknown)[:200]}")
    out: dict[str, object] = {}
    for key, value in chunk.items():
        if key == "chunker":
            if not isinstance(value, str | dict):
                raise ValueError("strategy field 'chunker' must be a chunker name or a JSON object")
            out[key] = value
        else:
            out[key] = checked(key, CHUNK_TYPES[key], value)
    return out


def _chunk_config(base: ChunkConfig, chunk: dict[str, object]) -> ChunkConfig:
    """``base`` with the chunk fields of one dict. A dict that names its chunker keeps the config's own size
    fields for the built-in cuts (a registry chunker has its size in its parameters); one that does not
    sends a size where ``base``'s chunking keeps it."""
    chunker = chunk.pop("chunker", None)
    size, overlap = chunk.pop("size", None), chunk.pop("overlap", None)
    try:
        config = replace(base, **chunk)  # type: ignore[arg-type]  # checked by name in _split_chunk
        if chunker is None:
            return with_chunk_size(config, size if isinstance(size, int) else None,
                                   overlap if isinstance(overlap, int) else None)
        config = replace(config, chunker="", size=size if isinstance(size, int) else config.size,
                         overlap=overlap if isinstance(overlap, int) else config.overlap)
        if chunker == "":
            return config
        return apply_chunker(config, chunker)  # type: ignore[arg-type]  # a name or an object, checked
    except ChunkerError as exc:
        raise ValueError(str(exc)) from None
