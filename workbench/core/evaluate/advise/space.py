"""What the advisor searches: chunker × chunk size × first stage × expansion × top-k, every configuration at the
same context budget.

A configuration is five values (``Params``): ``chunker`` (a registry name; ``fixed`` is the built-in token
window), ``size`` (the chunker's size parameter: its window, or the largest chunk for the splitters), ``search``
(dense or hybrid), ``expansion`` (one of ``EXPANSIONS``) and ``top_k``. ``Space.strategy`` turns them into a
``Strategy``; the expansions are the presets' (``neighbours`` ±1 or ±2, a 384-token window, the balanced relevant
segments, and multi-granularity: ±2 with the best hit of two coarser cuts of the same chunker). Everything is
plain data, recorded with the advice run.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.registry import get_kind
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy, from_dict

CHUNKERS = ("fixed", "recursive", "semchunk", "semantic", "cluster_semantic", "late", "langchain_recursive",
            "chonkie_recursive")
SIZES = (64, 100, 128, 200, 256)
SEARCHES = ("dense", "hybrid")
EXPANSIONS = ("none", "neighbours-1", "neighbours-2", "tokens-384", "segments", "multi-granularity")
TOP_KS = (5, 10, 15, 20)
COARSE_SIZES = (100, 200, 400, 800)  # the coarse cuts multi-granularity may add
PARAMS = ("chunker", "size", "search", "expansion", "top_k")

Params = dict[str, Any]  # {"chunker": str, "size": int, "search": str, "expansion": str, "top_k": int}

_EXPANSION_FIELDS: dict[str, dict[str, object]] = {
    "none": {},
    "neighbours-1": {"expansion": "neighbours", "window": 1},
    "neighbours-2": {"expansion": "neighbours", "window": 2},
    "tokens-384": {"expansion": "tokens", "window_tokens": 384},
    "segments": {"expansion": "segments", "penalty": 0.20, "decay": 10.0, "max_segment_chunks": 4},
    "multi-granularity": {"expansion": "neighbours", "window": 2},
}


def coarse_levels(size: int) -> str:
    """The coarse levels multi-granularity adds to chunks of ``size``: the best hit of the first coarse size at
    least 1.5× and of the first at least 3× as large (``"100:1+200:1"`` for 64, as the preset)."""
    first = next((c for c in COARSE_SIZES if c >= 1.5 * size), None)
    second = next((c for c in COARSE_SIZES if c >= 3 * size and c != first), None)
    return "+".join(f"{c}:1" for c in (first, second) if c is not None)


def chunk_config(chunker: str, size: int) -> ChunkConfig:
    """The chunking of ``chunker`` at ``size`` (``fixed``: the built-in token window; ``late``: late pooling
    over fixed windows of ``size``)."""
    if chunker == "fixed":
        return ChunkConfig(size=size)
    if chunker == "late":
        return apply_chunker(ChunkConfig(), {"name": "late", "base": "fixed"}, size=size)
    return apply_chunker(ChunkConfig(), chunker, size=size)


@dataclass(frozen=True)
class Space:
    """The choices of each value and the context budget every configuration runs at."""

    chunkers: tuple[str, ...] = CHUNKERS
    sizes: tuple[int, ...] = SIZES
    searches: tuple[str, ...] = SEARCHES
    expansions: tuple[str, ...] = EXPANSIONS
    top_ks: tuple[int, ...] = TOP_KS
    budget: int = 1000

    def __post_init__(self) -> None:
        for name, values, allowed in (("chunkers", self.chunkers, CHUNKERS), ("searches", self.searches, SEARCHES),
                                      ("expansions", self.expansions, EXPANSIONS)):
            unknown = [v for v in values if v not in allowed]
            if unknown or not values:
                raise ValueError(f"advice {name}: {', '.join(unknown) or 'none given'}; choose from "
                                 f"{', '.join(allowed)}")
        if not self.sizes or any(s < 8 or s > 4096 for s in self.sizes):
            raise ValueError("advice chunk sizes are 8-4,096 tokens")
        if not self.top_ks or any(k < 1 or k > 100 for k in self.top_ks):
            raise ValueError("advice top-k values are 1-100")
        if self.budget < 50:
            raise ValueError("the context budget must be at least 50 tokens")

    @property
    def choices(self) -> dict[str, tuple[Any, ...]]:
        """Each value's choices, by name (``PARAMS`` order)."""
        return {"chunker": self.chunkers, "size": self.sizes, "search": self.searches,
                "expansion": self.expansions, "top_k": self.top_ks}

    @property
    def size(self) -> int:
        """How many configurations the space holds."""
        return math.prod(len(v) for v in self.choices.values())

    def chunkings(self) -> list[tuple[str, int]]:
        """Every (chunker, size): each is one chunk set to build."""
        return list(itertools.product(self.chunkers, self.sizes))

    def configurations(self) -> Iterator[Params]:
        """Every configuration (for small spaces and tests)."""
        for values in itertools.product(*self.choices.values()):
            yield dict(zip(PARAMS, values, strict=True))

    def strategy(self, params: Mapping[str, Any]) -> Strategy:
        """The strategy of one configuration at the budget; ``ValueError`` for one that cannot be built (e.g.
        a coarse level the chunker cannot cut)."""
        chunker, size, expansion = str(params["chunker"]), int(params["size"]), str(params["expansion"])
        spec: dict[str, object] = {"name": label(params), "search": str(params["search"]),
                                   "top_k": int(params["top_k"]), "budget": self.budget,
                                   **_EXPANSION_FIELDS[expansion]}
        if expansion == "multi-granularity":
            levels = coarse_levels(size)
            if not levels:
                raise ValueError(f"no coarse size is large enough for {size}-token chunks")
            spec["coarse"] = levels
        try:
            chunk = chunk_config(chunker, size)
        except ChunkerError as exc:
            raise ValueError(str(exc)) from None
        return from_dict(spec, Strategy(chunk=chunk))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"chunkers": list(self.chunkers), "sizes": list(self.sizes), "searches": list(self.searches),
                "expansions": list(self.expansions), "top_ks": list(self.top_ks), "budget": self.budget}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Space:
        """The space a record kept."""
        return cls(tuple(data["chunkers"]), tuple(int(s) for s in data["sizes"]), tuple(data["searches"]),
                   tuple(data["expansions"]), tuple(int(k) for k in data["top_ks"]), int(data["budget"]))

    def describe(self) -> str:
        """One line: the choices and the number of configurations."""
        return (f"{len(self.chunkers)} chunkers ({', '.join(self.chunkers)}) × {len(self.sizes)} sizes "
                f"({', '.join(map(str, self.sizes))} tokens) × {' / '.join(self.searches)} × "
                f"{len(self.expansions)} expansions ({', '.join(self.expansions)}) × top-k "
                f"{', '.join(map(str, self.top_ks))} = {self.size:,} configurations at {self.budget:,} tokens")


