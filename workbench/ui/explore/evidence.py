"""Token-level evidence colouring: which retrieved characters were evidence and which were noise.

Against an evaluation question's reference spans, the characters a side retrieved split into **evidence**
(inside some reference span) and **noise** (outside every one); the reference characters it did not
retrieve are **missed**. The same span arithmetic (``core.spans``) gives the side's recall / precision /
IoU (``compare_stats.metrics_line``), so the colours and the numbers always agree:
recall = evidence / (evidence + missed), precision = evidence / (evidence + noise).
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.spans import Span, intersect_spans, subtract_spans
from workbench.ui.basics.theme import EVIDENCE_KINDS

# legend labels (shorter than the swatches' own, which name the whole rule)
EVIDENCE_LABELS = {"evidence": "evidence", "noise": "noise", "missed": "missed reference",
                   "hit_evidence": "hit in a reference", "hit_noise": "hit outside"}


def evidence_spans(retrieved: Sequence[Span], reference: Sequence[Span]) -> dict[str, list[Span]]:
    """``{"evidence": retrieved ∩ reference, "noise": retrieved \\ reference, "missed": reference \\
    retrieved}`` as disjoint sorted spans (all documents)."""
    return {"evidence": intersect_spans(retrieved, reference), "noise": subtract_spans(retrieved, reference),
            "missed": subtract_spans(reference, retrieved)}


def evidence_layers(retrieved: Sequence[Span], reference: Sequence[Span], doc_id: int,
                    kinds: Sequence[str] = EVIDENCE_KINDS) -> dict[str, list[tuple[int, int]]]:
    """The render layers (``kind → [(start, end)]``) of document ``doc_id``: only the ``kinds`` asked for
    (a passage card leaves ``missed`` out: everything in it was retrieved)."""
    spans = evidence_spans([s for s in retrieved if s.doc_id == doc_id],
                           [s for s in reference if s.doc_id == doc_id])
    return {kind: [(s.start, s.end) for s in spans[kind]] for kind in kinds}


def side_legend_kinds(reference: Sequence[Span], quotes: Sequence[Span] = ()) -> list[str]:
    """The kinds a side's results legend names: evidence and noise while reference spans are scored,
    the quoted sentences while an extractive answer quotes some."""
    kinds = (["evidence", "noise", "hit_evidence", "hit_noise", "boundary"] if reference
             else ["hit", "alt", "window", "boundary"])
    return kinds + (["quote"] if quotes else [])
