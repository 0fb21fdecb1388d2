"""Strategies as data: one serialisable config of the pipeline chunk set → search → expansion → assembly.

A strategy can be named, saved, compared, recorded with an experiment and run from the CLI, the GUI and
the evaluation lab alike. ``PRESETS`` holds the named ones.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from workbench.core.ingest.chunking import ChunkConfig

SEARCH_MODES = ("dense", "bm25", "hybrid")
EXPANSIONS = ("none", "neighbours", "tokens", "parent", "selective")
CHUNK_KEYS = {"unit", "size", "overlap", "structure_aware", "heading_prefix", "contextual"}
ALIASES = {"chunk_size": "size", "chunk_unit": "unit", "k": "top_k", "hybrid": "search"}
MAX_JSON_CHARS = 10_000  # a strategy is a few dozen fields; anything longer is not one
MAX_INT = 1_000_000  # no count, size or budget of a strategy is larger
FLOAT_RANGES = {"dense_weight": (0.0, 100.0), "bm25_weight": (0.0, 100.0), "margin": (0.0, 1.0)}


@dataclass(frozen=True)
class Strategy:
    """Every knob of one retrieval strategy. Defaults give plain dense top-5 over 200-token chunks."""

    name: str = "custom"
    chunk: ChunkConfig = field(default_factory=ChunkConfig)
    search: str = "dense"
    top_k: int = 5
    candidate_k: int = 0
    dense_weight: float = 1.0
    bm25_weight: float = 1.0
    rrf_k: int = 60
    expansion: str = "none"
    window: int = 0
    window_tokens: int = 0
    window_edge: str = "shift"
    parent_size: int = 0
    parent_top_k: int = 3
    parent_merge: bool = False
    margin: float = 0.05
    merge_gap: int = 2
    max_steps: int = 2
    rerank: str = "none"
    rerank_candidates: int = 20
    rerank_parents: bool = False  # parent expansion: rerank the expanded parents, not the child hits
    summary: bool = False
    summary_sections: int = 3
    budget: int = 0
    per_doc_cap: int = 0
    whole_doc_tokens: int = 0  # hits in documents of at most this many tokens return the whole document

    def __post_init__(self) -> None:
        if self.search not in SEARCH_MODES:
            raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}")
        if self.expansion not in EXPANSIONS:
            raise ValueError(f"expansion must be one of {', '.join(EXPANSIONS)}")
        if self.window_edge not in ("shift", "clip"):
            raise ValueError("window_edge must be 'shift' (keep the window's size at a document edge) or 'clip'")
        if self.rerank not in ("none", "llm"):
            raise ValueError("rerank must be 'none' or 'llm'")
        for name in ("top_k", "parent_top_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("candidate_k", "window", "window_tokens", "parent_size", "budget", "per_doc_cap", "whole_doc_tokens",
                     "merge_gap", "max_steps"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")

    @property
    def candidates(self) -> int:
        """How many chunks the first-stage search returns."""
        if self.candidate_k:
            return max(self.candidate_k, self.top_k)
        if self.expansion == "parent":
            return max(self.top_k * 4, 20)
        if self.rerank == "llm":
            return max(self.rerank_candidates, self.top_k)
        return self.top_k

    @property
    def reranks_parents(self) -> bool:
        """True when the LLM reranks expanded parents (child → parent → rerank) rather than the hits."""
        return self.rerank == "llm" and self.rerank_parents and self.expansion == "parent"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (nested ``chunk``)."""
        return asdict(self)

    def to_json(self) -> str:
        """Canonical JSON."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def with_changes(self, **changes: Any) -> Strategy:
        """A copy with some fields changed; chunk fields (``size``, ``overlap`` …) may be given flat."""
        return from_dict({**self.to_dict(), **changes})

    def describe(self) -> str:
        """One line for people."""
        parts = [f"{self.search} top-{self.top_k}", self.chunk.label()]
        if self.expansion == "neighbours":
            parts.append(f"window ±{self.window}")
        elif self.expansion == "tokens":
            parts.append(f"{self.window_tokens}-token window" + (", clipped at edges" if self.window_edge == "clip" else ""))
        elif self.expansion == "parent":
            size = f"{self.parent_size} {self.chunk.unit}" if self.parent_size else "sections"
            parts.append(f"parents of {size}, top {self.parent_top_k}" + (", merged" if self.parent_merge else ""))
        elif self.expansion == "selective":
            parts.append(f"selective (margin {self.margin})")
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


def _checked(name: str, kind: str, value: Any) -> Any:
    """``value`` of strategy field ``name`` of type ``kind`` ("int", "float", "bool", "str"), checked; a
    ``ValueError`` naming the field otherwise (``true`` is not a number, ``"yes"`` is not a boolean)."""
    def wrong(expected: str) -> ValueError:
        shown = json.dumps(value)[:40] if _jsonable(value) else type(value).__name__
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


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


_STRATEGY_TYPES = {f.name: f.type for f in fields(Strategy) if f.name != "chunk"}
_CHUNK_TYPES = {f.name: f.type for f in fields(ChunkConfig)}


def from_dict(data: dict[str, Any]) -> Strategy:
    """Build a strategy from a dict; accepts nested ``chunk`` or flat chunk keys and a few aliases.

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
    nested = data.pop("chunk", None)
    if nested is not None and not isinstance(nested, dict):
        raise ValueError("strategy field 'chunk' must be an object of chunk fields")
    chunk = dict(nested or {})
    for key in list(data):
        if key in CHUNK_KEYS:
            chunk[key] = data.pop(key)
    unknown = set(data) - set(_STRATEGY_TYPES)
    unknown_chunk = set(chunk) - set(_CHUNK_TYPES)
    if unknown or unknown_chunk:
        names = sorted(str(k) for k in unknown) + [f"chunk.{k}" for k in sorted(str(k) for k in unknown_chunk)]
        raise ValueError(f"unknown strategy field(s): {', '.join(names)[:200]}")
    data = {k: _checked(k, _STRATEGY_TYPES[k], v) for k, v in data.items()}
    chunk = {k: _checked(k, _CHUNK_TYPES[k], v) for k, v in chunk.items()}
    return Strategy(**data, chunk=ChunkConfig(**chunk))


def _preset(name: str, **kw: Any) -> Strategy:
    return from_dict({"name": name, **kw})


PRESETS: dict[str, Strategy] = {
    s.name: s
    for s in [
        _preset("plain", top_k=5, size=200),
        _preset("neighbours", top_k=5, size=100, expansion="neighbours", window=1),
        _preset("token-window", top_k=5, size=64, expansion="tokens", window_tokens=384),
        _preset("sentence-window", top_k=5, unit="sentences", size=1, expansion="neighbours", window=2),
        _preset("parent-child", top_k=3, size=100, expansion="parent", parent_size=400, parent_top_k=3),
        _preset("heading-path", top_k=5, size=200, structure_aware=True, heading_prefix=True),
        _preset("hybrid", top_k=5, size=200, search="hybrid"),
        _preset("llm-rerank", top_k=5, size=200, rerank="llm", rerank_candidates=15),
        _preset("summary-to-detail", top_k=5, size=100, summary=True, summary_sections=3),
        _preset("selective", top_k=5, size=100, expansion="selective", margin=0.05, merge_gap=2, max_steps=2),
        _preset("contextual", top_k=5, size=200, contextual=True),
        _preset("budgeted-neighbours", top_k=8, size=100, expansion="neighbours", window=1, budget=1000),
    ]
}


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


__all__ = ["PRESETS", "Strategy", "from_dict", "override", "replace", "resolve"]
