"""Whole documents as a later step: hits in documents of at most ``whole_doc_tokens`` tokens return the whole
document, the strategy's own expansion serves the rest (``whole_documents``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from workbench.core.retrieve.knobs import Knob
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.passages import Passage, Window, merge_windows, renumbered
from workbench.core.retrieve.search import Hit
from workbench.core.retrieve.steps.base import Described, Expand, Step, check_not_negative, register_step
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs

WHOLE_DOC_MAX = 100_000


@register_step
@dataclass(frozen=True)
class WholeDocuments(Step):
    """``whole_doc_tokens``: a hit in a document of at most this many tokens returns the whole document (0:
    never)."""

    kind: ClassVar[str] = "whole_documents"
    label: ClassVar[str] = "Whole doc ≤"
    order: ClassVar[int] = 40
    phrase_order: ClassVar[int] = 10
    knobs: ClassVar[tuple[Knob, ...]] = (
        Knob("whole_doc_tokens", "Whole doc ≤", 0, WHOLE_DOC_MAX, 500,
             "Whole documents: a hit in a document of at most this many tokens returns the whole document instead "
             "of its expansion (off = never). Instant.", special="off", suffix=" tok",
             cli_help="return the whole document for hits in documents of at most N tokens (0 = off); longer "
                      "documents use the strategy's expansion"),
    )

    whole_doc_tokens: int = 0

    def __post_init__(self) -> None:
        check_not_negative(self, "whole_doc_tokens")

    @property
    def active(self) -> bool:
        return self.whole_doc_tokens > 0

    def describe(self, strategy: Described) -> str:
        return f"whole documents up to {self.whole_doc_tokens} tokens" if self.active else ""

    def chip(self) -> tuple[str, str] | None:
        return ("whole_doc", f"whole docs ≤{self.whole_doc_tokens} tok") if self.active else None

    @property
    def changes_expansion(self) -> bool:
        return self.active

    def wrap_expansion(self, ctx: SearchInputs, expand: Expand) -> Expand:
        if not self.active:
            return expand
        corpus = ctx.corpus
        return lambda hits: whole_documents(ctx.runtime, hits, lambda d: len(corpus.token_offsets(d)),
                                            lambda d: len(corpus.doc_text(d)), self.whole_doc_tokens, expand)


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
