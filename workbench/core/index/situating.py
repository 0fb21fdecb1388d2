"""Contextual retrieval: the local LLM writes one short sentence situating each chunk in its document.

The sentence is embedded before the chunk (``ChunkConfig(contextual=True)``, see ``indexer.embedded_texts``);
the chunk's span and display text never change. Sentences are cached in the store's ``llm_cache`` table
(kind ``"situate"``) per (chunk text hash, document hash, prompt version) and model, so building the same
chunks again — another chunk set, a fresh workspace on the same data folder — makes no LLM call.

The prompt stays within a small model's context: at most ``CONTEXT_CHARS`` characters of the document (the
whole document when short, else the start of the document and a window around the chunk inside its
section) and at most ``CHUNK_CHARS`` characters of the chunk. LLM calls go through ``llm.open.call_llm`` and are
counted in ``llm.open.LLMUsage`` (calls, tokens, time), as the synthetic question generator's are.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import text_hash
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import heading_path_at, section_end
from workbench.core.ingest.values import ChunkConfig, ChunkPiece
from workbench.core.jobs import Cancelled, CancelToken, ProgressEvent, ProgressSink
from workbench.core.llm.base import Backend, Message
from workbench.core.llm.fences import data_rule, fenced, new_nonce
from workbench.core.llm.open import LLMUsage, call_llm

if TYPE_CHECKING:
    from workbench.core.index.build import Situator
    from workbench.core.index.embedding import Embedder
    from workbench.core.ingest.tokens import TokenCounter
    from workbench.core.store import ChunkSetInfo, Store

KIND = "situate"
PROMPT_VERSION = "situate-v2"  # v2: fenced with a nonce (part of the cache key)
FENCE_TAGS = ("document", "passage")
CONTEXT_CHARS = 1500
HEAD_CHARS = 300
CHUNK_CHARS = 700
MAX_TOKENS = 48
MAX_SENTENCE_CHARS = 220
SYSTEM = "You write one short sentence that situates a passage within its document, to help search find it."


class SituatingSets(Protocol):
    """What building a contextual chunk set needs of the workspace's chunk sets (``ws.sets``)."""

    def ensure_chunk_set(self, config: ChunkConfig, progress: ProgressSink | None = None,
                         cancel: CancelToken | None = None, *, situate: Situator | None = None) -> ChunkSetInfo: ...


class SituatingWorkspace(Protocol):
    """What situating chunks needs of a workspace (``core.workspace.Workspace`` has it)."""

    def pipeline_llm(self) -> tuple[Backend | None, str]:
        """The pipeline steps' backend, opened on first use; (None, reason) when there is none."""
        ...

    @property
    def store(self) -> Store: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def counter(self) -> TokenCounter: ...

    @property
    def sets(self) -> SituatingSets: ...


class ContextualError(ValueError):
    """Contextual retrieval cannot run (no local LLM, or the model failed); the message is for people."""


TOTALS = LLMUsage()  # every situator of this process together (for tests and benchmarks)
_TOTALS_LOCK = threading.Lock()


# ----- prompt --------------------------------------------------------------------------------------
def _snap(text: str, pos: int, forward: bool) -> int:
    """Move ``pos`` to the nearest whitespace (within 40 characters) so words are not cut."""
    rng = range(pos, min(len(text), pos + 40)) if forward else range(pos, max(0, pos - 40), -1)
    return next((i for i in rng if 0 < i < len(text) and text[i - 1].isspace()), pos)


