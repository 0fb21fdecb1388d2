"""Summary-to-detail: summarise each section once with the local LLM (cached by content hash and model),
search the summaries, then search child chunks only inside the best sections."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from workbench.core.index.embedding import Embedder, embed_cached
from workbench.core.ingest.headings import heading_path_at, section_spans
from workbench.core.jobs import CancelToken, ProgressSink, Reporter
from workbench.core.llm.fences import data_rule, fenced, new_nonce
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.llm.base import Backend, Message
    from workbench.core.retrieve.inputs import Corpus, LLMSource
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.lru import LRU

PROMPT_VERSION = "summary-v3"  # in the cache key: a new prompt never reuses old summaries (v3: fenced)
SECTION_CHARS = 1500
LONG_SECTION_TOKENS = 600
SUMMARY_TOKENS = 160  # room for three sentences
# (chunk set, chunk count, LLM model) → (section spans, their summaries' vectors)
SectionCache: TypeAlias = "LRU[tuple[str, int, str], tuple[list[Span], np.ndarray | None]]"


def summary_messages(title: str, heading: str, text: str, nonce: str | None = None) -> list[Message]:
    """Chat messages asking for a 2–3 sentence summary that keeps the section's key facts and adds none. The
    section (with its document's title and heading) is fenced (``core.llm.fences``) with ``nonce`` (default:
    a keyed hash of it), so its text cannot pose as the instructions."""
    section = f"Document: {title}\nSection: {heading or '(untitled)'}\n\n{text[:SECTION_CHARS]}"
    nonce = nonce or new_nonce(section)
    return [
        {"role": "system", "content": "You summarise a document section in 2–3 plain sentences. Preserve its key "
                                      "facts (names, numbers, prices, dates, conditions, commands) and add none: "
                                      "say nothing that the section does not say. "
                                      + data_rule(nonce, ("section",))},
        {"role": "user", "content": f"{fenced('section', nonce, section)}\n\nSummary:"},
    ]


def sections_of(corpus: Corpus, doc_id: int) -> list[Span]:
    """A document's sections: heading sections, with long or heading-less stretches cut into parents."""
    doc = corpus.document(doc_id)
    out: list[Span] = []
    parents = None
    for start, end in section_spans(doc.headings, len(doc.text)):
        if not doc.text[start:end].strip():
            continue
        if corpus.count_tokens(doc.text[start:end]) <= LONG_SECTION_TOKENS:
            out.append(Span(doc_id, start, end))
            continue
        parents = parents or corpus.parents_of(doc_id, LONG_SECTION_TOKENS // 2)
        out.extend(Span(doc_id, max(a, start), min(b, end)) for a, b in parents if a < end and b > start)
    return out


def section_summaries(
    corpus: Corpus, llm: Backend, doc_ids: list[int], progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
) -> list[tuple[Span, str]]:
    """``(section span, summary)`` for every section, generating only the summaries not cached yet."""
    spans = [s for d in doc_ids for s in sections_of(corpus, d)]
    tick = Reporter(progress, "summarising", len(spans))
    out = []
    for i, span in enumerate(spans):
        doc = corpus.document(span.doc_id)
        text = doc.text[span.start : span.end]
        key = hashlib.sha256(f"{PROMPT_VERSION}\n{text}".encode()).hexdigest()
        summary = corpus.store.caches.llm_cached("summary", key, llm.model)
        if summary is None:
            if cancel is not None:
                cancel.check()
            path = heading_path_at(doc.headings, span.start)
            summary = llm.complete(summary_messages(doc.title, " > ".join(path), text),
                                   max_tokens=SUMMARY_TOKENS).strip()
            summary = summary or " ".join(text.split())[:200]
            corpus.store.caches.put_llm_cached("summary", key, llm.model, summary)
        out.append((span, summary))
        tick(i + 1)
    return out


def top_sections(
    corpus: Corpus, rt: LoadedSet, qvec: np.ndarray, count: int, llm_source: LLMSource, cache: SectionCache,
    progress: ProgressSink | None = None, cancel: CancelToken | None = None, embedder: Embedder | None = None,
) -> tuple[list[Span] | None, str]:
    """The ``count`` sections whose summaries best match the question (summaries embedded by ``embedder``,
    the chunk set's model; None: the corpus's default).

    Section spans and summary vectors are kept in ``cache`` per chunk set and LLM model. Returns
    ``(None, warning)`` when no LLM is available (the search then covers every chunk).
    """
    llm, why = llm_source()
    if llm is None:
        return None, f"summary-to-detail skipped: {why}; searched all chunks"
    key = (rt.info.id, rt.info.chunk_count, llm.model)
    cached = cache.get(key)
    if cached is None:  # summarise and embed the sections once per chunk set and model, not per query
        pairs = section_summaries(corpus, llm, sorted(rt.doc_first_row), progress, cancel)
        texts = []
        for span, summary in pairs:
            doc = corpus.document(span.doc_id)
            texts.append(f"{doc.title} > {' > '.join(heading_path_at(doc.headings, span.start))}: {summary}")
        vectors = embed_cached(corpus.store, embedder or corpus.embedder, texts, cancel=cancel) if texts else None
        cached = cache.put(key, ([span for span, _ in pairs], vectors))
    spans, vectors = cached
    if not spans:
        return None, "summary-to-detail: no sections found; searched all chunks"
    scores = vectors @ qvec
    best = np.argsort(-scores, kind="stable")[:count]
    return [spans[i] for i in best], ""
