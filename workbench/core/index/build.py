"""Indexing jobs: files → documents in the store; documents → a chunk set with embeddings and FAISS.

Both are plain functions taking a progress sink and a cancel token. Each document's chunks are written
in one transaction, and the FAISS file is synchronised with the database at the end (and on open), so a
crash or a cancel at any point leaves a consistent store that the next run completes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import Embedder, EmbedMeter, embed_cached, model_max_tokens, text_hash
from workbench.core.index.heading_prefix import heading_prefix
from workbench.core.index.rates import embedding_rate, keep_rate
from workbench.core.index.vectors import APPROX_THRESHOLD, VectorIndex
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.discovery import discover
from workbench.core.ingest.documents import MAX_FILE_MB, Document, LoadResult, load_file
from workbench.core.ingest.filenames import fs_path, is_inside, shown
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig, ChunkPiece
from workbench.core.jobs import CancelToken, JobPlan, ProgressEvent, ProgressSink, Reporter
from workbench.core.store import ChunkSetInfo, Scope, Store

FLUSH_CHUNKS = 1024


@dataclass
class IngestReport:
    """What happened to each file of an indexing run (every file found is in exactly one of added, updated,
    unchanged, moved, skipped or failed; ``removed`` lists stored documents whose files are gone)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[LoadResult] = field(default_factory=list)
    failed: list[LoadResult] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (old path, new path)
    chunks_added: int = 0
    chunks_total: int = 0
    chunks_embedded: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)
    chunks_dropped: bool = False  # documents lost chunks: FAISS files need the stale ids taken out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "added": len(self.added), "updated": len(self.updated), "unchanged": len(self.unchanged),
            "removed": list(self.removed), "moved": [{"from": a, "to": b} for a, b in self.moved],
            "skipped": [{"path": r.path, "reason": r.reason} for r in self.skipped],
            "failed": [{"path": r.path, "reason": r.reason} for r in self.failed],
            "chunks_added": self.chunks_added, "chunks_total": self.chunks_total,
            "chunks_embedded": self.chunks_embedded, "seconds": round(self.seconds, 3),
            "cancelled": self.cancelled, "warnings": list(self.warnings),
        }


