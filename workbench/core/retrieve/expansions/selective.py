"""Selective expansion: a hit grows toward a neighbour only with evidence, and says why."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.expansions.base import Expansion, Knob, check_not_negative, register

if TYPE_CHECKING:
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.search import Hit
    from workbench.core.spans import Span

_SENTENCE_END = re.compile(r"[.!?…:;][\"'”’)\]]*\s*$")


@register
@dataclass(frozen=True)
class Selective(Expansion):
    """Grow by similar neighbours (within ``margin``), merge hits at most ``merge_gap`` chunks apart."""

    margin: float = 0.05
    merge_gap: int = 2
    max_steps: int = 2

    kind = "selective"
    label = "selective (only with evidence)"
    order = 40
    knobs = (
        Knob("margin", "margin", 0.0, 0.5, 0.01,
             "Selective expansion grows a hit toward a neighbour only when the neighbour's similarity is within "
             "this margin of the hit's. Instant.", decimals=2),
        Knob("merge_gap", "Merge gap", 0, 10, 1,
             "Selective expansion merges two hits of one document when at most this many chunks lie between "
             "them (with what lies between). Instant."),
    )
    extent = "merge_gap"

    def __post_init__(self) -> None:
        check_not_negative(self, "merge_gap", "max_steps")

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[ex.Passage]:
        """Evidence-based windows, merged."""
        doc_text = ctx.corpus.doc_text

        def mid_sentence(span: Span) -> bool:
            return not _SENTENCE_END.search(doc_text(span.doc_id)[max(span.start, span.end - 8) : span.end])

        return ex.selective_windows(ctx.runtime, hits, ctx.query_vector, self.margin, self.merge_gap,
                                    self.max_steps, mid_sentence, doc_text)

    def describe(self, unit: str) -> str:
        """``selective (margin M)``."""
        return f"selective (margin {self.margin})"

    def chip(self) -> str:
        """``selective M``."""
        return f"selective {self.margin:g}"
