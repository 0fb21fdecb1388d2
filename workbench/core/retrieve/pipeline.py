"""One strategy, end to end: chunk set → candidate search → (rerank) → expansion → assembly.

``Retriever`` runs a strategy on a ``SearchInputs`` (one question against one loaded chunk set, and
the corpus lookups) with the LLM as an argument, and owns the caches: first-stage hits keyed by the
strategy's frozen ``SearchConfig``, and summary-to-detail's section vectors.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.assemble import Context, assemble
from workbench.core.retrieve.budget import fit_to_budget, with_chunk_tokens
from workbench.core.retrieve.coarse_hits import fuse_granularities
from workbench.core.retrieve.inputs import LLMSource, SearchInputs
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.lru import LRU
from workbench.core.retrieve.passages import Passage
from workbench.core.retrieve.rerank import llm_rerank, llm_rerank_passages
from workbench.core.retrieve.search import Hit, bm25_search, cap_per_document, dense_search, fuse_rrf
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.retrieve.strategy.search_config import SearchConfig
from workbench.core.retrieve.summaries import SectionCache, top_sections
from workbench.core.retrieve.whole_documents import whole_documents
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


def expand_hits(ctx: SearchInputs, hits: list[Hit], strategy: Strategy) -> list[Passage]:
    """Hits → merged passages by the strategy's expansion (whole documents for short ones when
    ``whole_doc_tokens`` is set)."""
    corpus = ctx.corpus
    if strategy.whole_doc_tokens:
        return whole_documents(
            ctx.runtime, hits, lambda d: len(corpus.token_offsets(d)), lambda d: len(corpus.doc_text(d)),
            strategy.whole_doc_tokens, lambda rest: strategy.expander.expand(ctx, rest))
    return strategy.expander.expand(ctx, hits)


def expand_within_budget(ctx: SearchInputs, hits: list[Hit], strategy: Strategy,
                         ) -> tuple[list[Passage], list[Passage]]:
    """``(passages, dropped)`` within the strategy's budget: an expansion that spends the budget itself
    (relevant segments) chooses; any other is expanded, then trimmed budget-aware (``budget.fit_to_budget``)."""
    budgeted = replace(ctx, budget=strategy.budget)
    if strategy.expander.selects_within_budget and not strategy.whole_doc_tokens:
        return strategy.expander.expand_detailed(budgeted, hits)
    passages = expand_hits(budgeted, hits, strategy)
    return fit_to_budget(ctx.runtime, hits, passages, strategy.budget,
                         lambda one: expand_hits(budgeted, one, strategy), ctx.corpus.doc_text, ctx.corpus.count_tokens)


CAP_SEARCH_LIMIT = 2000  # the most candidates searched to refill a per-document cap


def capped_search(search: Callable[[int], list[Hit]], k: int, cap: int, total: int, limit: int = CAP_SEARCH_LIMIT,
                  ) -> tuple[list[Hit], str]:
    """``k`` hits with at most ``cap`` per document (0 = no cap), searching more candidates as needed.

    ``search(n)`` returns the first ``n`` hits; the search widens (doubling) until the cap leaves ``k`` hits,
    the ``total`` chunks are all searched, or ``limit`` is reached. A note says when fewer than ``k`` remain.
    """
    if cap <= 0:
        return search(k), ""
    n = k
    while True:
        found = search(n)
        capped = cap_per_document(found, cap)
        if len(capped) >= k or n >= min(total, limit) or len(found) < n:
            break
        n = min(max(n * 2, k * cap * 2), total, limit)
    if len(capped) >= k:
        return capped[:k], ""
    docs = len({h.span.doc_id for h in capped})
    if n >= total or len(found) < n:
        return capped, (f"per-document cap {cap}: the corpus has only {docs} document(s) with matching chunks, "
                        f"so {len(capped)} of {k} hits")
    return capped, f"per-document cap {cap}: {len(capped)} of {k} hits within the first {n} candidates searched"


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
        """Run ``strategy`` on ``ctx``, in order: search (within the best sections for summary-to-detail) →
        rerank → coarse fusion → expand → fit to the budget → assemble. ``llm`` is opened only by rerank and
        summaries. Timings: search, rerank, coarse (the coarse sets' hits of multi-granularity search),
        expand (expansion, budget and assembly)."""
        run = _Run(ctx, strategy, llm)
        hits = self._search(run, progress, cancel)
        hits = run.timed("rerank_ms", lambda: _rerank_hits(run, hits)) if run.reranks_hits else hits
        if not strategy.expander.groups_hits:
            hits = hits[: strategy.top_k]
        if strategy.search_config.coarse:
            hits = run.timed("coarse_ms", lambda: self._with_coarse_hits(ctx, strategy, hits))
        run.note(strategy.expander.note(ctx.runtime, hits))
        t0 = time.perf_counter()
        passages, left_out = _expand_to_budget(run, hits)
        context = assemble(with_chunk_tokens(ctx.runtime, passages), ctx.corpus.doc_text, ctx.corpus.count_tokens,
                           strategy.budget)
        if left_out:
            context = replace(context, dropped=(*left_out, *context.dropped))
        run.timings["expand_ms"] = (time.perf_counter() - t0) * 1000
        return SearchResult(ctx.question, strategy, ctx.runtime.info.id, hits, context, run.timings, run.warnings)

    def _search(self, run: _Run, progress: ProgressSink | None, cancel: CancelToken | None) -> list[Hit]:
        """The first-stage hits: the strategy's candidates (refilled past a per-document cap), searched in the
        best sections only for summary-to-detail; cached unless restricted."""
        ctx, strategy = run.ctx, run.strategy
        t0 = time.perf_counter()
        restrict = None
        if strategy.summary:
            restrict, note = top_sections(ctx.corpus, ctx.runtime, ctx.query_vector, strategy.summary_sections,
                                          run.llm, self.section_cache, progress, cancel, embedder=ctx.embedder)
            run.note(note)
        fine = strategy.search_config.fine  # coarse hits join later (``_with_coarse_hits``)

        def search(n: int) -> list[Hit]:
            if restrict is not None:
                return _search_within(ctx.runtime, ctx.query_vector, restrict, n)
            if strategy.summary:  # no LLM: every chunk searched, the result not cached
                return candidate_hits(ctx, fine, n)
            return self.search(ctx, fine, n)

        hits, note = capped_search(search, strategy.candidates, strategy.per_doc_cap, len(ctx.runtime))
        run.note(note)
        run.timings["search_ms"] = (time.perf_counter() - t0) * 1000
        return hits

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


@dataclass
class _Run:
    """One run of a strategy: its inputs, and the timings and warnings it collects step by step."""

    ctx: SearchInputs
    strategy: Strategy
    llm: LLMSource
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def reranks_hits(self) -> bool:
        """True when the LLM reranks the hits themselves (not expanded parents)."""
        return self.strategy.rerank == "llm" and not self.strategy.reranks_parents

    def note(self, warning: str) -> None:
        """Keep a step's warning (``""``: none)."""
        if warning:
            self.warnings.append(warning)

    def timed(self, name: str, step: Callable[[], list[Hit]]) -> list[Hit]:
        """``step()``, its time kept under ``name`` (milliseconds)."""
        t0 = time.perf_counter()
        out = step()
        self.timings[name] = (time.perf_counter() - t0) * 1000
        return out


def _rerank_hits(run: _Run, hits: list[Hit]) -> list[Hit]:
    """The hits in the LLM's order (its note kept)."""
    reranked, note = llm_rerank(run.ctx.corpus, run.llm, run.ctx.question, hits, run.strategy.top_k)
    run.note(note)
    return reranked


def _expand_to_budget(run: _Run, hits: list[Hit]) -> tuple[list[Passage], list[Passage]]:
    """``(passages, left out)``: the hits expanded within the budget, or, when the LLM reranks expanded
    parents, the widened parents in the LLM's order."""
    ctx, strategy = run.ctx, run.strategy
    if not strategy.reranks_parents:
        return expand_within_budget(ctx, hits, strategy)
    t0 = time.perf_counter()
    wide = replace(strategy, expander=strategy.expander.widened(strategy.rerank_candidates))
    passages, note = llm_rerank_passages(ctx.corpus, run.llm, ctx.question, expand_hits(ctx, hits, wide),
                                         strategy.expander.passages_wanted(strategy.top_k))
    run.note(note)
    run.timings["rerank_ms"] = (time.perf_counter() - t0) * 1000
    return passages, []


def _search_within(rt: LoadedSet, qvec: np.ndarray, spans: list[Span], k: int) -> list[Hit]:
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
