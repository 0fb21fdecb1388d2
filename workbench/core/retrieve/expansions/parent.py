"""Parent-child: small child chunks are searched, the parents holding them are returned."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from workbench.core.ingest.chunkers.choice import chunk_unit
from workbench.core.ingest.values import counted
from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register
from workbench.core.retrieve.passages import DocText, Passage, Window, merge_windows
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.search import Hit


def parent_windows(
    runtime: LoadedSet, hits: Sequence[Hit], parents_of: Callable[[int], list[tuple[int, int]]], top: int,
    merge: bool = False, doc_text: DocText | None = None,
) -> list[Passage]:
    """Group child hits by the parent span containing them; return the ``top`` parents by best child.

    Each parent is its own passage, so ``top`` parents come back when the hits reach that many; with
    ``merge`` adjacent parents join into one passage (fewer passages, the same text).
    """
    groups: dict[tuple[int, int, int], list[Hit]] = {}
    for hit in hits:
        parents = parents_of(hit.span.doc_id)
        starts = [s for s, _ in parents]
        i = max(0, bisect.bisect_right(starts, hit.span.start) - 1)
        p_start, p_end = parents[i] if parents else (hit.span.start, hit.span.end)
        key = (hit.span.doc_id, min(p_start, hit.span.start), max(p_end, hit.span.end))
        groups.setdefault(key, []).append(hit)
    ranked = sorted(groups.items(), key=lambda kv: min(h.rank for h in kv[1]))[:top]
    windows = [Window(Span(*key), hs, None, [f"parent of {len(hs)} child hit(s)"]) for key, hs in ranked]
    return merge_windows(windows, doc_text if merge else None, touch=merge)


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

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """Parents of the hits, best first."""
        corpus, unit = ctx.corpus, chunk_unit(ctx.runtime.info.config)
        return parent_windows(ctx.runtime, hits, lambda d: corpus.parents_of(d, self.parent_size, unit),
                                 self.parent_top_k, self.parent_merge, corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``parents of N unit, top K``."""
        size = counted(self.parent_size, unit) if self.parent_size else "sections"
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
