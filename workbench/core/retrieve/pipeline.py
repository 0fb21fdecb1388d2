"""One strategy, end to end: chunk set → candidate search → the later steps → expansion → assembly.

``Retriever`` runs a strategy on a ``SearchInputs`` (one question against one loaded chunk set, and
the corpus lookups) with the LLM as an argument, and owns the caches: first-stage hits keyed by the
strategy's frozen ``SearchConfig``, and summary-to-detail's section vectors.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.assemble import Context, assemble
from workbench.core.retrieve.budget import fit_to_budget
from workbench.core.retrieve.coarse_hits import fuse_granularities
from workbench.core.retrieve.expansions.base import Expansion
from workbench.core.retrieve.inputs import LLMSource, SearchInputs
from workbench.core.retrieve.lru import LRU
from workbench.core.retrieve.passages import Passage
from workbench.core.retrieve.search import Hit, bm25_search, dense_search, fuse_rrf
from workbench.core.retrieve.steps.base import Expand, Run, in_step_order
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.retrieve.strategy.search_config import SearchConfig
from workbench.core.retrieve.summaries import SectionCache
from workbench.core.spans import Span


@dataclass
class SearchResult:
    """Everything a strategy produced for one question."""

    question: str
    strategy: Strategy
    set_id: str
    hits: list[Hit]
    context: Context
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def passages(self) -> tuple[Passage, ...]:
        """Passages sent as context, in rank order."""
        return self.context.passages

    def spans(self) -> list[Span]:
        """The character spans returned (for metrics and diffs)."""
        return [p.span for p in self.context.passages]


def candidate_hits(ctx: SearchInputs, search: SearchConfig, k: int) -> list[Hit]:
    """First-stage hits by the search mode."""
    rt, qvec = ctx.runtime, ctx.query_vector
    if search.mode == "dense":
        return dense_search(rt, qvec, k)
    sparse = bm25_search(ctx.corpus.doc_text, rt, ctx.question, k if search.mode == "bm25" else max(k, 20))
    if search.mode == "bm25":
        return sparse
    dense = dense_search(rt, qvec, max(k, 20))
    return fuse_rrf(dense, sparse, k, search.dense_weight, search.bm25_weight, search.rrf_k)


def expand_hits(ctx: SearchInputs, hits: list[Hit], strategy: Strategy, expander: Expansion | None = None,
                ) -> list[Passage]:
    """Hits → merged passages by ``expander`` (default: the strategy's expansion) inside the wrappers of the
    strategy's steps (``Step.wrap_expansion``: whole documents for short ones …)."""
    chosen = expander or strategy.expander
    expand: Expand = lambda some: chosen.expand(ctx, some)  # noqa: E731  # wrapped by each step below
    for step in strategy.steps:
        expand = step.wrap_expansion(ctx, expand)
    return expand(hits)


def expand_within_budget(ctx: SearchInputs, hits: list[Hit], strategy: Strategy,
                         ) -> tuple[list[Passage], list[Passage]]:
    """``(passages, dropped)`` within the strategy's budget: an expansion that spends the budget itself
    (relevant segments) chooses unless a step changes the expansion; any other is expanded, then trimmed
    budget-aware (``budget.fit_to_budget``)."""
    budgeted = replace(ctx, budget=strategy.budget)
    if strategy.expander.selects_within_budget and not any(s.changes_expansion for s in strategy.steps):
        return strategy.expander.expand_detailed(budgeted, hits)
    passages = expand_hits(budgeted, hits, strategy)
    return fit_to_budget(ctx.runtime, hits, passages, strategy.budget,
                         lambda one: expand_hits(budgeted, one, strategy), ctx.corpus.doc_text, ctx.corpus.span_tokens)


HitKey = tuple[str, str, int, SearchConfig]


def hit_key(set_id: str, question: str, search: SearchConfig, n: int) -> HitKey:
    """The hit cache key: the loaded chunk set, the question, the number of candidates and the whole
    search part of the strategy (every ``SearchConfig`` field, so a new one can never serve stale hits)."""
    return (set_id, question, n, search)


class Retriever:
    """Runs strategies and keeps what later runs reuse: first-stage hits (moving a window, top-k or budget
    slider searches nothing) and the section summaries' vectors of summary-to-detail."""

    def __init__(self, hit_cache_size: int = 128, section_cache_size: int = 8) -> None:
        self.hit_cache: LRU[HitKey, list[Hit]] = LRU(hit_cache_size)
        self.section_cache: SectionCache = LRU(section_cache_size)

    def forget_hits(self) -> None:
        """Drop cached hits (they hold rows of a chunk set snapshot that changed)."""
        self.hit_cache.clear()

    def forget_sections(self) -> None:
        """Drop cached section vectors (documents or chunk sets changed)."""
        self.section_cache.clear()

    def search(self, ctx: SearchInputs, search: SearchConfig, n: int) -> list[Hit]:
        """The first ``n`` first-stage hits, from the cache when this search ran before."""
        key = hit_key(ctx.runtime.info.id, ctx.question, search, n)
        cached = self.hit_cache.get(key)
        if cached is not None:
            return cached
        return self.hit_cache.put(key, candidate_hits(ctx, search, n))

    def run(
        self, ctx: SearchInputs, strategy: Strategy, llm: LLMSource, progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
    ) -> SearchResult:
        """Run ``strategy`` on ``ctx``, in order: search (through every step's ``wrap_search``: within the best
        sections for summary-to-detail, widened past a per-document cap) → each step's ``reorder_hits`` (LLM
        rerank) → coarse fusion → expand (a step's ``expand_instead``, else the expansion inside the steps'
        wrappers) → fit to the budget → assemble. ``llm`` is opened only by steps that need one. Timings:
        search, each reordering step (``rerank_ms``), coarse (the coarse sets' hits of multi-granularity
        search), expand (expansion, budget and assembly)."""
        fine = strategy.search_config.fine  # coarse hits join later (``_with_coarse_hits``)
        run = Run(ctx, llm, strategy.top_k, strategy.expander, self.section_cache,
                  lambda n: self.search(ctx, fine, n), lambda n: candidate_hits(ctx, fine, n),
                  lambda hits, expander: expand_hits(ctx, hits, strategy, expander), progress, cancel)
        t0 = time.perf_counter()
        search = run.search_cached
        for step in strategy.steps:
            search = step.wrap_search(run, search)
        hits = search(strategy.candidates)
        run.timings["search_ms"] = (time.perf_counter() - t0) * 1000
        for step in strategy.steps:
            t0 = time.perf_counter()
            reordered = step.reorder_hits(run, hits)
            if reordered is not None:  # the hits leave the step in its order
                hits = in_step_order(reordered)
                run.timings[f"{step.kind}_ms"] = (time.perf_counter() - t0) * 1000
        if not strategy.expander.groups_hits:
            hits = hits[: strategy.top_k]
        if strategy.search_config.coarse:
            t0 = time.perf_counter()
            hits = self._with_coarse_hits(ctx, strategy, hits)
            run.timings["coarse_ms"] = (time.perf_counter() - t0) * 1000
        run.note(strategy.expander.note(ctx.runtime, hits))
        t0 = time.perf_counter()
        passages, left_out = _expand(run, strategy, hits)
        context = assemble(passages, ctx.corpus.doc_text, ctx.corpus.span_tokens, strategy.budget)
        if left_out:
            context = replace(context, dropped=(*left_out, *context.dropped))
        run.timings["expand_ms"] = (time.perf_counter() - t0) * 1000
        return SearchResult(ctx.question, strategy, ctx.runtime.info.id, hits, context, run.timings, run.warnings)

    def _with_coarse_hits(self, ctx: SearchInputs, strategy: Strategy, hits: list[Hit]) -> list[Hit]:
        """The fine hits fused with each coarse set's best hits, searched by the strategy's search without its
        coarse levels (``coarse_hits``; cached like any search)."""
        levels = strategy.search_config.coarse
        if len(ctx.coarse) != len(levels):
            raise ValueError(f"the strategy searches {len(levels)} coarse chunk set(s) but {len(ctx.coarse)} "
                             "were loaded")
        lists = [self.search(replace(ctx, runtime=rt), strategy.search_config.fine, n)
                 for rt, (_, n) in zip(ctx.coarse, levels, strict=True)]
        return fuse_granularities(hits, lists, ctx.runtime, strategy.search_config.rrf_k)


def _expand(run: Run, strategy: Strategy, hits: list[Hit]) -> tuple[list[Passage], list[Passage]]:
    """``(passages, left out)``: made by the first step that makes them itself (``expand_instead``: the LLM
    reranking expanded parents), else the hits expanded within the budget."""
    for step in strategy.steps:
        made = step.expand_instead(run, hits)
        if made is not None:
            return made
    return expand_within_budget(run.ctx, hits, strategy)
