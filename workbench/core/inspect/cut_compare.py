"""Two loaded chunk sets' cuts compared (``ingest.cut_agreement``): per document and over the documents
both hold, with the reference spans of a question set when given."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.core.ingest.cut_agreement import (
    DEFAULT_WITHIN,
    CutDiff,
    DocumentCuts,
    chunk_cuts,
    combine_diffs,
    compare_cuts,
)
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.spans import Span


def set_cuts(rt: LoadedSet, doc_id: int) -> list[int]:
    """The cuts of document ``doc_id`` in chunk set ``rt`` (none when the set does not hold it)."""
    first, end = rt.doc_rows(doc_id)
    t = rt.table
    return chunk_cuts(list(zip(t.starts[first:end].tolist(), t.ends[first:end].tolist(), strict=True)))


def document_cut_diff(rt_a: LoadedSet, rt_b: LoadedSet, doc_id: int, references: Iterable[Span] = (),
                      within: int = DEFAULT_WITHIN) -> DocumentCuts:
    """Document ``doc_id`` as A and B cut it, with the references inside it."""
    refs = [(s.start, s.end) for s in references if s.doc_id == doc_id]
    return compare_cuts(set_cuts(rt_a, doc_id), set_cuts(rt_b, doc_id), refs, within)


@dataclass(frozen=True)
class SetCutDiff:
    """Per document (by id, in id order) and overall."""

    documents: dict[int, DocumentCuts]
    total: CutDiff


def shared_documents(rt_a: LoadedSet, rt_b: LoadedSet) -> list[int]:
    """The ids of the documents both chunk sets hold (a set scoped to a question set's corpora holds fewer)."""
    return sorted(set(rt_a.doc_first_row) & set(rt_b.doc_first_row))


def set_cut_diff(rt_a: LoadedSet, rt_b: LoadedSet, doc_ids: Sequence[int] | None = None,
                 references: Iterable[Span] = (), within: int = DEFAULT_WITHIN) -> SetCutDiff:
    """Compare the cuts of ``doc_ids`` (default: every document both sets hold)."""
    refs = list(references)
    ids = shared_documents(rt_a, rt_b) if doc_ids is None else list(doc_ids)
    docs = {d: document_cut_diff(rt_a, rt_b, d, refs, within) for d in ids}
    return SetCutDiff(docs, combine_diffs(d.diff for d in docs.values()))
