"""Parent-child: small child chunks are searched, the parents holding them are returned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register

if TYPE_CHECKING:
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit


@register
@dataclass(frozen=True)
class Parent(Expansion):
    """The ``parent_top_k`` parents (of ``parent_size`` chunk units, 0 = heading sections) by best child."""

    parent_size: int = 0
    parent_top_k: int = 3
    parent_merge: bool = False

    kind = "parent"
    label = "parent chunks"
    order = 30
    knobs = (Knob("parent_size", "Parent", 0, 4096, 50,
                  "Parent size in tokens: child hits are returned as the parent that holds them (0 = the heading "
                  "section). Instant.", special="section"),)
    extent = "parent_size"
    groups_hits = True

    def __post_init__(self) -> None:
        if self.parent_top_k < 1:
            raise ValueError("parent_top_k must be at least 1")
        check_not_negative(self, "parent_size")

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[ex.Passage]:
        """Parents of the hits, best first."""
        corpus, unit = ctx.corpus, ctx.runtime.info.config.unit
        return ex.parent_windows(ctx.runtime, hits, lambda d: corpus.parents_of(d, self.parent_size, unit),
                                 self.parent_top_k, self.parent_merge, corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``parents of N unit, top K``."""
        size = f"{self.parent_size} {unit}" if self.parent_size else "sections"
        return f"parents of {size}, top {self.parent_top_k}" + (", merged" if self.parent_merge else "")

    def chip(self) -> str:
        """``parent chunks``."""
        return "parent chunks"

    def candidates(self, top_k: int) -> int:
        """Many children, so that enough distinct parents are found."""
        return max(top_k * 4, 20)

    def passages_wanted(self, top_k: int) -> int:
        """``parent_top_k`` parents, whatever the hits' top-k."""
        return self.parent_top_k

    def widened(self, top: int) -> Parent:
        """At least ``top`` parents."""
        return replace(self, parent_top_k=max(top, self.parent_top_k))
