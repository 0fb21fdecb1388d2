"""One strategy, end to end: chunk set → candidate search → (rerank) → expansion → assembly."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

import numpy as np

from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve import expand as ex
from workbench.core.retrieve.assemble import Context, assemble
from workbench.core.retrieve.chunk_set import SetRuntime
from workbench.core.retrieve.search import (
    Hit,
    bm25_search,
    cap_per_document,
    dense_search,
    fuse_rrf,
    question_problem,
)
from workbench.core.retrieve.strategies import Strategy, resolve
from workbench.core.spans import Span

_SENTENCE_END = re.compile(r"[.!?…:;][\"'”’)\]]*\s*$")


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
    def passages(self):  # noqa: ANN201
        """Passages sent as context, in rank order."""
        return self.context.passages

    def spans(self) -> list[Span]:
        """The character spans returned (for metrics and diffs)."""
        return [p.span for p in self.context.passages]


def candidate_hits(ws, rt: SetRuntime, question: str, qvec: np.ndarray, strategy: Strategy, k: int) -> list[Hit]:  # noqa: ANN001
    """First-stage hits by the strategy's search mode."""
    if strategy.search == "dense":
        return dense_search(rt, qvec, k)
    sparse = bm25_search(ws.store, rt, question, k if strategy.search == "bm25" else max(k, 20))
    if strategy.search == "bm25":
        return sparse
    dense = dense_search(rt, qvec, max(k, 20))
    return fuse_rrf(dense, sparse, k, strategy.dense_weight, strategy.bm25_weight, strategy.rrf_k)


def expand_hits(ws, rt: SetRuntime, hits: list[Hit], qvec: np.ndarray, strategy: Strategy) -> list[ex.Passage]:  # noqa: ANN001
    """Hits → merged passages by the strategy's expansion (whole documents for short ones when
    ``whole_doc_tokens`` is set)."""
    if strategy.whole_doc_tokens:
        return ex.whole_documents(
            rt, hits, lambda d: len(ws.token_offsets(d)), lambda d: len(ws.doc_text(d)), strategy.whole_doc_tokens,
            lambda rest: expand_hits(ws, rt, rest, qvec, replace(strategy, whole_doc_tokens=0)))
    if strategy.expansion == "neighbours":
        return ex.neighbour_windows(rt, hits, strategy.window, ws.doc_text)
    if strategy.expansion == "tokens":
        return ex.token_windows(rt, hits, strategy.window_tokens, ws.token_offsets, strategy.window_edge, ws.doc_text)
    if strategy.expansion == "parent":
        return ex.parent_windows(rt, hits, lambda d: ws.parents_of(d, strategy.parent_size, strategy.chunk.unit),
                                 strategy.parent_top_k, strategy.parent_merge, ws.doc_text)
    if strategy.expansion == "selective":
        def mid_sentence(span: Span) -> bool:
            return not _SENTENCE_END.search(ws.doc_text(span.doc_id)[max(span.start, span.end - 8) : span.end])

        return ex.selective_windows(rt, hits, qvec, strategy.margin, strategy.merge_gap, strategy.max_steps,
                                    mid_sentence, ws.doc_text)
    return ex.no_expansion(rt, hits)


CAP_SEARCH_LIMIT = 2000  # the most candidates searched to refill a per-document cap


def capped_search(search, k: int, cap: int, total: int, limit: int = CAP_SEARCH_LIMIT) -> tuple[list[Hit], str]:  # noqa: ANN001
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


def window_note(rt: SetRuntime, hits: list[Hit], strategy: Strategy) -> str:
    """A warning when a token window is not larger than the embedded chunks (it then returns just them)."""
    if strategy.expansion != "tokens" or not hits:
        return ""
    largest = max(int(rt.table.tokens[h.row]) for h in hits)
    if strategy.window_tokens > largest:
        return ""
    return (f"the {strategy.window_tokens}-token window is not larger than the hit chunks (up to {largest} "
            "tokens): each passage is just its chunk; use a larger window or smaller chunks")


