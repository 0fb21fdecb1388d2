"""Selective expansion: a hit grows toward a neighbour only with evidence, and says why."""

from __future__ import annotations

import re
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
    from workbench.core.spans import Span

_SENTENCE_END = re.compile(r"[.!?…:;][\"'”’)\]]*\s*$")


def selective_windows(
    runtime: LoadedSet, hits: Sequence[Hit], query_vector: np.ndarray, margin: float, merge_gap: int,
    max_steps: int, ends_mid_sentence: Callable[[Span], bool], doc_text: DocText | None = None,
) -> list[Passage]:
    """Expand a hit toward a neighbour only with evidence, and say why for each step taken.

    Evidence: the neighbour's own similarity is within ``margin`` of the hit's; another hit of the same
    document lies at most ``merge_gap`` chunks away (merge them with what lies between); or the hit ends
    mid-sentence and the next chunk continues the same section.
    """
    windows = []
    by_doc: dict[int, list[Hit]] = {}
    for hit in hits:
        by_doc.setdefault(hit.span.doc_id, []).append(hit)
    for hit in hits:
        first, end = runtime.doc_rows(hit.span.doc_id)
        lo = hi = hit.row
        reasons: list[str] = []
        base = hit.dense_score if hit.dense_score is not None else float(
            runtime.index.vectors_for(np.asarray([hit.chunk_id])) @ query_vector)
        for direction, label in ((-1, "left"), (1, "right")):
            edge = hit.row
            for _ in range(max_steps):
                nxt = edge + direction
                if nxt < first or nxt >= end:
                    break
                sim = float(runtime.index.vectors_for(np.asarray([runtime.chunk_id(nxt)]))[0] @ query_vector)
                if sim >= base - margin:
                    reasons.append(f"expanded {label}: neighbour score {sim:.2f} ≥ {base - margin:.2f}")
                    edge = nxt
                else:
                    break
            lo, hi = (edge, hi) if direction < 0 else (lo, edge)
        if hi == hit.row and hit.row + 1 < end and ends_mid_sentence(hit.span) and \
                runtime.heading_path(hit.row) == runtime.heading_path(hit.row + 1):
            hi = hit.row + 1
            reasons.append("expanded right: hit ends mid-sentence and the section continues")
        for other in by_doc[hit.span.doc_id]:
            gap = other.row - hit.row
            if 1 < gap <= merge_gap + 1:
                hi = max(hi, other.row)
                reasons.append(f"auto-merged with hit #{other.rank} ({gap - 1} chunk(s) between)")
        windows.append(Window(runtime.range_span(lo, hi), [hit], (lo, hi), reasons))
    return merge_windows(windows, doc_text)


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

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """Evidence-based windows, merged."""
        doc_text = ctx.corpus.doc_text

        def mid_sentence(span: Span) -> bool:
            return not _SENTENCE_END.search(doc_text(span.doc_id)[max(span.start, span.end - 8) : span.end])

        return selective_windows(ctx.runtime, hits, ctx.query_vector, self.margin, self.merge_gap,
                                    self.max_steps, mid_sentence, doc_text)

    def describe(self, unit: str) -> str:
        """``selective (margin M)``."""
        return f"selective (margin {self.margin})"

    def chip(self) -> str:
        """``selective M``."""
        return f"selective {self.margin:g}"
