"""Boundary diagnostics (``ingest.chunk_diagnostics``) of a loaded chunk set: for one document or the
whole set, with reference spans when a question set gives them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from workbench.core.ingest.chunk_diagnostics import (
    BoundaryCounts,
    ChunkDiagnostics,
    ChunkedText,
    combine,
    document_counts,
    sentence_ends,
    split_references,
    summarise,
)
from workbench.core.ingest.documents import Document
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.spans import Span


def chunked_text(rt: LoadedSet, doc_id: int, doc: Document, references: Iterable[Span] = ()) -> ChunkedText:
    """Document ``doc_id`` (``doc``) as the chunk set ``rt`` cut it, with the references inside it."""
    first, end = rt.doc_rows(doc_id)
    t = rt.table
    chunks = list(zip(t.starts[first:end].tolist(), t.ends[first:end].tolist(), strict=True))
    headings = [(h.start, h.end) for h in doc.headings]
    return ChunkedText(doc.text, chunks, t.tokens[first:end].tolist(), sentence_ends(doc.text, headings),
                       headings, [(s.start, s.end) for s in references if s.doc_id == doc_id])


def document_boundary_counts(rt: LoadedSet, doc_id: int, doc: Document,
                             references: Iterable[Span] = ()) -> BoundaryCounts:
    """The raw boundary counts of one document of the chunk set."""
    return document_counts(chunked_text(rt, doc_id, doc, references))


def document_diagnostics(rt: LoadedSet, doc_id: int, doc: Document, references: Iterable[Span] = (),
                         bins: int = 12) -> ChunkDiagnostics:
    """The diagnostics of one document of the chunk set ``rt``."""
    return summarise(document_boundary_counts(rt, doc_id, doc, references), bins)


def set_diagnostics(rt: LoadedSet, document: Callable[[int], Document], references: Iterable[Span] = (),
                    bins: int = 12) -> ChunkDiagnostics:
    """The diagnostics of every document of the chunk set ``rt`` together (``document`` reads one by id)."""
    refs = list(references)
    doc_ids = sorted(rt.doc_first_row)
    return summarise(combine(document_boundary_counts(rt, d, document(d), refs) for d in doc_ids), bins)


def reference_splits(rt: LoadedSet, document: Callable[[int], Document],
                     references: Iterable[Span]) -> tuple[int, int]:
    """``(reference spans, those no single chunk of rt contains)`` over the documents they name (cheaper
    than ``set_diagnostics`` when only the references changed)."""
    by_doc: dict[int, list[tuple[int, int]]] = {}
    for s in references:
        by_doc.setdefault(s.doc_id, []).append((s.start, s.end))
    total = split = 0
    for doc_id, spans in sorted(by_doc.items()):
        first, end = rt.doc_rows(doc_id)
        chunks = list(zip(rt.table.starts[first:end].tolist(), rt.table.ends[first:end].tolist(), strict=True))
        n, k = split_references(document(doc_id).text, chunks, spans)
        total, split = total + n, split + k
    return total, split
