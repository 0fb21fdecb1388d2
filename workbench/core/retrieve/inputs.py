"""The typed seam between the pipeline and whatever holds the documents (the Workspace facade).

``run`` of the pipeline sees one question against one loaded chunk set (``SearchInputs``) and a
``Corpus``: the few lookups it needs (document text, token offsets, parents, token counts, the store for
BM25 and LLM caches, the embedder for section summaries). The LLM comes as an ``LLMSource``: a call that
opens it on first use and says why when there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from workbench.core.index.embedding import Embedder
    from workbench.core.ingest.documents import Document
    from workbench.core.llm.base import Backend
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.spans import Span
    from workbench.core.store import Store


class Corpus(Protocol):
    """The document lookups the pipeline uses (the Workspace provides them, cached)."""

    @property
    def store(self) -> Store:
        """The store (BM25 full-text search, LLM output cache)."""
        ...

    @property
    def embedder(self) -> Embedder:
        """The embedding model (section summaries are embedded with it)."""
        ...

    def document(self, doc_id: int) -> Document:
        """A stored document."""
        ...

    def doc_text(self, doc_id: int) -> str:
        """The text of a stored document."""
        ...

    def token_offsets(self, doc_id: int) -> np.ndarray:
        """``(n, 2)`` character offsets of a document's tokens."""
        ...

    def parents_of(self, doc_id: int, parent_size: int, unit: str = "tokens") -> list[tuple[int, int]]:
        """Parent spans of a document (``parent_size`` units, or heading sections when 0)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the embedding model's tokenizer."""
        ...

    def span_tokens(self, span: Span) -> int:
        """Tokens of a span's own text (``count_tokens`` of it; cached until the documents change)."""
        ...


LLMSource = Callable[[], "tuple[Backend | None, str]"]
"""Opens (or returns) the local LLM: ``(backend, "")``, or ``(None, why not)``."""


@dataclass(frozen=True)
class SearchInputs:
    """One question against one loaded chunk set (and the context budget in tokens, 0 = none, for the
    expansions that spend it themselves, and the embedder of the chunk set's model)."""

    runtime: LoadedSet
    question: str
    query_vector: np.ndarray
    corpus: Corpus
    budget: int = 0
    embedder: Embedder | None = None  # the chunk set's model (section summaries); None: the corpus's default
    coarse: tuple[LoadedSet, ...] = ()  # multi-granularity search: the coarse sets, in the strategy's order
