"""No expansion: each hit is its own passage, exactly its chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.expansions.base import Expansion, register

if TYPE_CHECKING:
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit


@register
@dataclass(frozen=True)
class NoExpansion(Expansion):
    """Plain top-k: the hit chunks, nothing more."""

    kind = "none"
    label = "none (hit chunk only)"
    order = 0

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[ex.Passage]:
        """Each hit as its own passage."""
        return ex.no_expansion(ctx.runtime, hits)

    def chip(self) -> str:
        """``hit only``."""
        return "hit only"
