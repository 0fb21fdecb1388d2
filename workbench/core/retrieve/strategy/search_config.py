"""The search part of a strategy: everything that decides which chunks the first-stage search returns.

It is frozen and hashable, and it *is* the hit cache's key (with the chunk set, the question and the
number of candidates), so a new search setting is in the key as soon as it is a field here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

SEARCH_MODES = ("dense", "bm25", "hybrid")
MAX_COARSE_LEVELS = 4
MAX_COARSE_HITS = 50


class CoarseLevel(NamedTuple):
    """One coarse level of multi-granularity search: the same documents cut at ``size`` units, ``hits`` best."""

    size: int
    hits: int


def parse_coarse(text: str) -> tuple[CoarseLevel, ...]:
    """``"100:2+200:2"`` → ``(CoarseLevel(100, 2), CoarseLevel(200, 2))``; ``""`` or ``"none"`` → ``()``."""
    if not text.strip() or text.strip() == "none":
        return ()
    levels = []
    for part in text.replace(" ", "").split("+"):
        size, sep, hits = part.partition(":")
        if not (sep and size.isascii() and size.isdigit() and hits.isascii() and hits.isdigit()):
            raise ValueError(f"search field 'coarse' must look like 100:2+200:2 (chunk size:hits, joined by +), "
                             f"not {text[:40]!r}")
        levels.append(CoarseLevel(int(size), int(hits)))
    return check_levels(tuple(levels))


def check_levels(levels: tuple[CoarseLevel, ...]) -> tuple[CoarseLevel, ...]:
    """``levels`` when each is in range, there are few enough and no size repeats; else a ``ValueError``."""
    for size, hits in levels:
        if not 1 <= size <= 100_000 or not 1 <= hits <= MAX_COARSE_HITS:
            raise ValueError(f"search field 'coarse': a chunk size is 1–100,000 and hits 1–{MAX_COARSE_HITS}, "
                             f"not {size}:{hits}")
    if len(levels) > MAX_COARSE_LEVELS:
        raise ValueError(f"search field 'coarse': at most {MAX_COARSE_LEVELS} coarse chunk sizes")
    if len({size for size, _ in levels}) != len(levels):
        raise ValueError("search field 'coarse' names a chunk size twice")
    return levels


def coarse_text(levels: tuple[CoarseLevel, ...]) -> str:
    """The text form of ``levels`` (``"100:2+200:2"``; ``""`` for none), as strategy JSON writes it."""
    return "+".join(f"{size}:{hits}" for size, hits in levels)


@dataclass(frozen=True)
class SearchConfig:
    """Search mode and, for hybrid search, the weights and constant of reciprocal rank fusion.

    ``coarse`` adds multi-granularity search: levels ``100:2`` and ``200:2`` also search the same documents
    cut into 100- and 200-unit chunks (same chunker and model), and their best 2 hits each join the hits as
    windows over this chunk set's chunks, fused by reciprocal rank (``core/retrieve/coarse_hits.py``).
    """

    mode: str = "dense"
    dense_weight: float = 1.0
    bm25_weight: float = 1.0
    rrf_k: int = 60
    coarse: tuple[CoarseLevel, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in SEARCH_MODES:
            raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}")
        object.__setattr__(self, "coarse", check_levels(tuple(CoarseLevel(*level) for level in self.coarse)))

    @property
    def fine(self) -> SearchConfig:
        """This search without its coarse levels (what searches each chunk set, fine and coarse alike)."""
        return SearchConfig(self.mode, self.dense_weight, self.bm25_weight, self.rrf_k) if self.coarse else self

    def describe(self, top_k: int) -> str:
        """``mode top-k`` (and the coarse levels)."""
        coarse = ", ".join(f"{size}-unit top-{hits}" for size, hits in self.coarse)
        return f"{self.mode} top-{top_k}" + (f" + coarse {coarse}" if coarse else "")

    def to_dict(self) -> dict[str, str | float | int]:
        """JSON fields: ``mode``, the fusion settings and ``coarse`` as text (only when set, so strategy JSON
        written before it existed stays the same)."""
        data: dict[str, str | float | int] = {"mode": self.mode, "dense_weight": self.dense_weight,
                                              "bm25_weight": self.bm25_weight, "rrf_k": self.rrf_k}
        if self.coarse:
            data["coarse"] = coarse_text(self.coarse)
        return data
