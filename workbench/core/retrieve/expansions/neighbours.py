"""Neighbour windows: each hit grows by ``window`` chunks on each side of its own document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register

if TYPE_CHECKING:
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit


@register
@dataclass(frozen=True)
class Neighbours(Expansion):
    """Chunks ``hit-window .. hit+window``; overlapping or touching windows merge."""

    window: int = 0

    kind = "neighbours"
    label = "neighbour chunks (window)"
    order = 10
    knobs = (Knob("window", "Window ±", 0, 5, 1,
                  "Window size: each hit is grown by this many neighbouring chunks on each side (0 = the hit "
                  "chunk only). Overlapping windows merge. Instant: nothing is re-embedded."),)

    def __post_init__(self) -> None:
        check_not_negative(self, "window")

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[ex.Passage]:
        """Neighbour windows, merged."""
        return ex.neighbour_windows(ctx.runtime, hits, self.window, ctx.corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``window ±N``."""
        return f"window ±{self.window}"

    def chip(self) -> str:
        """``±N``."""
        return f"±{self.window}"
