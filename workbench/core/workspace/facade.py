"""The workspace: one data folder (SQLite store + FAISS files) with its embedders and in-memory caches.

A chunk set is a chunking configuration and an embedding model: the workspace has a default model
(``--model`` / Settings) and opens any other one a strategy names (``Strategy.model``) on first use.

The CLI, the GUI and the evaluation lab all go through this one facade, so they run the same core calls. It is
a small class that owns named parts, each with its own state: ``records`` (documents, runs, saved strategies),
``sets`` (chunk sets found, estimated, built and loaded), ``corpus`` (cached lookups of documents and question
vectors), ``questions`` (question sets), ``cuts`` (hand-made chunkings, the chunkers ``edited:NAME``) and
``cache`` (every in-memory cache, with the one ``invalidate``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from workbench.core.data_folder import resolve_data_dir
from workbench.core.index.build import IngestReport, Situator, ingest_files
from workbench.core.index.embedder_pool import EmbedderPool
from workbench.core.index.embedding import Embedder
from workbench.core.index.locking import FileLock
from workbench.core.index.removal import remove_under
from workbench.core.ingest.chunkers.choice import chunker_spec
from workbench.core.ingest.chunkers.vector_cache import LruVectors
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import CancelToken, JobPlan, ProgressEvent, ProgressSink
from workbench.core.llm.base import Backend
from workbench.core.llm.open import pipeline_backend
from workbench.core.retrieve.inputs import SearchInputs
from workbench.core.retrieve.pipeline import Retriever, SearchResult
from workbench.core.retrieve.search import question_problem
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.store import DB_NAME, DocumentGone, Scope, Store, ThreadStores
from workbench.core.workspace.cache import DOCUMENTS, WorkspaceCache
from workbench.core.workspace.chunk_sets import ChunkSets
from workbench.core.workspace.corpus import CorpusLookups
from workbench.core.workspace.cuts import Cuts
from workbench.core.workspace.question_sets import QuestionBank
from workbench.core.workspace.records import Records

# reading a file versus cutting and embedding its text (per character: about 500,000/s read, 2,000,000/s cut,
# 20,000/s embedded before this machine measured its rate): reading is a small part of indexing
INDEXING_STAGES = (("reading", 1 / 500_000), ("building", 1 / 2_000_000 + 1 / 20_000))


class Workspace:
    """A data folder opened for indexing and searching: the facade over its parts ``records``, ``sets``,
    ``corpus``, ``cache``, ``questions`` and ``cuts``."""

    def __init__(
        self, data_dir: str | os.PathLike[str] | None = None, embedder: Embedder | None = None,
        model_path: str | None = None,
    ) -> None:
        self.data_dir = resolve_data_dir(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = self.data_dir / DB_NAME
        self._stores = ThreadStores(self.db_path)
        self.models = EmbedderPool(embedder, model_path)  # the default embedder and one per other model
        self.writer = FileLock(self.data_dir / "write.lock")
        self.retriever = Retriever()  # runs strategies; owns the hit cache and the section cache
        self.sentence_vectors = LruVectors()  # lent to every embedding chunker built here (model|text → vector)
        self.cache = WorkspaceCache(self.retriever)
        self.records = Records(self._stores)
        self.corpus = CorpusLookups(self._stores, self.models, self.cache)
        self.sets = ChunkSets(self._stores, self.data_dir, self.models, self.writer, self.writing, self.cache,
                              self.sentence_vectors, self._default_situator)
        self.store  # open (and migrate) now so errors surface at once  # noqa: B018
        # The hand-made chunkings stored here: edited:NAME chunkers cut by this workspace read them (its store).
        self.cuts = Cuts(lambda: self.store, lambda: self.embedder, lambda: self.counter, self.writing)
        # The question sets stored here (documents read fresh: a reference is checked against the stored text).
        self.questions = QuestionBank(lambda: self.store, lambda doc_id: self.store.documents.document(doc_id))
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

    def _default_situator(self, progress: ProgressSink | None, cancel: CancelToken | None) -> Situator:
        """The situator of a contextual chunk set built without one: this workspace's pipeline LLM writes it."""
        from workbench.core.index.situating import make_situator

        return make_situator(self, progress=progress, cancel=cancel)

    # ----- plumbing --------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """This thread's connection to the store."""
        return self._stores.get()

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
        return self.corpus.counter

    def close(self) -> None:
        """Close this thread's store connection."""
        self._stores.close()

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

    @contextmanager
    def all_or_nothing(self, progress: ProgressSink | None = None) -> Iterator[None]:
        """The writer lock and one store transaction around a change of several steps (an import: documents,
        then a set and its questions): when the body raises, every store change made in it is undone and the
        in-memory caches forget what they read meanwhile."""
        with self.writing(progress):
            try:
                with self.store.transaction():
                    yield
            except BaseException:
                self.cache.invalidate(DOCUMENTS)
                raise

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
        plan = JobPlan(progress, INDEXING_STAGES)  # one share for reading and building: it never moves back
        with self.writing(progress):
            reading = plan.stage("reading")
            if max_file_mb is None:
                report = ingest_files(self.store, list(paths), reading, cancel, follow_links=follow_links)
            else:
                report = ingest_files(self.store, list(paths), reading, cancel, follow_links=follow_links,
                                      max_file_mb=max_file_mb)
            plan.complete("reading")
            self.cache.invalidate(DOCUMENTS)
            if report.chunks_dropped:
                self.sets.drop_stale_vectors()
            info = self.sets.ensure_chunk_set(config or ChunkConfig(), plan.stage("building"), cancel, report=report)
            report.chunks_total = info.chunk_count
        report.warnings += [w for w in self.store.bad_values.messages() if w not in report.warnings]
        report.seconds = time.perf_counter() - started
        return report

    def add_documents(
        self, paths: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        max_file_mb: float | None = None, keep_earlier: bool = False,
    ) -> IngestReport:
        """Load files into the store without building or changing any chunk set (evaluation stores a question
        set's corpora this way and builds chunk sets scoped to them; the folder's own sets catch up with the new
        documents when they are next used). With ``keep_earlier`` a file that now fails keeps its earlier stored
        version (an import, which then fails whole)."""
        started = time.perf_counter()
        with self.writing(progress):
            if max_file_mb is None:
                report = ingest_files(self.store, list(paths), progress, cancel, keep_earlier=keep_earlier)
            else:
                report = ingest_files(self.store, list(paths), progress, cancel, max_file_mb=max_file_mb,
                                      keep_earlier=keep_earlier)
            self.cache.invalidate(DOCUMENTS)
            if report.chunks_dropped:
                self.sets.drop_stale_vectors()
        report.seconds = time.perf_counter() - started
        return report

    def remove_document(self, doc_id: int) -> None:
        """Delete a document and take its chunks out of every ready chunk set's FAISS file."""
        with self.writing():
            self.store.documents.remove_document(doc_id)
            self.cache.invalidate(DOCUMENTS)
            self.sets.drop_stale_vectors()

    def remove_paths(self, paths: Sequence[str]) -> list[str]:
        """Take the documents at or under each path (on disk or gone from it) out of the store, and the
        problems recorded there (``removal.remove_under``); returns the removed documents' paths."""
        with self.writing():
            removed = remove_under(self.store, paths)
            self.cache.invalidate(DOCUMENTS)
            self.sets.drop_stale_vectors()
        return removed

    def check_code_allowed(self, strategy: Strategy) -> None:
        """Raise ``NotTrusted`` (nothing imported) when ``strategy`` names a custom chunker or a model folder
        the user has not allowed in this run; an allowed custom chunker is imported here."""
        self.embedder_for(strategy.model)
        for config in strategy.chunk_configs():
            chunker_spec(config, self.cuts.get)

    def search(self, question: str, strategy: Strategy | str | dict[str, Any] | None,
               progress: ProgressSink | None = None,
               cancel: CancelToken | None = None, scope: Scope | None = None) -> SearchResult:
        """Run ``strategy`` for ``question``; builds the chunk set first when it does not exist yet. With
        ``scope`` only those documents are searched (their own chunk sets: the top-k is the top-k within the
        scope); None searches every stored document.

        Timings: ``prepare_ms`` (chunk set), ``embed_ms`` (question), then the pipeline's search, rerank
        and expand steps, and ``total_ms``.
        """
        if not isinstance(strategy, Strategy):  # a name, JSON or None: a preset or a strategy saved in this folder
            strategy = self.records.resolve_strategy(strategy)
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
        warnings: list[str] = []
        own, *coarse = (self.sets.searchable_set(config, progress, cancel, strategy.model, scope, warnings)
                        for config in strategy.chunk_configs())
        coarse_runtimes = tuple(self.sets.runtime(set_id, progress) for set_id in coarse)
        rt = self.sets.runtime(own, progress)
        t1 = time.perf_counter()
        qvec = self.corpus.query_vector(question, strategy.model)  # the question embedded by the set's model
        t2 = time.perf_counter()
        ctx = SearchInputs(rt, question, qvec, self.corpus, embedder=self.embedder_for(strategy.model),
                           coarse=coarse_runtimes)
        result = self.retriever.run(ctx, strategy, self.pipeline_llm, progress, cancel)
        result.warnings[:0] = warnings + [w for w in self.store.bad_values.messages() if w not in result.warnings]
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
