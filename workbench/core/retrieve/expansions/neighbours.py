"""Neighbour windows: each hit grows by ``window`` chunks on each side of its own document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register
from workbench.core.retrieve.expansions.none import no_expansion
from workbench.core.retrieve.passages import DocText, Passage, Window, merge_windows

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.search import Hit


def neighbour_windows(runtime: LoadedSet, hits: Sequence[Hit], w: int, doc_text: DocText | None = None,
                      ) -> list[Passage]:
    """Grow each hit to chunks ``position-w .. position+w`` of its own document, then merge.

    ``w = 0`` is plain top-k: every hit stays its own passage. A coarse hit (``Hit.cover``) is already a
    window: it keeps the chunks it covers and is not widened.
    """
    if w == 0:
        return no_expansion(runtime, hits)
    windows = []
    for hit in hits:
        first, end = runtime.doc_rows(hit.span.doc_id)
        lo, hi = hit.cover or (max(first, hit.row - w), min(end - 1, hit.row + w))
        windows.append(Window(runtime.range_span(lo, hi), [hit], (lo, hi), []))
    return merge_windows(windows, doc_text)


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

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """Neighbour windows, merged."""
        return neighbour_windows(ctx.runtime, hits, self.window, ctx.corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``window ±N``."""
        return f"window ±{self.window}"

    def chip(self) -> str:
        """``±N``."""
        return f"±{self.window}"