def document_context(doc: Document, start: int, end: int, limit: int = CONTEXT_CHARS) -> str:
    """At most ``limit`` characters of ``doc`` that situate ``[start, end)``.

    A short document is given whole. In a long one: the innermost heading section holding the chunk when
    it fits, else the document's first ``HEAD_CHARS`` characters and a window around the chunk inside that
    section; gaps are marked with "…".
    """
    text = doc.text
    if len(text) <= limit:
        return text
    lo, hi = 0, len(text)
    for i, h in enumerate(doc.headings):
        if h.start <= start and section_end(doc.headings, i, len(text)) >= end:
            lo, hi = h.start, section_end(doc.headings, i, len(text))
    if hi - lo <= limit:
        return ("" if lo == 0 else "… ") + text[lo:hi].strip() + ("" if hi == len(text) else " …")
    mid = (start + end) // 2
    head = text[: _snap(text, HEAD_CHARS, False)].strip() if mid - lo > limit // 2 else ""
    for room in (limit - len(head) - 4, limit):
        a = max(lo, min(mid - room // 2, hi - room))
        b = min(hi, a + room)
        if not head or a > len(head):
            break
        head = ""  # the window reaches the start anyway
    a = a if a == lo else _snap(text, a, True)
    b = b if b == hi else _snap(text, b, False)
    parts = [head + " …"] if head else []
    parts.append(("… " if a > 0 and not head else "") + text[a:b].strip() + (" …" if b < len(text) else ""))
    return "\n".join(parts)


def situate_messages(title: str, heading_path: Sequence[str], context: str, chunk: str,
                     nonce: str | None = None) -> list[Message]:
    """The chat messages asking for the situating sentence. The document's title, its context and the chunk
    are fenced (``core.llm.fences``) with ``nonce`` (default: a keyed hash of them), so a document cannot
    close a fence or pose as the instructions."""
    where = " > ".join([title, *heading_path]) if heading_path else title
    passage = chunk[:CHUNK_CHARS]
    nonce = nonce or new_nonce(where, context, passage)
    document = fenced("document", nonce, f"Title: {where}\n\n{context}", tags=FENCE_TAGS)
    return [
        {"role": "system", "content": f"{SYSTEM} {data_rule(nonce, FENCE_TAGS)}"},
        {"role": "user", "content": f"Document:\n{document}\n\n"
                                    f"Passage:\n{fenced('passage', nonce, passage, tags=FENCE_TAGS)}\n\n"
                                    "In one short sentence, say what this passage is about within the document. "
                                    "Sentence:"},
    ]


_LABEL = re.compile(r"^\s*(?:[*_#>`-]+\s*)*(?:sentence|context|answer|summary|situating sentence|response)"
                    r"\s*[:：-]\s*", re.IGNORECASE)
_QUOTES = "\"'“”‘’`«»"


def clean_sentence(raw: str, limit: int = MAX_SENTENCE_CHARS) -> str:
    """One line of model output: labels ("Sentence:"), quotes and markdown stripped, the first sentence kept,
    at most ``limit`` characters (cut at a word)."""
    lines = [ln.strip() for ln in (raw or "").splitlines() if ln.strip()]
    while lines and _LABEL.sub("", lines[0]).strip(_QUOTES + " *_") == "":
        lines.pop(0)  # a bare "Sentence:" line before the sentence
    if not lines:
        return ""
    line = _LABEL.sub("", lines[0])
    line = re.sub(r"[*_`]{1,3}|</?\w+(?:-[0-9a-f]+)?>", "", line).strip()
    m = re.search(r"[.!?][\"”’']?(?=\s+[\"“]?[A-Z])", line[20:])  # the first sentence (not a tiny fragment)
    if m:
        line = line[: 20 + m.end()]
    line = line.strip().strip(_QUOTES).strip()
    if len(line) > limit:
        line = line[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return line.strip()


def cache_key(chunk_text: str, doc_sha: str) -> str:
    """The ``llm_cache`` key of a chunk's sentence (the model is the cache's own column)."""
    return hashlib.sha256(f"{PROMPT_VERSION}\n{doc_sha}\n{text_hash(chunk_text)}".encode()).hexdigest()


# ----- the situator -------------------------------------------------------------------------------
class ContextualSituator:
    """A ``Situator`` (``indexer.Situator``): ``(document, chunk pieces) -> one sentence per piece``.

    Opens the workspace's local backend on first use (``Workspace.pipeline_llm``) unless ``llm`` is given;
    reports each chunk to ``progress`` (stage ``"contextualizing"``) and checks ``cancel`` before each call.
    ``usage`` counts this situator's work; ``TOTALS`` every situator's.
    """

    def __init__(self, ws: SituatingWorkspace, llm: Backend | None = None, progress: ProgressSink | None = None,
                 cancel: CancelToken | None = None, total: int | None = None) -> None:
        self.ws = ws
        self.llm = llm
        self.progress = progress
        self.cancel = cancel
        self.total = total
        self.done = 0
        self.usage = LLMUsage()
        self._started = time.perf_counter()

    def backend(self) -> Backend:
        """The LLM (opened on first use)."""
        if self.llm is None:
            llm, why = self.ws.pipeline_llm()
            if llm is None:
                raise ContextualError(f"contextual retrieval needs a local LLM (embedded or Ollama): {why}")
            self.llm = llm
        return self.llm

    def _count(self, delta: LLMUsage) -> None:
        self.usage.add(delta)
        with _TOTALS_LOCK:
            TOTALS.add(delta)

    def sentence(self, doc: Document, piece: ChunkPiece) -> str:
        """The situating sentence of one chunk (from the cache, or written now and cached)."""
        llm = self.backend()
        chunk = doc.text[piece.start : piece.end]
        key = cache_key(chunk, doc.sha256)
        store = self.ws.store
        cached = store.caches.llm_cached(KIND, key, llm.model)
        if cached is not None:
            self._count(LLMUsage(cached=1))
            return cached
        if self.cancel is not None:
            self.cancel.check()
        context = document_context(doc, piece.start, piece.end)
        path = piece.heading_path or heading_path_at(doc.headings, piece.start)
        messages = situate_messages(doc.title or Path(doc.path).stem, path, context, chunk)
        try:
            call = call_llm(llm, messages, MAX_TOKENS, self.cancel)
        except Cancelled:
            raise
        except Exception as exc:  # a backend failure becomes one readable line
            raise ContextualError(f"the local LLM failed on {Path(doc.path).name} chunk {piece.position}: "
                                  f"{exc}") from None
        text = clean_sentence(call.text)
        self._count(LLMUsage(calls=1, prompt_tokens=call.prompt_tokens, output_tokens=call.output_tokens,
                             seconds=call.seconds, empty=int(not text)))
        store.caches.put_llm_cached(KIND, key, llm.model, text)
        return text

    def __call__(self, doc: Document, pieces: Sequence[ChunkPiece]) -> list[str]:
        if self.total is None or self.done + len(pieces) > self.total:
            self.total = self.done + len(pieces)
        out: list[str] = []
        for piece in pieces:
            out.append(self.sentence(doc, piece))
            self.done += 1
            if self.progress is not None:
                self.progress(ProgressEvent("contextualizing", self.done, self.total,
                                            f"{Path(doc.path).name} · {self.usage.calls} LLM calls",
                                            time.perf_counter() - self._started))
        return out


def make_situator(ws: SituatingWorkspace, llm: Backend | None = None, progress: ProgressSink | None = None,
                  cancel: CancelToken | None = None, total: int | None = None) -> ContextualSituator:
    """The default situator of ``ws.sets.ensure_chunk_set`` for contextual chunk sets."""
    return ContextualSituator(ws, llm, progress, cancel, total)


def pending_chunks(ws: SituatingWorkspace, config: ChunkConfig) -> int:
    """How many chunks building ``config``'s chunk set will situate (documents not chunked in it yet), cut by
    the set's own chunker as the build cuts them (a document the chunker cannot cut is left out of both)."""
    shas = ws.store.documents.document_shas()
    try:
        done = ws.store.sets.chunked_docs(chunk_set_id(config, ws.embedder.model_id, hands=ws.store.cuts.get))
    except KeyError:
        done = {}
    cutter = SetCutter(config, ws.store, ws.embedder, ws.counter)
    total = 0
    for doc_id in (d for d, sha in shas.items() if done.get(d) != sha):
        try:
            total += len(cutter.pieces(ws.store.documents.document(doc_id)))
        except ChunkerError:
            continue
    return total


def build_contextual_set(ws: SituatingWorkspace, config: ChunkConfig, llm: Backend | None = None,
                         progress: ProgressSink | None = None,
                         cancel: CancelToken | None = None) -> tuple[ChunkSetInfo, LLMUsage]:
    """Build (or bring up to date) the contextual chunk set of ``config``; returns ``(info, usage)``.

    ``config`` is made contextual if it is not. The progress total is known up front (chunks to situate).
    """
    if not config.contextual:
        config = replace(config, contextual=True)
    situator = make_situator(ws, llm, progress, cancel, total=pending_chunks(ws, config))
    info = ws.sets.ensure_chunk_set(config, progress, cancel, situate=situator)
    return info, situator.usage
