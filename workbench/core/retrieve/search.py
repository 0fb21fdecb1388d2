"""First-stage search over a chunk set: dense (FAISS), BM25 (FTS5's tokens, scored in memory) and their
fusion (RRF)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.spans import Span


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk: its id, row in the set's table, span, rank (1 = best) and scores."""

    chunk_id: int
    row: int
    span: Span
    rank: int
    score: float
    dense_score: float | None = None
    bm25_score: float | None = None
    first_rank: int = 0  # the first-stage rank before a rerank (0: not reranked)
    cover: tuple[int, int] | None = None  # a coarse hit: the first/last rows of this set it stands for


def dense_search(runtime: LoadedSet, query_vector: np.ndarray, k: int) -> list[Hit]:
    """Top-``k`` chunks by cosine similarity."""
    scores, ids = runtime.index.search(query_vector, k)
    known = runtime.contains(ids)
    scores, ids = scores[known], ids[known]
    rows = runtime.rows_of(ids) if len(ids) else np.zeros(0, dtype=np.int64)
    return [
        Hit(int(cid), int(row), runtime.span(int(row)), rank, float(score), dense_score=float(score))
        for rank, (cid, row, score) in enumerate(zip(ids, rows, scores, strict=True), start=1)
    ]


MAX_QUESTION_CHARS = 2_000  # a question, not a document: longer text makes BM25 crawl (every word a term)


def question_problem(question: str) -> str | None:
    """Why ``question`` cannot be searched (empty, or over ``MAX_QUESTION_CHARS`` characters), else None.

    Checked in core (``run_strategy``), so the GUI, the CLI and evaluation share the rule and the message.
    """
    if not question.strip():
        return "the question is empty"
    if len(question) > MAX_QUESTION_CHARS:
        return (f"the question is {len(question):,} characters long; at most {MAX_QUESTION_CHARS:,} are allowed "
                "(ask a question, not a document)")
    return None


def bm25_search(doc_text: Callable[[int], str], runtime: LoadedSet, question: str, k: int) -> list[Hit]:
    """Top-``k`` chunks of this set by BM25 (``workbench.core.retrieve.lexical``; higher is better)."""
    top = runtime.lexical(doc_text).top(question, k)
    return [
        Hit(runtime.chunk_id(row), row, runtime.span(row), rank, score, bm25_score=score)
        for rank, (row, score) in enumerate(top, start=1)
    ]


def fuse_rrf(
    dense: list[Hit], sparse: list[Hit], k: int, dense_weight: float = 1.0, bm25_weight: float = 1.0,
    rrf_k: int = 60,
) -> list[Hit]:
    """Reciprocal rank fusion: score = Σ weight / (rrf_k + rank); top ``k`` re-ranked."""
    scores: dict[int, float] = {}
    first: dict[int, Hit] = {}
    dense_scores: dict[int, float] = {}
    bm25_scores: dict[int, float] = {}
    for hits, weight, bucket in ((dense, dense_weight, dense_scores), (sparse, bm25_weight, bm25_scores)):
        for hit in hits:
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (rrf_k + hit.rank)
            first.setdefault(hit.chunk_id, hit)
            bucket[hit.chunk_id] = hit.score
    order = sorted(scores, key=lambda cid: (-scores[cid], first[cid].rank, cid))[:k]
    return [
        replace(first[cid], rank=rank, score=scores[cid], dense_score=dense_scores.get(cid),
                bm25_score=bm25_scores.get(cid))
        for rank, cid in enumerate(order, start=1)
    ]


def rerank_hits(hits: list[Hit], order: list[int]) -> list[Hit]:
    """Hits re-ordered by a list of indices into ``hits`` (ranks renumbered, scores and first-stage rank kept)."""
    return [replace(hits[i], rank=rank, first_rank=hits[i].first_rank or hits[i].rank)
            for rank, i in enumerate(order, start=1)]


def cap_per_document(hits: list[Hit], cap: int) -> list[Hit]:
    """At most ``cap`` hits per document (0 = no cap), ranks renumbered."""
    if cap <= 0:
        return hits
    seen: dict[int, int] = {}
    kept = []
    for hit in hits:
        n = seen.get(hit.span.doc_id, 0)
        if n < cap:
            kept.append(hit)
            seen[hit.span.doc_id] = n + 1
    return [replace(h, rank=r) for r, h in enumerate(kept, start=1)]