def with_chunk_tokens(rt: SetRuntime, passages: list[ex.Passage]) -> list[ex.Passage]:
    """Token counts of chunk-aligned passages from the stored per-chunk counts (no re-tokenising).

    Only when the chunk set has no overlap (the chunks then partition the passage's tokens); other
    passages are counted from their text by ``assemble``.
    """
    if rt.info.config.overlap:
        return passages
    out = []
    for p in passages:
        if p.chunk_rows is not None and not p.tokens:
            lo, hi = p.chunk_rows
            p = replace(p, tokens=int(rt.table.tokens[lo : hi + 1].sum()))
        out.append(p)
    return out


def run_strategy(
    ws,  # noqa: ANN001 - workbench.core.workspace.Workspace
    question: str,
    strategy: Strategy | str | dict,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
) -> SearchResult:
    """Run ``strategy`` for ``question``; builds the chunk set first when it does not exist yet."""
    strategy = resolve(strategy)
    problem = question_problem(question)
    if problem:
        raise ValueError(problem)
    timings: dict[str, float] = {}
    warnings: list[str] = []
    t0 = time.perf_counter()
    info = ws.ensure_chunk_set(strategy.chunk, progress, cancel)
    rt = ws.runtime(info.id)
    t1 = time.perf_counter()
    timings["prepare_ms"] = (t1 - t0) * 1000
    qvec = ws.query_vector(question)
    t2 = time.perf_counter()
    timings["embed_ms"] = (t2 - t1) * 1000
    k = strategy.candidates
    restrict = None
    if strategy.summary:
        from workbench.core.retrieve.summaries import top_sections

        restrict, note = top_sections(ws, rt, qvec, strategy, progress, cancel)
        if note:
            warnings.append(note)

    def search(n: int) -> list[Hit]:
        if restrict is not None:
            return _search_within(rt, qvec, restrict, n)
        key = (rt.info.id, question, strategy.search, n, strategy.dense_weight, strategy.bm25_weight,
               strategy.rrf_k)
        cached = ws.hit_cache.get(key) if not strategy.summary else None
        if cached is not None:
            return cached  # only window / top-k / budget / expansion changed: no search at all
        found = candidate_hits(ws, rt, question, qvec, strategy, n)
        if not strategy.summary:
            ws.hit_cache.put(key, found)
        return found

    hits, note = capped_search(search, k, strategy.per_doc_cap, len(rt))
    if note:
        warnings.append(note)
    t3 = time.perf_counter()
    timings["search_ms"] = (t3 - t2) * 1000
    if strategy.rerank == "llm" and not strategy.reranks_parents:
        from workbench.core.retrieve.rerank import llm_rerank

        hits, note = llm_rerank(ws, question, hits, strategy.top_k)
        if note:
            warnings.append(note)
        timings["rerank_ms"] = (time.perf_counter() - t3) * 1000
    if strategy.expansion != "parent":
        hits = hits[: strategy.top_k]
    note = window_note(rt, hits, strategy)
    if note:
        warnings.append(note)
    t4 = time.perf_counter()
    if strategy.reranks_parents:
        from workbench.core.retrieve.rerank import llm_rerank_passages

        wide = replace(strategy, parent_top_k=max(strategy.rerank_candidates, strategy.parent_top_k))
        passages, note = llm_rerank_passages(ws, question, expand_hits(ws, rt, hits, qvec, wide),
                                             strategy.parent_top_k)
        if note:
            warnings.append(note)
        timings["rerank_ms"] = (time.perf_counter() - t4) * 1000
    else:
        passages = expand_hits(ws, rt, hits, qvec, strategy)
    passages = with_chunk_tokens(rt, passages)
    context = assemble(passages, ws.doc_text, ws.count_tokens, strategy.budget)
    timings["expand_ms"] = (time.perf_counter() - t4) * 1000
    timings["total_ms"] = (time.perf_counter() - t0) * 1000
    return SearchResult(question, strategy, info.id, hits, context, timings, warnings)


def _search_within(rt: SetRuntime, qvec: np.ndarray, spans: list[Span], k: int) -> list[Hit]:
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
