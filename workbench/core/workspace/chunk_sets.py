"""The workspace's chunk sets (``ws.sets``): found, estimated, built or brought up to date, and loaded for search
while other threads and processes may be writing the data folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.core.index.build import IngestReport, Situator, build_chunk_set, index_path, sync_index
from workbench.core.index.cluster import Cluster
from workbench.core.index.cut_explain import explain_document
from workbench.core.index.embedder_pool import EmbedderPool
from workbench.core.index.embedding import Embedder
from workbench.core.index.estimate import BuildEstimate, OversizedChunking, estimate_build
from workbench.core.index.locking import FileLock, LockBusy
from workbench.core.index.rates import embedding_rate
from workbench.core.index.snapshot import read_only_snapshot, try_snapshot
from workbench.core.index.vectors import VectorIndex
from workbench.core.ingest.chunkers.cut_explanation import CutExplanation
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.identity import chunk_set_id, chunking_label
from workbench.core.ingest.chunkers.vector_cache import LruVectors
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter, counter_for_model
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import CancelToken, ProgressEvent, ProgressSink
from workbench.core.llm.base import LLMError
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.store import (
    ChunkSetInfo,
    ChunkTable,
    DocumentGone,
    Scope,
    Store,
    StoreError,
    ThreadStores,
    WriteRefused,
)
from workbench.core.workspace.cache import WorkspaceCache

SNAPSHOT_WAIT_S = 600.0  # how long a reader waits for a writer to finish saving a chunk set's vector index

Writing = Callable[[ProgressSink | None], AbstractContextManager[None]]
"""Holds the data folder's writer lock (``Workspace.writing``)."""
SituatorFactory = Callable[[ProgressSink | None, CancelToken | None], Situator]
"""Makes the default situator of a contextual chunk set (the workspace's LLM writes its sentences)."""


