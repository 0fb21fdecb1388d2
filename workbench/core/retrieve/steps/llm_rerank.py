"""LLM rerank as a later step: the local LLM reorders the first-stage candidates (``rerank.llm_rerank``), or,
with parent-child, the expanded parents (``rerank_parents``: ``rerank.llm_rerank_passages``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from workbench.core.retrieve.knobs import Knob
from workbench.core.retrieve.rerank import llm_rerank, llm_rerank_passages
from workbench.core.retrieve.steps.base import Described, Run, Step, check_not_negative, register_step

if TYPE_CHECKING:
    from workbench.core.retrieve.expansions.base import Expansion
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.search import Hit

RERANKS = ("none", "llm")


@register_step
@dataclass(frozen=True)
class Rerank(Step):
    """``rerank="llm"``: the LLM reorders the ``rerank_candidates`` best hits (or, with ``rerank_parents`` and
    an expansion that groups hits, the expanded parents)."""

    kind: ClassVar[str] = "rerank"
    label: ClassVar[str] = "LLM rerank"
    order: ClassVar[int] = 10
    phrase_order: ClassVar[int] = 20
    llm_use: ClassVar[str] = "LLM rerank"
    knobs: ClassVar[tuple[Knob, ...]] = (
        Knob("rerank", "LLM rerank", 0, 1, 1,
             "LLM rerank: the local LLM reorders the search candidates by relevance before expansion (slow with the "
             "embedded model).", choices=RERANKS, cli_help="LLM rerank of the candidates (llm) or none"),
        Knob("rerank_parents", "parents", 0, 1, 1,
             "With LLM rerank and parent-child: rerank the expanded parents rather than the child hits.",
             cli_help="parent-child with LLM rerank: rerank the expanded parents instead of the child hits"),
    )

    rerank: str = "none"
    rerank_candidates: int = 20
    rerank_parents: bool = False  # parent expansion: rerank the expanded parents, not the child hits

    def __post_init__(self) -> None:
        if self.rerank not in RERANKS:
            raise ValueError("rerank must be 'none' or 'llm'")
        check_not_negative(self, "rerank_candidates")

    @property
    def active(self) -> bool:
        return self.rerank == "llm"

    def reranks_parents(self, expander: Expansion) -> bool:
        """True when the LLM reranks expanded parents (child → parent → rerank) rather than the hits."""
        return self.active and self.rerank_parents and expander.groups_hits

    def applies(self, name: str, expander: Expansion) -> bool:
        return name != "rerank_parents" or (self.active and expander.groups_hits)

    def describe(self, strategy: Described) -> str:
        if self.reranks_parents(strategy.expander):
            return f"LLM rerank of up to {self.rerank_candidates} parents"
        return f"LLM rerank of {strategy.candidates}" if self.active else ""

    def chip(self) -> tuple[str, str] | None:
        return ("rerank", "LLM rerank") if self.active else None

    def candidates(self, top_k: int) -> int:
        return max(self.rerank_candidates, top_k) if self.active else top_k

    def reorder_hits(self, run: Run, hits: list[Hit]) -> list[Hit] | None:
        if not self.active or self.reranks_parents(run.expander):
            return None
        reranked, note = llm_rerank(run.ctx.corpus, run.llm, run.ctx.question, hits, run.top_k)
        run.note(note)
        return reranked

    def expand_instead(self, run: Run, hits: list[Hit]) -> tuple[list[Passage], list[Passage]] | None:
        if not self.reranks_parents(run.expander):
            return None
        t0 = time.perf_counter()
        wide = run.expand(hits, run.expander.widened(self.rerank_candidates))
        passages, note = llm_rerank_passages(run.ctx.corpus, run.llm, run.ctx.question, wide,
                                             run.expander.passages_wanted(run.top_k))
        run.note(note)
        run.timings["rerank_ms"] = (time.perf_counter() - t0) * 1000
        return passages, []
