"""The workspace: one data folder (SQLite store + FAISS files) with its embedders and in-memory caches.

A chunk set is a chunking configuration and an embedding model: the workspace has a default model
(``--model`` / Settings) and opens any other one a strategy names (``Strategy.model``) on first use.

The CLI, the GUI and the evaluation lab all go through this one facade, so they run the same core calls.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from workbench.core.data_folder import resolve_data_dir
from workbench.core.index.build import (
    IngestReport,
    Situator,
    build_chunk_set,
    ingest_files,
    sync_index,
)
from workbench.core.index.embedder_pool import EmbedderPool
from workbench.core.index.embedding import Embedder
from workbench.core.index.estimate import BuildEstimate, estimate_build
from workbench.core.index.locking import FileLock
from workbench.core.index.rates import embedding_rate
from workbench.core.index.removal import remove_under
from workbench.core.ingest.chunkers.choice import chunker_spec
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.vector_cache import LruVectors
from workbench.core.ingest.chunking import ChunkConfig
from workbench.core.ingest.tokens import TokenCounter, counter_for_model
from workbench.core.jobs import CancelToken, ProgressEvent, ProgressSink
from workbench.core.llm.base import Backend, LLMError
from workbench.core.llm.open import pipeline_backend
from workbench.core.retrieve.corpus_lookups import CorpusLookups
from workbench.core.retrieve.inputs import SearchInputs
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.pipeline import Retriever, SearchResult
from workbench.core.retrieve.search import question_problem
from workbench.core.retrieve.strategies import Strategy
from workbench.core.store import DB_NAME, ChunkSetInfo, DocumentGone, Scope, Store
from workbench.core.workspace_loading import SetLoading
from workbench.core.workspace_questions import QuestionBank
from workbench.core.workspace_records import StoredRecords


class Workspace(StoredRecords, SetLoading, CorpusLookups):
    """A data folder opened for indexing and searching."""

    def __init__(
        self, data_dir: str | os.PathLike[str] | None = None, embedder: Embedder | None = None,
        model_path: str | None = None,
    ) -> None:
        self.data_dir = resolve_data_dir(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = self.data_dir / DB_NAME
        self._local = threading.local()
        self._lock = threading.RLock()
        self.models = EmbedderPool(embedder, model_path)  # the default embedder and one per other model
        self._runtimes: dict[str, LoadedSet] = {}
        self._init_lookups()
        self.writer = FileLock(self.data_dir / "write.lock")
        self.retriever = Retriever()  # runs strategies; owns the hit cache and the section cache
        self._estimates: dict[str, tuple[Any, BuildEstimate]] = {}  # set id → (its state, the last estimate)
        self.sentence_vectors = LruVectors()  # lent to every embedding chunker built here (model|text → vector)
        self._current: dict[str, int] = {}
        self._generation_seen = -1  # the store generation the cached document texts belong to
        self.store  # open (and migrate) now so errors surface at once  # noqa: B018
        # The question sets stored here (documents read fresh: a reference is checked against the stored text).
        self.questions = QuestionBank(lambda: self.store, lambda doc_id: self.store.document(doc_id))
        self.llm: Backend | None = None  # an answering backend, used by LLM rerank and summaries when set
        # How ws.llm is opened on first use (the GUI's Settings choice); None: 'auto'.
        self.llm_opener: Callable[[], Backend] | None = None

    # ----- the LLM of the pipeline steps -------------------------------------------------------
    def use_llm(self, opener: Callable[[], Backend] | None) -> None:
        """Open the pipeline steps' LLM (rerank, summaries, contextual sentences) with ``opener`` from now on
        (None: 'auto'); a backend opened before is dropped, the next step opens the new one."""
        self.llm = None
        self.llm_opener = opener

    def pipeline_llm(self) -> tuple[Backend | None, str]:
        """The pipeline steps' backend, opened on first use with ``llm_opener``; (None, reason) when there is
        no generative model."""
        if self.llm is None:
            llm, why = pipeline_backend(self.llm_opener)
            if llm is None:
                return None, why
            self.llm = llm
        return self.llm, ""

    # ----- plumbing --------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """This thread's connection to the store."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.db_path)
            self._local.store = store
        return store

    @property
    def embedder(self) -> Embedder:
        """The default embedding model (created on first use; its weights load lazily on first encode)."""
        return self.models.default

    def embedder_for(self, model: str | None = "") -> Embedder:
        """The embedder of a model spec (``""``: the default; ``ollama:NAME``; a local folder), opened once."""
        return self.models.get(model)

    @property
    def counter(self) -> TokenCounter:
        """Token counter of the default embedding model's tokenizer."""
        return counter_for_model(getattr(self.embedder, "model_path", None))

    def close(self) -> None:
        """Close this thread's store connection."""
        store = getattr(self._local, "store", None)
        if store is not None:
            store.close()
            self._local.store = None

    @contextmanager
    def writing(self, progress: ProgressSink | None = None) -> Iterator[None]:
        """Hold the data folder's writer lock (refused at once when the store cannot be written).

        While another thread or process writes, ``progress`` hears "waiting for another writer (pid N)…"
        once, after half a second of waiting.
        """
        self.store.check_writable()

        def waiting(pid: int | None) -> None:
            if progress is not None:
                who = f" (pid {pid})" if pid else ""
                progress(ProgressEvent("waiting", 0, 0, f"waiting for another writer{who}…"))

        with self.writer.held(on_wait=waiting):
            yield

    def _writer_busy(self) -> bool:
        """True when another thread or process writes (a store that refuses writes takes no lock)."""
        return self.store.writable and self.writer.is_busy()

    # ----- indexing --------------------------------------------------------------------------
    def add_paths(
        self, paths: Sequence[str], config: ChunkConfig | None = None, progress: ProgressSink | None = None,
        cancel: CancelToken | None = None, max_file_mb: float | None = None, follow_links: bool = False,
    ) -> IngestReport:
        """Load files into the store and bring the chunk set for ``config`` up to date.

        Folders are reconciled (see ``ingest_files``); links to outside a folder are followed only with
        ``follow_links``.
        """
        started = time.perf_counter()
        with self.writing(progress):
            if max_file_mb is None:
                report = ingest_files(self.store, list(paths), progress, cancel, follow_links=follow_links)
            else:
                report = ingest_files(self.store, list(paths), progress, cancel, follow_links=follow_links,
                                      max_file_mb=max_file_mb)
            self._forget_documents()
            if report.chunks_dropped:
                self._drop_stale_vectors()
            info = self.ensure_chunk_set(config or ChunkConfig(), progress, cancel, report=report)
            report.chunks_total = info.chunk_count
        report.seconds = time.perf_counter() - started
        return report

    def add_documents(
        self, paths: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        max_file_mb: float | None = None,
    ) -> IngestReport:
        """Load files into the store without building or changing any chunk set (evaluation stores a question
        set's corpora this way and builds chunk sets scoped to them; the folder's own sets catch up with the new
        documents when they are next used)."""
        started = time.perf_counter()
        with self.writing(progress):
            if max_file_mb is None:
                report = ingest_files(self.store, list(paths), progress, cancel)
            else:
                report = ingest_files(self.store, list(paths), progress, cancel, max_file_mb=max_file_mb)
            self._forget_documents()
            if report.chunks_dropped:
                self._drop_stale_vectors()
        report.seconds = time.perf_counter() - started
        return report

    def remove_document(self, doc_id: int) -> None:
        """Delete a document and take its chunks out of every ready chunk set's FAISS file."""
        with self.writing():
            self.store.remove_document(doc_id)
            self._forget_documents()
            self._drop_stale_vectors()

    def remove_paths(self, paths: Sequence[str]) -> list[str]:
        """Take the documents at or under each path (on disk or gone from it) out of the store, and the
        problems recorded there (``removal.remove_under``); returns the removed documents' paths."""
        with self.writing():
            removed = remove_under(self.store, paths)
            self._forget_documents()
            self._drop_stale_vectors()
        return removed

    def _drop_stale_vectors(self) -> None:
        """After documents lost chunks: refresh each ready chunk set's count and FAISS file (writer held)."""
        for info in self.store.chunk_sets():
            if info.state == "ready":
                try:  # a set of a model not open here (or of an Ollama server away) is redone when next used
                    embedder = self.models.by_model_id(info.model_id)
                    self.store.set_state(info.id, "ready" if embedder else "building")
                    if embedder is not None:
                        sync_index(self.store, self.data_dir, info.id, embedder)
                except LLMError:
                    self.store.set_state(info.id, "building")
            with self._lock:
                self._runtimes.pop(info.id, None)
        self.retriever.forget_hits()

    def _forget_documents(self) -> None:
        self.retriever.forget_sections()
        self._forget_lookups()

    def is_current(self, info: ChunkSetInfo) -> bool:
        """True when a chunk set is ready and covers exactly the stored documents (a scoped set: exactly its
        scope's documents).

        The answer is remembered until documents or chunk sets change (the store's generation counter,
        which cache writes such as question vectors do not move), so a search pays for the check once.
        """
        if info.state != "ready":
            return False
        store = self.store
        version = store.generation()
        key = info.id  # the generation counter lives in the database: the same on every connection
        with self._lock:
            if self._current.get(key) == version:
                return True
        current = store.chunked_docs(info.id) == info.covers(store.document_shas())
        if current:
            with self._lock:
                self._current[key] = version
        return current

    def set_scope(self, scope: Scope | None) -> Scope | None:
        """The scope a chunk set for ``scope`` is built with: None (the folder's own, unscoped set) when there is
        none or it holds exactly the stored documents, which then are the same chunks; else ``scope``. A
        scope naming a document that is not stored is refused (``DocumentGone``)."""
        if scope is None:
            return None
        stored = self.store.document_shas()
        missing = [d for d in scope.doc_ids if d not in stored]
        if missing:
            raise DocumentGone(f"no document {missing[0]} (a scope names documents that are not stored)")
        return None if len(stored) == len(scope) else scope

    def _set_id(self, config: ChunkConfig, model_id: str, scope: Scope | None) -> str:
        scope = self.set_scope(scope)
        return config.set_id(model_id, scope.key if scope else "")

    def find_chunk_set(self, config: ChunkConfig, model: str | None = "",
                       scope: Scope | None = None) -> ChunkSetInfo | None:
        """The current chunk set for ``config`` and ``model`` (``""``: the default) over ``scope`` (None: every
        stored document), or None when it must be built first."""
        try:
            info = self.store.chunk_set(self._set_id(config, self.embedder_for(model).model_id, scope))
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
        embedder = self.embedder_for(model)
        scope = self.set_scope(scope)
        try:
            info: ChunkSetInfo | None = self.store.chunk_set(config.set_id(embedder.model_id,
                                                                           scope.key if scope else ""))
        except KeyError:
            info = None
        if info is not None and self.is_current(info):
            return info
        if info is not None and self._writer_busy() and self._has_snapshot(info):
            return info
        if config.contextual and situate is None:
            from workbench.core.index.situating import make_situator

            situate = make_situator(self, progress=progress, cancel=cancel)
        with self.writing(progress):
            counter = counter_for_model(getattr(embedder, "model_path", None))
            if progress is not None:
                measured = self._say_estimate(config, embedder, counter, progress, scope)
                if report is not None:  # the texts the estimate embedded are this build's work too
                    report.chunks_embedded += measured
            info = build_chunk_set(self.store, self.data_dir, config, embedder, counter, progress, cancel, report,
                                   situate=situate, vector_cache=self.sentence_vectors, scope=scope)
        with self._lock:
            self._runtimes.pop(info.id, None)
        return info

    def estimate_chunk_set(self, config: ChunkConfig, model: str = "", scope: Scope | None = None) -> BuildEstimate:
        """What building (or bringing up to date) the chunk set of ``config`` and embedding ``model`` over
        ``scope`` (None: every stored document) would cost, before any work: chunks it will hold, texts to
        embed, and seconds on this machine from the model's measured rate (``index.estimate``). Nothing is
        built; before a model's first build a few texts are embedded to measure its rate (their vectors are
        kept for the build)."""
        embedder = self.embedder_for(model)
        counter = counter_for_model(getattr(embedder, "model_path", None))
        return self._estimate(config, embedder, counter, self.set_scope(scope))

    def _estimate(self, config: ChunkConfig, embedder: Embedder, counter: TokenCounter, scope: Scope | None,
                  reuse: bool = False) -> BuildEstimate:
        """The estimate of a chunk set; with ``reuse``, the one ``estimate_chunk_set`` made last for this set
        while its documents, its chunked documents and the kept rate stay as they were (a caller that
        estimated just before building, such as the advisor, does not pay for the dry run twice)."""
        set_id = config.set_id(embedder.model_id, scope.key if scope else "")

        def state() -> tuple[Any, ...]:
            return (tuple(sorted(self.store.document_shas().items())),
                    tuple(sorted(self.store.chunked_docs(set_id).items())),
                    embedding_rate(self.store, embedder.model_id))

        kept = self._estimates.pop(set_id, None)
        if reuse and kept is not None and kept[0] == state():
            return replace(kept[1], measured=0)  # its rate was measured by the call that made it
        estimate = estimate_build(self.store, config, embedder, counter, scope=scope,
                                  vector_cache=self.sentence_vectors)
        if not reuse:  # after the estimate: a first estimate measures and keeps the model's rate
            self._estimates[set_id] = (state(), estimate)
        return estimate

    def _say_estimate(self, config: ChunkConfig, embedder: Embedder, counter: TokenCounter,
                      progress: ProgressSink, scope: Scope | None) -> int:
        """Tell ``progress`` what the build about to start will cost (an ``estimate`` notice), when it has
        documents to cut; an estimate that cannot be made says nothing (the build then says why). Returns the
        texts embedded to make it (measuring the model's rate)."""
        try:
            estimate = self._estimate(config, embedder, counter, scope, reuse=True)
        except (ChunkerError, LLMError, ValueError):
            return 0
        if estimate.to_embed or estimate.seconds >= 1:
            progress(ProgressEvent("estimate", 0, 0, f"{config.label()}: {estimate.describe()}"))
        return estimate.measured

    def check_code_allowed(self, strategy: Strategy) -> None:
        """Raise ``NotTrusted`` (nothing imported) when ``strategy`` names a custom chunker or a model folder
        the user has not allowed in this run; an allowed custom chunker is imported here."""
        self.embedder_for(strategy.model)
        for config in strategy.chunk_configs():
            chunker_spec(config)

    def search(self, question: str, strategy: Strategy | str | dict[str, Any] | None,
               progress: ProgressSink | None = None,
               cancel: CancelToken | None = None, scope: Scope | None = None) -> SearchResult:
        """Run ``strategy`` for ``question``; builds the chunk set first when it does not exist yet. With
        ``scope`` only those documents are searched (their own chunk sets: the top-k is the top-k within the
        scope); None searches every stored document.

        Timings: ``prepare_ms`` (chunk set), ``embed_ms`` (question), then the pipeline's search, rerank
        and expand steps, and ``total_ms``.
        """
        strategy = self.resolve_strategy(strategy)
        problem = question_problem(question)
        if problem:
            raise ValueError(problem)
        try:
            return self._search(question, strategy, progress, cancel, scope)
        except DocumentGone:  # another process removed a document after the set was loaded: load it again
            return self._search(question, strategy, progress, cancel, scope)

    def _search(self, question: str, strategy: Strategy, progress: ProgressSink | None,
                cancel: CancelToken | None, scope: Scope | None) -> SearchResult:
        t0 = time.perf_counter()
        own, *coarse = (self.ensure_chunk_set(config, progress, cancel, model=strategy.model, scope=scope).id
                        for config in strategy.chunk_configs())
        coarse_runtimes = tuple(self.runtime(set_id, progress) for set_id in coarse)
        rt = self.runtime(own, progress)
        t1 = time.perf_counter()
        qvec = self.query_vector(question, strategy.model)  # the question embedded by the chunk set's model
        t2 = time.perf_counter()
        ctx = SearchInputs(rt, question, qvec, self, embedder=self.embedder_for(strategy.model),
                               coarse=coarse_runtimes)
        result = self.retriever.run(ctx, strategy, self.pipeline_llm, progress, cancel)
        result.timings = {"prepare_ms": (t1 - t0) * 1000, "embed_ms": (t2 - t1) * 1000, **result.timings,
                          "total_ms": (time.perf_counter() - t0) * 1000}
        return result


if TYPE_CHECKING:  # the narrow views the stages below take: the workspace must satisfy each of them
    from workbench.core.evaluate.advise.needs import AdviceWorkspace
    from workbench.core.evaluate.needs import EvalWorkspace
    from workbench.core.index.situating import SituatingWorkspace
    from workbench.core.index.verify import VerifiedFolder

    def _views(ws: Workspace) -> tuple[EvalWorkspace, AdviceWorkspace, VerifiedFolder, SituatingWorkspace]:
        return ws, ws, ws, ws
