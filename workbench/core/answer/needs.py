"""What answering needs of a workspace: searching, and its corpus (stored documents, embeddings by the default
model, token counts).

A narrow protocol, so this stage never imports the workspace above it; ``core.workspace.Workspace`` has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from workbench.core.index.embedding import Embedder
from workbench.core.ingest.documents import Document
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.pipeline import SearchResult
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.store import Scope


class AnswerCorpus(Protocol):
    """The workspace's corpus (``ws.corpus``) as answering sees it."""

    @property
    def embedder(self) -> Embedder:
        """The default embedding model."""
        ...

    def document(self, doc_id: int) -> Document:
        """A stored document."""
        ...

    def doc_text(self, doc_id: int) -> str:
        """The stored text of a document."""
        ...

    def query_vector(self, question: str, model: str | None = "") -> np.ndarray:
        """The question's embedding."""
        ...

    def embed_texts(self, texts: Sequence[str], cancel: CancelToken | None = None) -> np.ndarray:
        """Vectors of ``texts`` by the default model (cached)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the embedding model's tokenizer."""
        ...


class AnswerWorkspace(Protocol):
    """The workspace as answering sees it: its corpus, and searching."""

    @property
    def corpus(self) -> AnswerCorpus:
        """Stored documents and embeddings."""
        ...

    def search(self, question: str, strategy: Strategy | str | dict[str, Any] | None,
               progress: ProgressSink | None = None, cancel: CancelToken | None = None,
               scope: Scope | None = None) -> SearchResult:
        """Run ``strategy`` for ``question`` (over the documents of ``scope``, or every stored document)."""
        ...
