"""Summary-to-detail as a later step: the first-stage search runs only within the sections whose LLM summaries
best match the question (``summaries.top_sections``); without an LLM every chunk is searched, with a warning."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from workbench.core.retrieve.search import Hit
from workbench.core.retrieve.steps.base import Described, Run, Search, Step, check_not_negative, register_step
from workbench.core.retrieve.summaries import top_sections

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.spans import Span


@register_step
@dataclass(frozen=True)
class Summaries(Step):
    """``summary``: search within the ``summary_sections`` sections whose summaries best match the question."""

    kind: ClassVar[str] = "summary"
    label: ClassVar[str] = "section summaries"
    order: ClassVar[int] = 20
    phrase_order: ClassVar[int] = 30
    llm_use: ClassVar[str] = "section summaries"

    summary: bool = False
    summary_sections: int = 3

    def __post_init__(self) -> None:
        check_not_negative(self, "summary_sections")

    @property
    def active(self) -> bool:
        return self.summary

    def describe(self, strategy: Described) -> str:
        return f"summary → top {self.summary_sections} sections" if self.active else ""

    def chip(self) -> tuple[str, str] | None:
        return ("summary", "summaries") if self.active else None

    def wrap_search(self, run: Run, search: Search) -> Search:
        if not self.active:
            return search
        ctx = run.ctx
        restrict, note = top_sections(ctx.corpus, ctx.runtime, ctx.query_vector, self.summary_sections, run.llm,
                                      run.section_cache, run.progress, run.cancel, embedder=ctx.embedder)
        run.note(note)
        if restrict is None:  # no LLM: every chunk searched, the result not cached
            return run.search_uncached
        return lambda n: search_within(ctx.runtime, ctx.query_vector, restrict, n)


def search_within(rt: LoadedSet, qvec: np.ndarray, spans: list[Span], k: int) -> list[Hit]:
    """Dense search restricted to chunks that lie inside ``spans`` (exact, over those chunks only)."""
    rows = sorted({r for s in spans for r in rt.chunks_in(s)})
    if not rows:
        return []
    ids = rt.table.ids[rows]
    vecs = rt.index.vectors_for(ids)
    scores = vecs @ qvec
    order = np.argsort(-scores, kind="stable")[:k]
    return [Hit(int(ids[i]), int(rows[i]), rt.span(int(rows[i])), rank, float(scores[i]), dense_score=float(scores[i]))
            for rank, i in enumerate(order, start=1)]
