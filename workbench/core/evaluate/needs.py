"""What evaluation needs of a workspace: storing a question set's corpora, chunk sets scoped to them, searching,
the pipeline's LLM, and of its parts the records (documents, cached LLM outputs, experiment runs), the chunk sets
and the corpus.

Narrow protocols, so this stage never imports the workspace above it; ``core.workspace.Workspace`` has them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from workbench.core.answer.needs import AnswerCorpus, AnswerWorkspace
from workbench.core.evaluate.stored_question_sets import StoredSetView
from workbench.core.index.build import IngestReport, Situator
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.llm.base import Backend
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.spans import Span
from workbench.core.store import ChunkSetInfo, Scope
from workbench.core.store.question_sets import NewQuestion, NewReference, StoredSetInfo
from workbench.core.store.rows import RunQuestionRow, RunRow


class EvalRecords(Protocol):
    """The workspace's records (``ws.records``) as evaluation sees them."""

    def documents(self) -> list[dict[str, Any]]:
        """Metadata rows of the stored documents."""
        ...

    def cached_llm_output(self, kind: str, key: str, model: str) -> str | None:
        """A cached LLM output, or None."""
        ...

    def cache_llm_output(self, kind: str, key: str, model: str, value: str) -> None:
        """Keep an LLM output."""
        ...

    def record_run(self, run: RunRow, questions: Iterable[RunQuestionRow] = ()) -> None:
        """Store an experiment run and its question rows."""
        ...

    def run_rows(self) -> list[RunRow]:
        """Every recorded run, newest first."""
        ...

    def run_question_rows(self, run_id: str) -> list[RunQuestionRow]:
        """The question rows of one run."""
        ...

    def delete_run(self, run_id: str) -> None:
        """Remove a run and its question rows."""
        ...


class EvalSets(Protocol):
    """The workspace's chunk sets (``ws.sets``) as evaluation sees them."""

    def ensure_chunk_set(
        self, config: ChunkConfig, progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        report: IngestReport | None = None, situate: Situator | None = None, model: str | None = "",
        scope: Scope | None = None,
    ) -> ChunkSetInfo:
        """The chunk set for ``config`` and ``model`` (over ``scope``'s documents), built or brought up to date."""
        ...


class EvalCorpus(AnswerCorpus, Protocol):
    """The workspace's corpus (``ws.corpus``) as evaluation sees it."""

    @property
    def counter(self) -> TokenCounter:
        """Token counter of the default embedding model's tokenizer."""
        ...

    def query_vectors(self, questions: Sequence[str], progress: ProgressSink | None = None,
                      cancel: CancelToken | None = None, model: str | None = "") -> np.ndarray:
        """Embeddings of many questions (cached)."""
        ...

    def token_offsets(self, doc_id: int) -> np.ndarray:
        """Token offsets of a whole document."""
        ...


class StoredSets(Protocol):
    """The question sets stored in the data folder (``ws.questions``, ``core.workspace.question_sets.QuestionBank``)."""

    def question_set(self, name: str, reviewed_only: bool = False) -> StoredSetView:
        """A stored set as evaluation runs on it."""
        ...

    def names(self) -> list[str]:
        """The stored sets' names."""
        ...

    def create(self, name: str, note: str = "") -> StoredSetInfo:
        """A new empty set."""
        ...

    def references(self, spans: Sequence[Span]) -> tuple[NewReference, ...]:
        """Spans checked against the stored text as references to write."""
        ...

    def add_many(self, name: str, questions: Sequence[NewQuestion]) -> None:
        """Append questions already checked."""
        ...

    def add_documents(self, name: str, doc_ids: Sequence[int]) -> None:
        """Make these stored documents part of the set."""
        ...


class EvalWorkspace(AnswerWorkspace, Protocol):
    """The workspace as the evaluation lab sees it."""

    data_dir: Path

    @property
    def questions(self) -> StoredSets:
        """The question sets stored in the data folder."""
        ...

    @property
    def records(self) -> EvalRecords:
        """Documents, cached LLM outputs and runs."""
        ...

    @property
    def sets(self) -> EvalSets:
        """Chunk sets."""
        ...

    @property
    def corpus(self) -> EvalCorpus:
        """Stored documents, embeddings and token offsets."""
        ...

    def add_documents(
        self, paths: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None,
        max_file_mb: float | None = None, keep_earlier: bool = False,
    ) -> IngestReport:
        """Load files into the store without building any chunk set (``keep_earlier``: a file that now fails keeps
        its earlier stored version)."""
        ...

    def all_or_nothing(self, progress: ProgressSink | None = None) -> AbstractContextManager[None]:
        """The writer lock and one store transaction: every store change made inside is kept, or none is."""
        ...

    def check_code_allowed(self, strategy: Strategy) -> None:
        """Refuse a strategy that names code the user has not allowed in this run."""
        ...

    def pipeline_llm(self) -> tuple[Backend | None, str]:
        """The pipeline steps' LLM, or (None, reason)."""
        ...