def label(params: Mapping[str, Any]) -> str:
    """A configuration for people: ``semchunk 128 · hybrid · neighbours-2 · top-10``."""
    return f"{params['chunker']} {params['size']} · {params['search']} · {params['expansion']} · top-{params['top_k']}"


def usable_chunkers(names: Sequence[str], late_possible: bool) -> tuple[list[str], list[str]]:
    """``(usable, notes)``: the chunkers whose library is installed (late chunking only with a
    sentence-transformers model), and one line for each left out."""
    usable, notes = [], []
    for name in names:
        if name == "late" and not late_possible:
            notes.append("late: needs a sentence-transformers embedding model; left out")
            continue
        if name == "fixed":
            usable.append(name)
            continue
        hint = get_kind(name).available()
        if hint is None:
            usable.append(name)
        else:
            notes.append(f"{name}: {hint}; left out")
    return usable, notes


def preset_params(budget: int, space: Space) -> list[Params]:
    """The presets that are points of ``space`` (hybrid, budgeted-neighbours, multi-granularity,
    segments-balanced): tried first, so the advice starts from them."""
    wanted = [("fixed", 200, "hybrid", "none", 5), ("fixed", 64, "hybrid", "neighbours-2", 10),
              ("fixed", 64, "hybrid", "multi-granularity", 10), ("fixed", 100, "hybrid", "segments", 10)]
    out = []
    for values in wanted:
        params = dict(zip(PARAMS, values, strict=True))
        if all(params[k] in space.choices[k] for k in PARAMS):
            out.append(params)
    return out


def baseline(name: str, budget: int) -> Strategy:
    """A preset at ``budget`` context tokens: its top-k raised to fill the budget (``plain`` and ``hybrid``:
    one more than the budget's worth of their 200-token chunks), named ``NAME@BUDGET``."""
    preset = PRESETS[name]
    top_k = preset.top_k
    if preset.expander.kind == "none" and not preset.search_config.coarse:
        top_k = max(top_k, math.ceil(budget / max(1, preset.chunk_size)) + 1)
    return replace(preset, name=f"{name}@{budget}", budget=budget, top_k=top_k)
