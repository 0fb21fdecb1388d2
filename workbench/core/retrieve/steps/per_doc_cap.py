"""A per-document cap as a later step: at most ``per_doc_cap`` hits per document, the first-stage search
widened until the cap leaves the hits the strategy wants (``capped_search``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from workbench.core.retrieve.knobs import Knob
from workbench.core.retrieve.search import cap_per_document
from workbench.core.retrieve.steps.base import Run, Search, Step, check_not_negative, register_step

if TYPE_CHECKING:
    from workbench.core.retrieve.search import Hit

CAP_SEARCH_LIMIT = 2000  # the most candidates searched to refill a per-document cap


@register_step
@dataclass(frozen=True)
class PerDocumentCap(Step):
    """``per_doc_cap``: at most this many hits per document (0: no cap)."""

    kind: ClassVar[str] = "per_doc_cap"
    label: ClassVar[str] = "per doc"
    order: ClassVar[int] = 30
    knobs: ClassVar[tuple[Knob, ...]] = (
        Knob("per_doc_cap", "per doc", 0, 20, 1,
             "At most this many hits per document, so one long document cannot take over the context. Instant.",
             special="off", cli_help="at most N hits per document"),
    )

    per_doc_cap: int = 0

    def __post_init__(self) -> None:
        check_not_negative(self, "per_doc_cap")

    @property
    def active(self) -> bool:
        return self.per_doc_cap > 0

    def chip(self) -> tuple[str, str] | None:
        return ("per_doc_cap", f"≤{self.per_doc_cap} per doc") if self.active else None

    def wrap_search(self, run: Run, search: Search) -> Search:
        if not self.active:
            return search

        def capped(k: int) -> list[Hit]:
            hits, note = capped_search(search, k, self.per_doc_cap, len(run.ctx.runtime))
            run.note(note)
            return hits
        return capped


def capped_search(search: Search, k: int, cap: int, total: int, limit: int = CAP_SEARCH_LIMIT,
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