def _file_is_gone(key: str) -> bool:
    """True when nothing is at a stored document's path any more (an unreadable folder is not 'gone')."""
    try:
        os.lstat(fs_path(key))
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def ingest_files(
    store: Store, paths: list[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
    report: IngestReport | None = None, max_file_mb: float = MAX_FILE_MB, follow_links: bool = False,
    keep_earlier: bool = False,
) -> IngestReport:
    """Load files and folders into the store; bad files are recorded with their reason and skipped.

    Each folder named is reconciled with the store: documents under it whose files are gone (or that lie
    under a link to outside it that is no longer followed) are removed, or moved when a new file there has the
    same content (chunks and vectors kept); a file that is no longer indexed (it now fails or is skipped) loses
    its stored document, unless it was skipped only for being over ``max_file_mb`` or ``keep_earlier`` is given
    (its earlier version stays: an import that fails on it then changes nothing). A file outside a folder reached
    through a link in it is stored under the link's place in the folder (``discovery``), so it is reconciled with
    the folder. Problems are recorded under the same keys as documents and forgotten once a file is indexed or
    gone.
    """
    report = report or IngestReport()
    found = discover(paths, follow_links=follow_links)
    results: list[LoadResult] = list(found.problems)
    tick = Reporter(progress, "reading", len(found.files))
    for i, path in enumerate(found.files):
        if cancel is not None:
            cancel.check()
        results.append(load_file(path, max_file_mb, key=found.key(path)))
        tick(i + 1, shown(path.name))
    loaded = {r.document.path for r in results if r.document is not None}
    stored = store.documents.rows()
    gone = [d for d in stored if any(is_inside(d["path"], f) for f in found.folders) and d["path"] not in loaded
            and (_file_is_gone(d["path"]) or any(is_inside(d["path"], link) and d["path"] != link
                                                 for link in found.unfollowed))]
    movable: dict[str, list[dict[str, Any]]] = {}
    for d in gone:
        movable.setdefault(d["sha256"], []).append(d)
    by_path = {d["path"]: d for d in stored}
    for result in results:
        doc = result.document
        if doc is None:
            earlier = by_path.get(result.path) if result.record else None
            if earlier is not None and earlier not in gone and (result.too_large or keep_earlier):
                # a size limit says nothing about the file: what was indexed of it stays, as it was
                result = replace(result, reason=f"{result.reason}; its earlier version stays indexed")
            elif earlier is not None and earlier not in gone:
                store.documents.remove_document(earlier["id"])
                report.chunks_dropped = True
                result = replace(result, reason=f"{result.reason}; its earlier version was removed from the index")
            (report.failed if result.status == "failed" else report.skipped).append(result)
            if result.record:
                store.documents.record_problem(result.path, result.status, result.reason)
            continue
        existed = doc.path in by_path
        candidates = movable.get(doc.sha256) if not existed else None
        if candidates:
            old = candidates.pop(0)
            gone.remove(old)
            report.chunks_dropped |= store.documents.move_document(old["id"], doc)
            report.moved.append((old["path"], doc.path))
            continue
        _, changed = store.documents.upsert_document(doc)
        if not changed:
            store.documents.clear_problem(doc.path)
        target = report.unchanged if not changed else (report.updated if existed else report.added)
        target.append(doc.path)
    for d in gone:
        store.documents.remove_document(d["id"])
        report.removed.append(d["path"])
        report.chunks_dropped = True
    recorded = {r.path for r in results if r.document is None and r.record}
    stale = [p["path"] for p in store.documents.problems()
             if not os.path.isabs(p["path"])  # recorded by older versions under the path as typed
             or (p["path"] not in recorded and any(is_inside(p["path"], f) for f in found.folders))]
    store.documents.forget_problems(stale)
    return report


def index_path(data_dir: Path, set_id: str) -> Path:
    """Where the FAISS file of a chunk set lives."""
    return Path(data_dir) / "indexes" / f"{set_id}.faiss"


Situator = Callable[[Document, Sequence[ChunkPiece]], list[str]]


def embedded_texts(
    doc: Document, pieces: Sequence[ChunkPiece], config: ChunkConfig, situate: Situator | None = None,
) -> tuple[list[str], list[str]]:
    """(prefixes, embedded texts) of a document's chunks under ``config``.

    The prefix is the heading path (``heading_prefix``) and/or the LLM's situating sentence
    (``contextual``, from ``situate``); the chunk's span and display text never change.
    """
    prefixes = [heading_prefix(doc.title, p.heading_path) if config.heading_prefix else "" for p in pieces]
    if config.contextual:
        if situate is None:
            raise ValueError("contextual retrieval needs a local LLM (embedded or Ollama) to write the sentences")
        sentences = situate(doc, pieces)
        prefixes = [f"{sentence.strip()} {pre}".strip() + " " if sentence.strip() or pre else ""
                    for sentence, pre in zip(sentences, prefixes, strict=True)]
    return prefixes, [pre + doc.text[p.start : p.end] for pre, p in zip(prefixes, pieces, strict=True)]


def build_chunk_set(
    store: Store,
    data_dir: Path,
    config: ChunkConfig,
    embedder: Embedder,
    counter: TokenCounter,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
    report: IngestReport | None = None,
    situate: Situator | None = None,
    vector_cache: MutableMapping[str, np.ndarray] | None = None,
    scope: Scope | None = None,
) -> ChunkSetInfo:
    """Bring the chunk set for ``config`` up to date with the stored documents (those of ``scope`` only, when
    given: a scoped set), then mark it ready.

    Documents are cut in groups of up to ``GROUP_CHARS`` characters: an embedding chunker's texts (sentence
    windows, small pieces) of a whole group are embedded in one batched job first. The time the model took
    is kept as this machine's embedding rate for the model (``estimate.keep_rate``), which the next cost
    estimate reads. ``vector_cache``: the in-memory vector cache lent to an embedding chunker.
    """
    report = report or IngestReport()
    info = store.sets.ensure_chunk_set_row(config, embedder.model_id, scope)
    shas = info.covers(store.documents.document_shas())
    chunked = store.sets.chunked_docs(info.id)
    for doc_id in [d for d, sha in chunked.items() if shas.get(d) != sha]:
        store.sets.drop_doc_from_set(info.id, doc_id)
    todo = [d for d, sha in shas.items() if chunked.get(d) != sha]
    if todo or info.state != "ready":
        store.sets.set_state(info.id, "building")
    sizes = store.documents.document_sizes(todo)
    plan = BuildPlan(progress, sum(sizes.values()), embedding_rate(store, embedder.model_id))
    tick = Reporter(plan.cutting, "chunking", len(todo))
    pending: list[tuple[Document, list[Any], list[str], list[str], list[int], list[str]]] = []
    started = time.perf_counter()
    meter = EmbedMeter()
    cutter = SetCutter(config, store, embedder, counter, vector_cache=vector_cache, meter=meter)

    def flush() -> None:
        texts = [t for item in pending for t in item[3]]
        hashes = [h for item in pending for h in item[5]]
        before = getattr(embedder, "texts_encoded", 0)

        def embed_progress(ev: ProgressEvent) -> None:
            plan.embedding(ProgressEvent("embedding", ev.done, ev.total, f"{report.chunks_added + ev.done} chunks",
                                         time.perf_counter() - started, plan.embedded_share(len(texts), ev)))

        embed_cached(store, embedder, texts, hashes, progress=embed_progress, cancel=cancel, meter=meter)
        plan.flushed(len(texts))
        report.chunks_embedded += getattr(embedder, "texts_encoded", 0) - before
        offset = 0
        for doc, pieces, prefixes, texts_, tokens, _ in pending:
            store.sets.replace_doc_chunks(info.id, doc, pieces, prefixes, hashes[offset : offset + len(texts_)], tokens)
            offset += len(texts_)
            report.chunks_added += len(pieces)
        pending.clear()

    failed: list[tuple[Document, ChunkerError]] = []
    done = 0
    for group in document_groups(todo, sizes):
        if cancel is not None:
            cancel.check()
        docs = [store.documents.document(doc_id) for doc_id in group]
        cutter.prepare(docs, plan.cutting, cancel)
        for doc in docs:
            if cancel is not None:
                cancel.check()
            done += 1
            try:
                pieces = cutter.pieces(doc)
            except ChunkerError as exc:  # one document a library cannot cut does not stop the others
                failed.append((doc, exc))
                tick(done, Path(doc.path).name)
                continue
            prefixes, texts = embedded_texts(doc, pieces, config, situate)
            tokens = _token_counts(counter, [doc.text[p.start : p.end] for p in pieces])
            keys = cutter.vector_keys(doc, pieces, cancel) or [text_hash(t) for t in texts]
            pending.append((doc, pieces, prefixes, texts, tokens, keys))
            plan.cut(len(doc.text), len(texts))
            if sum(len(p[1]) for p in pending) >= FLUSH_CHUNKS:
                flush()
            tick(done, Path(doc.path).name)
    if pending:
        flush()
    if failed:
        leave_out(store, info.id, failed, report)
    if not getattr(embedder, "elsewhere", False):  # a cluster's timings are not this machine's rate
        keep_rate(store, embedder.model_id, meter)
    sync_index(store, data_dir, info.id, embedder, cancel=cancel)
    store.sets.set_state(info.id, "ready")
    final = store.sets.chunk_set(info.id)
    report.chunks_total = final.chunk_count
    note = truncation_warning(store, info.id, getattr(embedder, "model_path", None))
    if note:
        report.warnings.append(note)
    return final


CUT_CHARS_PER_S = 2_000_000  # about how fast documents are cut (weighs cutting against embedding)
UNMEASURED_CHARS_PER_S = 20_000  # the embedding rate assumed before this machine measured one


class BuildPlan:
    """A chunk-set build's progress as one share that never goes down: cutting, then embedding (interleaved
    in flushes), weighted by their estimated seconds (characters to cut at ``CUT_CHARS_PER_S``, to embed at
    the model's measured rate). The embedded share is the texts embedded of those the whole build is expected
    to make (the texts cut so far, scaled by the characters still to cut)."""

    def __init__(self, progress: ProgressSink | None, chars: int, rate: float | None) -> None:
        self._plan = JobPlan(progress, [("cutting", chars / CUT_CHARS_PER_S),
                                        ("embedding", chars / (rate or UNMEASURED_CHARS_PER_S))])
        self.cutting = self._plan.stage("cutting")
        self.embedding = self._plan.stage("embedding")
        self.chars = chars
        self._chars_cut = 0
        self._texts_cut = 0
        self._texts_flushed = 0

    def cut(self, chars: int, texts: int) -> None:
        """One more document cut into ``texts`` texts to embed."""
        self._chars_cut += chars
        self._texts_cut += texts

    def flushed(self, texts: int) -> None:
        """A flush's ``texts`` are embedded (or were cached)."""
        self._texts_flushed += texts

    def embedded_share(self, flush_texts: int, event: ProgressEvent) -> float:
        """The build's embedded share during a flush of ``flush_texts`` texts (``event``: its embedding)."""
        expected = self._texts_cut * max(1.0, self.chars / max(1, self._chars_cut))
        now = self._texts_flushed + flush_texts * event.fraction
        return min(1.0, now / expected) if expected else 0.0


GROUP_CHARS = 2_000_000  # documents cut together (their embedding chunker's texts embedded in one job)


def document_groups(doc_ids: Sequence[int], sizes: dict[int, int], limit: int = GROUP_CHARS) -> list[list[int]]:
    """``doc_ids`` in order, in consecutive groups of at most ``limit`` characters (a longer document alone)."""
    groups: list[list[int]] = []
    size = 0
    for doc_id in doc_ids:
        chars = sizes.get(doc_id, 0)
        if not groups or size + chars > limit:
            groups.append([])
            size = 0
        groups[-1].append(doc_id)
        size += chars
    return groups


def leave_out(store: Store, set_id: str, failed: Sequence[tuple[Document, ChunkerError]], report: IngestReport) -> None:
    """Record documents the chunker failed on as cut into no chunks (until their text or the chunker
    changes), each with a warning naming chunker, document and reason. When the set holds no chunk at all
    the chunker, not a document, is at fault: its first error is raised and nothing is recorded."""
    if not len(store.sets.chunk_ids(set_id)):
        raise failed[0][1]
    for doc, exc in failed:
        store.sets.replace_doc_chunks(set_id, doc, [], [], [], [])
        report.warnings.append(f"{exc}; the document is left out of this chunk set")


def truncation_warning(store: Store, set_id: str, model_path: str | None) -> str | None:
    """A warning when chunks (with their embedded prefix) are longer than the model reads."""
    limit = model_max_tokens(model_path)
    if not limit:
        return None
    longer = store.sets.count_chunks_longer_than(set_id, limit - 2)
    if not longer:
        return None
    return (f"{longer} chunk(s) are longer than the embedding model reads ({limit} tokens): their ends are not "
            "embedded, so text there cannot be found by dense search (use smaller chunks)")


def _token_counts(counter: TokenCounter, texts: list[str]) -> list[int]:
    many = getattr(counter, "count_many", None)
    return many(texts) if many else [counter.count(t) for t in texts]


def chunk_texts(store: Store, set_id: str, ids: np.ndarray) -> tuple[list[str], list[str]]:
    """(embedded texts, hashes) of chunks, read back from their spans and prefixes."""
    texts, hashes = [], []
    docs: dict[int, str] = {}
    for doc_id, start, end, prefix, h in store.sets.chunk_spans([int(x) for x in ids]):
        if doc_id not in docs:
            docs[doc_id] = store.documents.document(doc_id).text
        texts.append(prefix + docs[doc_id][start:end])
        hashes.append(h)
    return texts, hashes


def sync_index(
    store: Store, data_dir: Path, set_id: str, embedder: Embedder, cancel: CancelToken | None = None,
    rebuild: bool = False,
) -> VectorIndex:
    """Make the FAISS file hold exactly the set's chunk ids (from cached vectors), saving if it changed.

    A file whose sha256 matches no recorded digest is rebuilt from the cached vectors.
    """
    path = index_path(data_dir, set_id)
    db_ids = store.sets.chunk_ids(set_id)
    index: VectorIndex | None = None
    checksums = store.sets.index_checksums(set_id)
    if not rebuild and checksums:  # a file with no recorded digest (older versions) is rebuilt once
        try:
            index = VectorIndex.load(path, checksums)
        except ValueError:  # missing, unreadable or damaged (IndexDamaged): rebuilt from cached vectors
            index = None
    if index is not None and np.array_equal(index.ids(), db_ids) and index.kind == VectorIndex.kind_for(len(db_ids)):
        return index  # (a file of the kind an older threshold chose is built again, once)
    if index is not None and index.kind == "flat" and len(db_ids) <= APPROX_THRESHOLD:  # else built anew (kind chosen)
        held = index.ids()
        stale = np.setdiff1d(held, db_ids)
        if len(stale):
            index.index.remove_ids(stale)
        new = np.setdiff1d(db_ids, held)
    else:
        index, new = None, db_ids
    texts, hashes = chunk_texts(store, set_id, new)
    vectors = embed_cached(store, embedder, texts, hashes, cancel=cancel)
    if index is None:
        index = VectorIndex.build(new, vectors, embedder.dim)
    elif len(new):
        index.index.add_with_ids(np.ascontiguousarray(vectors), new)
    save_index(store, index, path, set_id)
    return index


def save_index(store: Store, index: VectorIndex, path: Path, set_id: str) -> str:
    """Write a chunk set's FAISS file and record its sha256 (before the rename, keeping the previous
    digest valid until the new file is in place, so no reader or crash sees an unrecorded file)."""
    store.check_writable()
    digest = index.save(path, before_rename=lambda sha, size: store.sets.prepare_index_file(set_id, sha, size))
    store.sets.commit_index_file(set_id)
    return digest
