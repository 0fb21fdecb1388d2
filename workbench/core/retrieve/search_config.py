"""The search part of a strategy: everything that decides which chunks the first-stage search returns.

It is frozen and hashable, and it *is* the hit cache's key (with the chunk set, the question and the
number of candidates), so a new search setting is in the key as soon as it is a field here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

SEARCH_MODES = ("dense", "bm25", "hybrid")


@dataclass(frozen=True)
class SearchConfig:
    """Search mode and, for hybrid search, the weights and constant of reciprocal rank fusion."""

    mode: str = "dense"
    dense_weight: float = 1.0
    bm25_weight: float = 1.0
    rrf_k: int = 60

    def __post_init__(self) -> None:
        if self.mode not in SEARCH_MODES:
            raise ValueError(f"search must be one of {', '.join(SEARCH_MODES)}")

    def describe(self, top_k: int) -> str:
        """``mode top-k``."""
        return f"{self.mode} top-{top_k}"

    def to_dict(self) -> dict[str, Any]:
        """The composed JSON form (``mode`` and the fusion settings)."""
        return asdict(self)

    def to_flat(self) -> dict[str, Any]:
        """The flat strategy fields (``search`` is the mode)."""
        return {FLAT_NAMES.get(k, k): v for k, v in asdict(self).items()}

    @classmethod
    def from_flat(cls, values: dict[str, Any]) -> SearchConfig:
        """From flat strategy fields (``search`` for the mode); other keys are ignored."""
        names = {FLAT_NAMES.get(f.name, f.name): f.name for f in fields(cls)}
        return cls(**{names[k]: v for k, v in values.items() if k in names})


FLAT_NAMES = {"mode": "search"}  # composed name → flat strategy field name
FLAT_SEARCH_FIELDS = {FLAT_NAMES.get(f.name, f.name): str(f.type) for f in fields(SearchConfig)}
"""Flat field name → type name, for every search setting."""
