"""Whole documents for hits in short documents (a strategy's ``whole_doc_tokens``), the strategy's own
expansion for the rest."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.passages import Passage, Window, merge_windows, renumbered
from workbench.core.retrieve.search import Hit
from workbench.core.spans import Span


def whole_documents(
    runtime: LoadedSet, hits: Sequence[Hit], doc_tokens: Callable[[int], int], doc_length: Callable[[int], int],
    limit: int, fallback: Callable[[list[Hit]], list[Passage]],
) -> list[Passage]:
    """The whole document for hits in documents of at most ``limit`` tokens; ``fallback(hits)`` (the
    strategy's own expansion) for the hits in longer documents. Passages keep their best hit's rank."""
    small = [h for h in hits if doc_tokens(h.span.doc_id) <= limit]
    large = [h for h in hits if doc_tokens(h.span.doc_id) > limit]
    windows = [Window(Span(h.span.doc_id, 0, doc_length(h.span.doc_id)), [h], None,
                       [f"whole document ({doc_tokens(h.span.doc_id)} tokens ≤ {limit})"]) for h in small]
    rank_of = {h.chunk_id: h.rank for h in hits}
    passages = merge_windows(windows) + (fallback(large) if large else [])
    passages.sort(key=lambda p: min(rank_of.get(c, p.rank) for c in p.hit_chunk_ids) if p.hit_chunk_ids else p.rank)
    return renumbered(passages)
