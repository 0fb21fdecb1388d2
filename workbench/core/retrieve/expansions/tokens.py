"""Token windows: ``window_tokens`` tokens centred on each hit, whatever the chunk boundaries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register

if TYPE_CHECKING:
    from workbench.core.retrieve.chunk_set import SetRuntime
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit


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
        if self.window_edge not in ex.WINDOW_EDGES:
            raise ValueError("window_edge must be 'shift' (keep the window's size at a document edge) or 'clip'")
        check_not_negative(self, "window_tokens")

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[ex.Passage]:
        """Token windows, merged."""
        corpus = ctx.corpus
        return ex.token_windows(ctx.runtime, hits, self.window_tokens, corpus.token_offsets, self.window_edge,
                                corpus.doc_text)

    def describe(self, unit: str) -> str:
        """``N-token window``."""
        return f"{self.window_tokens}-token window" + (", clipped at edges" if self.window_edge == "clip" else "")

    def chip(self) -> str:
        """``±N tok window``."""
        return f"±{self.window_tokens} tok window"

    def note(self, runtime: SetRuntime, hits: Sequence[Hit]) -> str:
        """A warning when the window is not larger than the hit chunks (it then returns just them)."""
        if not hits:
            return ""
        largest = max(int(runtime.table.tokens[h.row]) for h in hits)
        if self.window_tokens > largest:
            return ""
        return (f"the {self.window_tokens}-token window is not larger than the hit chunks (up to {largest} "
                "tokens): each passage is just its chunk; use a larger window or smaller chunks")