class ChunkSets:
    """The chunk sets of one data folder: each is a chunking configuration, an embedding model and a scope.

    It receives what it works with: this thread's store, the folder, the embedding models, the writer lock (and
    how to hold it, with a progress notice), the workspace's one cache, the sentence vectors lent to embedding
    chunkers, and how to make a contextual set's situator.
    """

    def __init__(self, stores: ThreadStores, data_dir: Path, models: EmbedderPool, writer: FileLock,
                 writing: Writing, cache: WorkspaceCache, sentence_vectors: LruVectors,
                 situator: SituatorFactory) -> None:
        self._stores = stores
        self._data_dir = data_dir
        self._models = models
        self._writer = writer
        self._writing = writing
        self._refuse_oversized = False  # refuse_oversized: the command line, unless --yes
        self._cache = cache
        self._sentence_vectors = sentence_vectors
        self._situator = situator
        self.cluster: Cluster | None = None  # set (``--cluster``, Settings): chunk sets are embedded there

    @property
    def _store(self) -> Store:
        return self._stores.get()

    def is_current(self, info: ChunkSetInfo) -> bool:
        """True when a chunk set is ready and covers exactly the stored documents (a scoped set: exactly its
        scope's documents).

        The answer is remembered until documents or chunk sets change (the store's generation counter,
        which cache writes such as question vectors do not move), so a search pays for the check once.
        """
        if info.state != "ready":
            return False
        store = self._store
        version = store.generation()
        key = info.id  # the generation counter lives in the database: the same on every connection
        with self._cache.lock:
            if self._cache.current.get(key) == version:
                return True
        current = store.sets.chunked_docs(info.id) == info.covers(store.documents.document_shas())
        if current:
            with self._cache.lock:
                self._cache.current[key] = version
        return current

    def set_scope(self, scope: Scope | None) -> Scope | None:
        """The scope a chunk set for ``scope`` is built with: None (the folder's own, unscoped set) when there is
        none or it holds exactly the stored documents, which then are the same chunks; else ``scope``. A
        scope naming a document that is not stored is refused (``DocumentGone``)."""
        if scope is None:
            return None
        stored = self._store.documents.document_shas()
        missing = [d for d in scope.doc_ids if d not in stored]
        if missing:
            raise DocumentGone(f"no document {missing[0]} (a scope names documents that are not stored)")
        return None if len(stored) == len(scope) else scope

    def _set_id(self, config: ChunkConfig, model_id: str, scope: Scope | None) -> str:
        return self._id(config, model_id, self.set_scope(scope))

    def _id(self, config: ChunkConfig, model_id: str, scope: Scope | None) -> str:
        """The id of a chunk set over ``scope`` (already through ``set_scope``); an ``edited:NAME`` chunker is
        this folder's hand-made chunking."""
        return chunk_set_id(config, model_id, scope.key if scope else "", self._store.cuts.get)

    def find_chunk_set(self, config: ChunkConfig, model: str | None = "",
                       scope: Scope | None = None) -> ChunkSetInfo | None:
        """The current chunk set for ``config`` and ``model`` (``""``: the default) over ``scope`` (None: every
        stored document), or None when it must be built first."""
        try:
            info = self._store.sets.chunk_set(self._set_id(config, self._models.get(model).model_id, scope))
        except KeyError:
            return None
        return info if self.is_current(info) else None

    def ensure_chunk_set(
        self, config: ChunkConfig, progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        report: IngestReport | None = None, situate: Situator | None = None, model: str | None = "",
        scope: Scope | None = None,
    ) -> ChunkSetInfo:
        """The chunk set for ``config`` and embedding ``model`` (``""``: the default), built or brought up to
        date (reusing cached embeddings). Its chunks are counted with that model's tokenizer (an Ollama model
        has none here: a regular-expression count).

        With ``scope`` the set holds only those documents (``set_scope``: the folder's own set when the scope
        is every stored document), so searching it ranks only them; evaluation scopes its sets to the
        question set's corpora.

        A contextual ``config`` uses ``situate`` to write its sentences (default: the workspace's local LLM).

        While another thread or process is writing to the data folder, a chunk set that was complete
        before is returned as it was (searches see the last complete chunk set instead of waiting).
        """
        embedder = self._models.get(model)
        scope = self.set_scope(scope)
        try:
            info: ChunkSetInfo | None = self._store.sets.chunk_set(self._id(config, embedder.model_id, scope))
        except KeyError:
            info = None
        if info is not None and self.is_current(info):
            return info
        if info is not None and self._writer_busy() and self._has_snapshot(info):
            return info
        if config.contextual and situate is None:
            situate = self._situator(progress, cancel)
        with self._writing(progress):
            counter = counter_for_model(getattr(embedder, "model_path", None))
            if progress is not None or self._refuse_oversized:
                measured = self._say_estimate(config, embedder, counter, progress, scope)
                if report is not None:  # the texts the estimate embedded are this build's work too
                    report.chunks_embedded += measured
            builder = self.cluster.embedder(embedder) if self.cluster is not None else embedder
            info = build_chunk_set(self._store, self._data_dir, config, builder, counter, progress, cancel,
                                   report, situate=situate, vector_cache=self._sentence_vectors, scope=scope)
        self._cache.invalidate(info.id)
        return info

    def explain_cuts(self, config: ChunkConfig, doc: Document, model: str | None = "") -> CutExplanation:
        """Why the chunker of ``config`` (embedding with ``model``) cut ``doc`` where it did: its scores, its
        threshold and its cuts (``index.cut_explain``), from the vectors the build cached (a built set embeds
        nothing). ``ChunkerError`` when the chunker does not explain its cuts."""
        embedder = self._models.get(model)
        counter = counter_for_model(getattr(embedder, "model_path", None))
        return explain_document(config, self._store, embedder, counter, doc, self._sentence_vectors)

    def refuse_oversized(self, refuse: bool = True) -> None:
        """From now on (``refuse``), a build whose chunking would make far more chunks than its size implies
        (``BuildEstimate.oversized``) raises ``OversizedChunking`` before anything is built: the command line
        asks for ``--yes`` first."""
        self._refuse_oversized = refuse

    def searchable_set(self, config: ChunkConfig, progress: ProgressSink | None, cancel: CancelToken | None,
                       model: str | None, scope: Scope | None, warnings: list[str]) -> str:
        """The id of the chunk set a search of ``config`` reads: brought up to date (``ensure_chunk_set``), or,
        when the data folder refuses the writes that needs (a full disk, a read-only folder), as it was last
        complete, with a warning in ``warnings`` (documents added or changed since are not searched)."""
        try:
            return self.ensure_chunk_set(config, progress, cancel, model=model, scope=scope).id
        except WriteRefused as exc:
            scope = self.set_scope(scope)
            set_id = self._id(config, self._models.get(model).model_id, scope)
            try:
                info = self._store.sets.chunk_set(set_id)
            except KeyError:
                raise exc from None
            if not self._has_snapshot(info):
                raise
            reason = str(exc).split(";")[0].split(":")[0]
            warnings.append(f"chunk set {info.id} could not be brought up to date because {reason}; searched as "
                            "it was last complete, without the documents added or changed since")
            return info.id

    def estimate_chunk_set(self, config: ChunkConfig, model: str = "", scope: Scope | None = None) -> BuildEstimate:
        """What building (or bringing up to date) the chunk set of ``config`` and embedding ``model`` over
        ``scope`` (None: every stored document) would cost, before any work: chunks it will hold, texts to
        embed, and seconds on this machine from the model's measured rate (``index.estimate``). Nothing is
        built; before a model's first build a few texts are embedded to measure its rate (their vectors are
        kept for the build)."""
        embedder = self._models.get(model)
        counter = counter_for_model(getattr(embedder, "model_path", None))
        return self._estimate(config, embedder, counter, self.set_scope(scope))

    def _estimate(self, config: ChunkConfig, embedder: Embedder, counter: TokenCounter, scope: Scope | None,
                  reuse: bool = False) -> BuildEstimate:
        """The estimate of a chunk set; with ``reuse``, the one ``estimate_chunk_set`` made last for this set
        while its documents, its chunked documents and the kept rate stay as they were (a caller that
        estimated just before building, such as the advisor, does not pay for the dry run twice)."""
        set_id = self._id(config, embedder.model_id, scope)

        def state() -> tuple[Any, ...]:
            return (tuple(sorted(self._store.documents.document_shas().items())),
                    tuple(sorted(self._store.sets.chunked_docs(set_id).items())),
                    embedding_rate(self._store, embedder.model_id))

        kept = self._cache.estimates.pop(set_id, None)
        if reuse and kept is not None and kept[0] == state():
            return replace(kept[1], measured=0)  # its rate was measured by the call that made it
        estimate = estimate_build(self._store, config, embedder, counter, scope=scope,
                                  vector_cache=self._sentence_vectors)
        if not reuse:  # after the estimate: a first estimate measures and keeps the model's rate
            self._cache.estimates[set_id] = (state(), estimate)
        return estimate

    def _say_estimate(self, config: ChunkConfig, embedder: Embedder, counter: TokenCounter,
                      progress: ProgressSink | None, scope: Scope | None) -> int:
        """Tell ``progress`` what the build about to start will cost (an ``estimate`` notice), when it has
        documents to cut; an estimate that cannot be made says nothing (the build then says why). Returns the
        texts embedded to make it (measuring the model's rate). With ``refuse_oversized``, a chunking making
        far more chunks than its size implies raises ``OversizedChunking`` before anything is built."""
        try:
            estimate = self._estimate(config, embedder, counter, scope, reuse=True)
        except (ChunkerError, LLMError, ValueError):
            return 0
        if self._refuse_oversized and estimate.oversized():
            raise OversizedChunking(estimate.oversize_text(chunking_label(config)))
        if progress is not None and (estimate.to_embed or estimate.seconds >= 1):
            progress(ProgressEvent("estimate", 0, 0, f"{chunking_label(config)}: {estimate.describe()}"))
        return estimate.measured

    def drop_stale_vectors(self) -> None:
        """After documents lost chunks: refresh each ready chunk set's count and FAISS file (the caller holds
        the writer lock)."""
        for info in self._store.sets.chunk_sets():
            if info.state == "ready":
                try:  # a set of a model not open here (or of an Ollama server away) is redone when next used
                    embedder = self._models.by_model_id(info.model_id)
                    self._store.sets.set_state(info.id, "ready" if embedder else "building")
                    if embedder is not None:
                        sync_index(self._store, self._data_dir, info.id, embedder)
                except LLMError:
                    self._store.sets.set_state(info.id, "building")
            self._cache.invalidate(info.id)

    def _writer_busy(self) -> bool:
        """True when another thread or process writes (a store that refuses writes takes no lock)."""
        return self._store.writable and self._writer.is_busy()

    def _has_snapshot(self, info: ChunkSetInfo) -> bool:
        return info.id in self._cache.loaded or index_path(self._data_dir, info.id).exists()

    def runtime(self, set_id: str, progress: ProgressSink | None = None) -> LoadedSet:
        """The chunk set loaded in memory (FAISS verified against the database, rebuilt if needed).

        The FAISS file must match the sha256 recorded when it was written; a damaged or stale file is
        rebuilt from the cached vectors under the writer lock. A loaded set is kept while its chunks and the
        documents they were cut from stay the same (checked when the store's generation moves, in this
        process or another: the cached document texts are then dropped too), else it is loaded again. While
        another thread or process writes, the
        verified file on disk is read (nothing is written), and while the writer is between replacing that
        file and recording its digest this waits for it (``progress`` hears "waiting for another writer…"
        once), for at most ``SNAPSHOT_WAIT_S``.
        On a read-only store a file that does not match its digest is reported as such.
        """
        generation = self._store.generation()
        info = self._store.sets.chunk_set(set_id)
        with self._cache.lock:
            self._cache.observe(generation)  # another process may have changed documents' texts
            rt = self._cache.loaded.get(set_id)
            if rt is not None and rt.generation == generation:
                return rt
            chunked = self._store.sets.chunked_docs(set_id)  # read before the chunks: a change after it reloads
            if rt is not None and (rt.info.chunk_count, rt.info.state, rt.chunked) == (info.chunk_count, info.state,
                                                                                        chunked):
                rt.generation = generation  # the change was elsewhere (another set, other documents)
                return rt
            if not self._store.writable:
                table, index = read_only_snapshot(self._store, self._data_dir, set_id)
            else:
                table, index = self._load_while_writers_work(set_id, info, progress)
            self._cache.invalidate(set_id)  # cached hits hold rows of the previous snapshot
            rt = self._cache.loaded[set_id] = LoadedSet(info, table, index, generation, chunked)
            return rt

    def _load_while_writers_work(self, set_id: str, info: ChunkSetInfo,
                                 progress: ProgressSink | None) -> tuple[ChunkTable, VectorIndex]:
        """The chunks and FAISS index of ``set_id``: synced under the writer lock when it is free, else the
        verified snapshot on disk, waiting while a writer is mid-save (see ``runtime``)."""
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        noticed = False
        while True:
            try:
                with self._writer.held(timeout=0):
                    table = self._store.sets.chunk_table(set_id)
                    embedder = self._models.by_model_id(info.model_id) or self._models.default
                    try:
                        return table, sync_index(self._store, self._data_dir, set_id, embedder)
                    except WriteRefused:  # a full disk: the verified file on disk is the last complete state
                        snapshot = try_snapshot(self._store, self._data_dir, set_id)
                        if snapshot is None:
                            raise
                        return snapshot
            except LockBusy:
                pass
            snapshot = try_snapshot(self._store, self._data_dir, set_id)
            if snapshot is not None:
                return snapshot
            if time.monotonic() > deadline:
                raise StoreError(f"another process has been writing chunk set {set_id} for over "
                                 f"{SNAPSHOT_WAIT_S:.0f} s and its vector index is not complete yet; nothing "
                                 "was lost. Try again when it has finished.")
            if not noticed and progress is not None:
                who = self._writer.holder_pid()
                progress(ProgressEvent("waiting", 0, 0, "waiting for another writer"
                                       + (f" (pid {who})" if who else "") + "…"))
                noticed = True
            time.sleep(0.1)
