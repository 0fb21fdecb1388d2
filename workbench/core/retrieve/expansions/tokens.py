"""Token windows: ``window_tokens`` tokens centred on each hit, whatever the chunk boundaries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register
from workbench.core.retrieve.passages import DocText, Passage, Window, merge_windows
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.search import Hit


WINDOW_EDGES = ("shift", "clip")


def token_windows(
    runtime: LoadedSet, hits: Sequence[Hit], n_tokens: int, token_offsets: Callable[[int], np.ndarray],
    edge: str = "shift", doc_text: DocText | None = None,
) -> list[Passage]:
    """A window of ``n_tokens`` centred on each hit (same amount before and after).

    At a document's edge, ``edge="shift"`` moves the window inward so that it keeps its size (as the
    sliding-window technique does); ``edge="clip"`` cuts it short. ``token_offsets(doc_id)`` gives the
    document's token offsets as an ``(n, 2)`` array.
    """
    if edge not in WINDOW_EDGES:
        raise ValueError(f"window edge must be one of {', '.join(WINDOW_EDGES)}")
    windows = []
    for hit in hits:
        offsets = np.asarray(token_offsets(hit.span.doc_id), dtype=np.int64).reshape(-1, 2)
        starts = offsets[:, 0]
        a = int(np.searchsorted(starts, hit.span.start))
        b = max(a + 1, int(np.searchsorted(starts, hit.span.end)))
        extra = max(0, n_tokens - (b - a))
        before = extra // 2
        after = extra - before
        if edge == "shift":  # what does not fit on one side goes to the other
            short_before = max(0, before - a)
            short_after = max(0, b + after - len(offsets))
            before, after = before + short_after, after + short_before
        lo, hi = max(0, a - before), min(len(offsets), b + after)
        if not len(offsets):
            span = hit.span
        else:
            span = Span(hit.span.doc_id, min(int(offsets[lo, 0]), hit.span.start),
                        max(int(offsets[hi - 1, 1]), hit.span.end))
        windows.append(Window(span, [hit], None, []))
    return merge_windows(windows, doc_text)


@register
@dataclass(frozen=True)
class TokenWindow(Expansion):
    """A window of tokens around each hit; at a document edge it shifts inward (or is clipped)."""

    window_tokens: int = 0
    window_edge: str = "shift"

    kind = "tokens"
    label = "token window"
    order = 20
    knobs = (Knob("window_tokens", "Tokens", 16, 4096, 16,
                  "Token window: how many tokens are returned around each hit (centred, the same before and "
                  "after where the document allows). Instant."),)
    extent = "window_tokens"

    def __post_init__(self) -> None:
        if self.window_edge not in WINDOW_EDGES:
            raise ValueError("window_edge must be 'shift' (keep the window's size at a document edge) or 'clip'")
        check_not_negative(self, "window_tokens")

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """Token windows, merged."""
        corpus = ctx.corpus
        return token_windows(ctx.runtime, hits, self.window_tokens, corpus.token_offsets, self.window_edge,
                                corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``N-token window``."""
        return f"{self.window_tokens}-token window" + (", clipped at edges" if self.window_edge == "clip" else "")

    def chip(self) -> str:
        """``±N tok window``."""
        return f"±{self.window_tokens} tok window"

    def note(self, runtime: LoadedSet, hits: Sequence[Hit]) -> str:
        """A warning when the window is not larger than the hit chunks (it then returns just them)."""
        if not hits:
            return ""
        largest = max(int(runtime.table.tokens[h.row]) for h in hits)
        if self.window_tokens > largest:
            return ""
        return (f"the {self.window_tokens}-token window is not larger than the hit chunks (up to {largest} "
                "tokens): each passage is just its chunk; use a larger window or smaller chunks")
