"""No expansion: each hit is its own passage, exactly its chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve.expansions.base import Expansion, register
from workbench.core.retrieve.passages import Passage

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.search import Hit


def no_expansion(runtime: LoadedSet, hits: Sequence[Hit]) -> list[Passage]:
    """Each hit is its own passage, exactly its chunk (a coarse hit: the chunks it covers); nothing is
    merged (plain top-k)."""
    return [
        Passage(h.span, (h.chunk_id,), (h.span,), rank, h.score, h.cover or (h.row, h.row))
        for rank, h in enumerate(sorted(hits, key=lambda h: h.rank), start=1)
    ]


@register
@dataclass(frozen=True)
class NoExpansion(Expansion):
    """Plain top-k: the hit chunks, nothing more."""

    kind = "none"
    label = "none (hit chunk only)"
    order = 0

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """Each hit as its own passage."""
        return no_expansion(ctx.runtime, hits)

    def chip(self) -> str:
        """``hit only``."""
        return "hit only"
