"""The search part of a strategy: everything that decides which chunks the first-stage search returns.

It is frozen and hashable, and it *is* the hit cache's key (with the chunk set, the question and the
number of candidates), so a new search setting is in the key as soon as it is a field here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

SEARCH_MODES = ("dense", "bm25", "hybrid")
MAX_COARSE_LEVELS = 4
MAX_COARSE_HITS = 50


def parse_coarse(text: str) -> tuple[tuple[int, int], ...]:
    """``"100:2+200:2"`` → ``((100, 2), (200, 2))``: chunk sizes and hits per size; ``""`` → ``()``."""
    if not text.strip():
        return ()
    levels = []
    for part in text.replace(" ", "").split("+"):
        size, sep, hits = part.partition(":")
        if not (sep and size.isdigit() and hits.isdigit()):
            raise ValueError(f"search field 'coarse' must look like 100:2+200:2 (chunk size:hits, joined by +), "
                             f"not {text[:40]!r}")
        if not 1 <= int(size) <= 100_000 or not 1 <= int(hits) <= MAX_COARSE_HITS:
            raise ValueError(f"search field 'coarse': a chunk size is 1–100,000 and hits 1–{MAX_COARSE_HITS}, "
                             f"not {part!r}")
        levels.append((int(size), int(hits)))
    if len(levels) > MAX_COARSE_LEVELS:
        raise ValueError(f"search field 'coarse': at most {MAX_COARSE_LEVELS} coarse chunk sizes")
    if len({size for size, _ in levels}) != len(levels):
        raise ValueError("search field 'coarse' names a chunk size twice")
    return tuple(levels)


@dataclass(frozen=True)
class SearchConfig:
    """Search mode and, for hybrid search, the weights and constant of reciprocal rank fusion.

    ``coarse`` adds multi-granularity search: ``"100:2+200:2"`` also searches the same documents cut into
    100- and 200-token chunks (same chunker and model), and their best 2 hits each join the hits as windows
    over this chunk set's chunks, fused by reciprocal rank (``core/retrieve/coarse_hits.py``).
    """

    mode: str = "dense"
    dense_weight: float = 1.0
    bm25_weight: float = 1.0
    rrf_k: int = 60
    coarse: str = ""

    def __post_init__(self) -> None:
        if self.mode not in SEARCH_MODES:
            raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}")
        parse_coarse(self.coarse)

    @property
    def coarse_levels(self) -> tuple[tuple[int, int], ...]:
        """``(chunk size, hits)`` of each coarse level (empty: single-granularity search)."""
        return parse_coarse(self.coarse)

    def describe(self, top_k: int) -> str:
        """``mode top-k`` (and the coarse levels)."""
        coarse = ", ".join(f"{size}-unit top-{hits}" for size, hits in self.coarse_levels)
        return f"{self.mode} top-{top_k}" + (f" + coarse {coarse}" if coarse else "")

    def _fields(self) -> dict[str, Any]:
        """Every field; ``coarse`` only when set (strategy JSON written before it existed stays the same)."""
        return {k: v for k, v in asdict(self).items() if k != "coarse" or v}

    def to_dict(self) -> dict[str, Any]:
        """The composed JSON form (``mode`` and the fusion settings)."""
        return self._fields()

    def to_flat(self) -> dict[str, Any]:
        """The flat strategy fields (``search`` is the mode)."""
        return {FLAT_NAMES.get(k, k): v for k, v in self._fields().items()}

    @classmethod
    def from_flat(cls, values: dict[str, Any]) -> SearchConfig:
        """From flat strategy fields (``search`` for the mode); other keys are ignored."""
        names = {FLAT_NAMES.get(f.name, f.name): f.name for f in fields(cls)}
        return cls(**{names[k]: v for k, v in values.items() if k in names})


FLAT_NAMES = {"mode": "search"}  # composed name → flat strategy field name
FLAT_SEARCH_FIELDS = {FLAT_NAMES.get(f.name, f.name): str(f.type) for f in fields(SearchConfig)}
"""Flat field name → type name, for every search setting."""
