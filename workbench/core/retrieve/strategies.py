"""Strategies as data: one serialisable config of the pipeline chunk set → search → expansion → assembly.

A strategy can be named, saved, compared, recorded with an experiment and run from the CLI, the GUI and
the evaluation lab alike. ``PRESETS`` holds the named ones.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from workbench.core.index.embedder_pool import model_label, normalise_model_spec
from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunking import ChunkConfig
from workbench.core.retrieve.coarse_hits import check_coarse, coarse_configs
from workbench.core.retrieve.composed_json import flatten_composed
from workbench.core.retrieve.expansions import EXPANSION_TYPES, Expansion, NoExpansion
from workbench.core.retrieve.expansions.base import FIELD_OWNER, expansion_from_flat, field_types, flat_value
from workbench.core.retrieve.field_checks import FLOAT_RANGES, MAX_INT, checked
from workbench.core.retrieve.preset_specs import PRESET_SPECS
from workbench.core.retrieve.search_config import FLAT_SEARCH_FIELDS, SEARCH_MODES, SearchConfig

EXPANSIONS = tuple(EXPANSION_TYPES)  # the built-in kinds; EXPANSION_TYPES has every registered one
CHUNK_KEYS = {"unit", "size", "overlap", "structure_aware", "heading_prefix", "contextual", "chunker"}
ALIASES = {"chunk_size": "size", "chunk_unit": "unit", "k": "top_k", "hybrid": "search"}
MAX_JSON_CHARS = 10_000  # a strategy is a few dozen fields; anything longer is not one
FLAT_ORDER = ("name", "chunk", "model", "search", "top_k", "candidate_k", "dense_weight", "bm25_weight", "rrf_k", "coarse",
              "expansion",
              "window", "window_tokens", "window_edge", "parent_size", "parent_top_k", "parent_merge", "margin",
              "merge_gap", "max_steps", "rerank", "rerank_candidates", "rerank_parents", "summary", "summary_sections",
              "budget", "per_doc_cap", "whole_doc_tokens")  # the flat form's key order (fields of new kinds follow)


@dataclass(frozen=True, init=False)
class Strategy:
    """One retrieval strategy, composed of values: the chunking (``chunk``), the search part
    (``search_config``, the hit cache's key), one expansion value (``expander``) and the settings of the
    later steps (top-k, rerank, summaries, budget, caps). Defaults give plain dense top-5 over 200-token
    chunks. ``model`` is the embedding model of its chunk set (``""``: the workspace's default; else
    ``ollama:NAME`` or a local sentence-transformers folder), written to JSON only when set.

    The flat fields of earlier versions still work everywhere: ``Strategy(expansion="neighbours",
    window=1, search="hybrid")`` builds the composed values, and ``strategy.window``, ``.expansion``,
    ``.search`` … read them back (an expansion field of another kind reads as its default).
    """

    name: str = "custom"
    chunk: ChunkConfig = field(default_factory=ChunkConfig)
    search_config: SearchConfig = field(default_factory=SearchConfig)
    expander: Expansion = field(default_factory=NoExpansion)
    top_k: int = 5
    candidate_k: int = 0
    rerank: str = "none"
    rerank_candidates: int = 20
    rerank_parents: bool = False  # parent expansion: rerank the expanded parents, not the child hits
    summary: bool = False
    summary_sections: int = 3
    budget: int = 0
    per_doc_cap: int = 0
    whole_doc_tokens: int = 0  # hits in documents of at most this many tokens return the whole document
    model: str = ""  # the embedding model (see the class docstring)

    def __init__(
        self, name: str = "custom", chunk: ChunkConfig | None = None, search_config: SearchConfig | None = None,
        expander: Expansion | None = None, top_k: int = 5, candidate_k: int = 0, rerank: str = "none",
        rerank_candidates: int = 20, rerank_parents: bool = False, summary: bool = False, summary_sections: int = 3,
        budget: int = 0, per_doc_cap: int = 0, whole_doc_tokens: int = 0, model: str = "", **flat: Any,
    ) -> None:
        search_flat = {k: flat.pop(k) for k in list(flat) if k in FLAT_SEARCH_FIELDS}
        kind = flat.pop("expansion", None)
        expansion_flat = {k: flat.pop(k) for k in list(flat) if k in FIELD_OWNER}
        if flat:
            raise TypeError(f"Strategy() got unexpected keyword argument(s): {', '.join(sorted(flat))}")
        search_config = search_config or SearchConfig()
        if search_flat:
            search_config = SearchConfig.from_flat({**search_config.to_flat(), **search_flat})
        expander = expander or NoExpansion()
        if kind is not None or expansion_flat:
            kind = expander.kind if kind is None else kind
            kept = {k: v for k, v in expander.to_dict().items() if k != "kind"} if kind == expander.kind else {}
            expander = expansion_from_flat(kind, {**kept, **expansion_flat})
        values = dict(name=name, chunk=chunk or ChunkConfig(), search_config=search_config, expander=expander,
                      top_k=top_k, candidate_k=candidate_k, rerank=rerank, rerank_candidates=rerank_candidates,
                      rerank_parents=rerank_parents, summary=summary, summary_sections=summary_sections,
                      budget=budget, per_doc_cap=per_doc_cap, whole_doc_tokens=whole_doc_tokens,
                      model=normalise_model_spec(model) if isinstance(model, str) else model)
        for key, value in values.items():
            object.__setattr__(self, key, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.rerank not in ("none", "llm"):
            raise ValueError("rerank must be 'none' or 'llm'")
        if self.top_k < 1:
            raise ValueError("top_k must be at least 1")
        for name in ("candidate_k", "budget", "per_doc_cap", "whole_doc_tokens"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if not isinstance(self.model, str):
            raise ValueError("model must be a string: ollama:NAME, a local model folder, or \"\" (the default)")
        check_coarse(self.search_config.coarse_levels, self.expansion, self.chunk.size)

    def chunk_configs(self) -> list[ChunkConfig]:
        """The chunk sets the strategy searches: its own, then one per coarse level (the same chunking at
        that size)."""
        return [self.chunk, *coarse_configs(self.chunk, self.search_config.coarse_levels)]

    @classmethod
    def from_flat(cls, **flat: Any) -> Strategy:
        """A strategy from flat keywords (as ``Strategy(...)`` accepts them too)."""
        return cls(**flat)

    # ----- flat views -------------------------------------------------------------------
    @property
    def search(self) -> str:
        """The search mode (``dense``, ``bm25`` or ``hybrid``)."""
        return self.search_config.mode

    @property
    def dense_weight(self) -> float:
        """Hybrid search: weight of the dense ranking."""
        return self.search_config.dense_weight

    @property
    def bm25_weight(self) -> float:
        """Hybrid search: weight of the BM25 ranking."""
        return self.search_config.bm25_weight

    @property
    def rrf_k(self) -> int:
        """Hybrid search: the reciprocal rank fusion constant."""
        return self.search_config.rrf_k

    @property
    def expansion(self) -> str:
        """The expansion kind (``none``, ``neighbours``, ``tokens``, ``parent``, ``selective`` …)."""
        return self.expander.kind

    def __getattr__(self, name: str) -> Any:
        """Flat expansion fields (``window``, ``window_tokens``, ``parent_size`` …): the expansion's value,
        or that field's default when the strategy uses another expansion."""
        if name in FIELD_OWNER:
            return flat_value(self.expander, name)
        raise AttributeError(f"'Strategy' object has no attribute {name!r}")

    @property
    def candidates(self) -> int:
        """How many chunks the first-stage search returns."""
        if self.candidate_k:
            return max(self.candidate_k, self.top_k)
        wanted = self.expander.candidates(self.top_k)
        if wanted > self.top_k:
            return wanted
        if self.rerank == "llm":
            return max(self.rerank_candidates, self.top_k)
        return self.top_k

    @property
    def reranks_parents(self) -> bool:
        """True when the LLM reranks expanded parents (child → parent → rerank) rather than the hits."""
        return self.rerank == "llm" and self.rerank_parents and self.expander.groups_hits

    # ----- JSON ---------------------------------------------------------------------------
    def _general(self) -> dict[str, Any]:
        skip = {"name", "chunk", "search_config", "expander", *(() if self.model else ("model",))}
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict in the flat form every version reads (nested ``chunk``; every expansion
        field of the kinds in ``FLAT_ORDER``, those of other kinds at their defaults; fields of later kinds
        only when the strategy uses that kind)."""
        own = {k for k, kind in FIELD_OWNER.items() if k in FLAT_ORDER or kind == self.expansion}
        flat = {"name": self.name, "chunk": _chunk_dict(self.chunk), **self.search_config.to_flat(),
                "expansion": self.expansion, **{k: flat_value(self.expander, k) for k in FIELD_OWNER if k in own},
                **self._general()}
        return {k: flat.pop(k) for k in FLAT_ORDER if k in flat} | flat

    def to_composed_dict(self) -> dict[str, Any]:
        """JSON-ready dict with nested values: ``chunk``, ``search`` (mode and fusion settings) and
        ``expansion`` (``kind`` and its own fields only). ``from_dict`` reads it back."""
        return {"name": self.name, "chunk": _chunk_dict(self.chunk), "search": self.search_config.to_dict(),
                "expansion": self.expander.to_dict(), **self._general()}

    def to_json(self) -> str:
        """Canonical JSON (flat form)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def with_changes(self, **changes: Any) -> Strategy:
        """A copy with some fields changed; chunk fields (``size``, ``overlap`` …) may be given flat."""
        return from_dict({**self.to_dict(), **changes})

    def describe(self) -> str:
        """One line for people."""
        parts = [self.search_config.describe(self.top_k), self.chunk.label()]
        if self.model:
            parts.append(f"embedded by {model_label(self.model)}")
        expansion = self.expander.describe(self.chunk.unit)
        if expansion:
            parts.append(expansion)
        if self.whole_doc_tokens:
            parts.append(f"whole documents up to {self.whole_doc_tokens} tokens")
        if self.rerank == "llm" and self.reranks_parents:
            parts.append(f"LLM rerank of up to {self.rerank_candidates} parents")
        elif self.rerank == "llm":
            parts.append(f"LLM rerank of {self.candidates}")
        if self.summary:
            parts.append(f"summary → top {self.summary_sections} sections")
        if self.budget:
            parts.append(f"budget {self.budget} tokens")
        return ", ".join(parts)


def _chunk_dict(chunk: ChunkConfig) -> dict[str, Any]:
    """The chunk fields as strategy JSON has always written them; ``chunker`` only when set."""
    data = asdict(chunk)
    if not data["chunker"]:
        del data["chunker"]
    return data


_GENERAL_TYPES = {f.name: str(f.type) for f in fields(Strategy)
                  if f.name not in ("chunk", "search_config", "expander")}


def _strategy_types() -> dict[str, str]:
    """Flat field name → type name (expansion fields of every kind registered now)."""
    return {**_GENERAL_TYPES, **FLAT_SEARCH_FIELDS, "expansion": "str", **field_types()}


_CHUNK_TYPES = {f.name: str(f.type) for f in fields(ChunkConfig)}


def from_dict(data: dict[str, Any]) -> Strategy:
    """Build a strategy from a dict: the flat form (nested or flat chunk keys, a few aliases) or the
    composed one (``search`` and ``expansion`` as objects, see ``Strategy.to_composed_dict``).

    Every field is checked (type, range, unknown keys, nesting): bad input raises a one-line ``ValueError``
    naming the field, never a ``TypeError`` from deep inside.
    """
    if not isinstance(data, dict):
        raise ValueError(f"a strategy must be a JSON object, not {type(data).__name__}")
    data = {ALIASES.get(k, k): v for k, v in data.items()}
    if data.get("search") is True:
        data["search"] = "hybrid"
    elif data.get("search") is False:
        data["search"] = "dense"
    data = flatten_composed(data)
    nested = data.pop("chunk", None)
    if nested is not None and not isinstance(nested, dict):
        raise ValueError("strategy field 'chunk' must be an object of chunk fields")
    chunk = dict(nested or {})
    for key in list(data):
        if key in CHUNK_KEYS:
            chunk[key] = data.pop(key)
    types = _strategy_types()
    unknown = set(data) - set(types)
    unknown_chunk = set(chunk) - set(_CHUNK_TYPES)
    if unknown or unknown_chunk:
        names = sorted(str(k) for k in unknown) + [f"chunk.{k}" for k in sorted(str(k) for k in unknown_chunk)]
        raise ValueError(f"unknown strategy field(s): {', '.join(names)[:200]}")
    data = {k: checked(k, types[k], v) for k, v in data.items()}
    chunker = chunk.pop("chunker", None)
    chunk = {k: checked(k, _CHUNK_TYPES[k], v) for k, v in chunk.items()}
    config = ChunkConfig(**chunk)
    if chunker:
        if not isinstance(chunker, str | dict):
            raise ValueError("strategy field 'chunker' must be a chunker name or a JSON object")
        try:
            config = apply_chunker(config, chunker)
        except ChunkerError as exc:
            raise ValueError(str(exc)) from None
    return Strategy(**data, chunk=config)


PRESETS: dict[str, Strategy] = {spec["name"]: from_dict(dict(spec)) for spec in PRESET_SPECS}


def resolve(spec: str | dict[str, Any] | Strategy | None) -> Strategy:
    """A strategy from a preset name, a JSON object (optionally with ``"preset"``), or a Strategy."""
    if spec is None:
        return PRESETS["plain"]
    if isinstance(spec, Strategy):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if text in PRESETS:
            return PRESETS[text]
        if not text.startswith("{"):
            raise ValueError(f"unknown strategy {spec[:80]!r}; named strategies: {', '.join(PRESETS)}")
        if len(text) > MAX_JSON_CHARS:
            raise ValueError(f"strategy JSON is {len(text):,} characters long (at most {MAX_JSON_CHARS:,})")
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"strategy JSON is invalid: {exc.msg}") from None
        except RecursionError:
            raise ValueError("strategy JSON is nested too deeply") from None
    if not isinstance(spec, dict):
        raise ValueError(f"a strategy must be a JSON object, not {type(spec).__name__}")
    data = dict(spec)
    base = data.pop("preset", None)
    if base is not None:
        if not isinstance(base, str) or base not in PRESETS:
            raise ValueError(f"unknown preset {str(base)[:40]!r}; named strategies: {', '.join(PRESETS)}")
        return PRESETS[base].with_changes(**{"name": data.pop("name", base), **data})
    return from_dict(data)


def override(strategy: Strategy, **changes: Any) -> Strategy:
    """Apply CLI/GUI overrides, ignoring ``None`` values; a window > 0 on a plain strategy means neighbours."""
    changes = {k: v for k, v in changes.items() if v is not None}
    if changes.get("window") and strategy.expansion == "none" and "expansion" not in changes:
        changes["expansion"] = "neighbours"
    return strategy.with_changes(**changes) if changes else strategy


__all__ = ["EXPANSIONS", "FLOAT_RANGES", "MAX_INT", "PRESETS", "SEARCH_MODES", "SearchConfig", "Strategy", "from_dict",
           "override", "replace", "resolve"]
