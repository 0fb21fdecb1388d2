"""LangChain's text splitters (``langchain-text-splitters``) as protocol chunkers.

* ``langchain_recursive``: ``RecursiveCharacterTextSplitter`` (paragraphs, lines, words, characters) with
  the embedding model's token count as its length function, so ``max_tokens`` and ``overlap`` are tokens;
  spans are placed by the in-sequence rule of ``text_mapping.spans_in_sequence``, preferring LangChain's
  ``add_start_index`` offsets (which can miss: LangChain subtracts a token overlap from character offsets).
* ``langchain_markdown``: ``MarkdownHeaderTextSplitter`` with ``strip_headers=False``: one chunk per
  section, heading line included, no size limit. It re-joins stripped lines with single line breaks, so its
  chunks are mapped back by the in-sequence rule (words matched with any white space between them; when it
  also dropped unprintable characters inside a line, such as a thin space, by the chunk's visible
  characters in sequence). What it drops (heading lines with no heading text, ``#`` alone; control
  characters) is given to the chunk beside it (``adapter_support.settled``), so every non-space character
  is in a chunk.
* ``langchain_token``: LangChain's token window (``split_text_on_tokens``, what ``TokenTextSplitter`` runs)
  over the embedding model's tokens. ``TokenTextSplitter`` itself needs tiktoken, whose encodings are
  downloaded on first use, so it is not offered. The tokens decode to the document's exact text, and each
  window's span is the one its tokens cover.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.ingest.chunkers.adapter_support import (
    exact_trimmed,
    library_check,
    library_version,
    piece_bounds,
    settled,
)
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import (
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    ParamSpec,
)
from workbench.core.ingest.chunkers.text_mapping import spans_in_sequence
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter

LIBRARY = "langchain-text-splitters"
_available = library_check("langchain_text_splitters", LIBRARY)
_version = library_version(LIBRARY)


def _sizes(spec: ChunkerSpec) -> tuple[int, int]:
    params = spec.param_dict
    size, overlap = int(params["max_tokens"]), int(params["overlap"])
    if overlap >= size:
        raise ChunkerError(f"chunker {spec.name!r}: overlap must be smaller than max_tokens")
    return size, overlap


class LangChainRecursive:
    """``RecursiveCharacterTextSplitter`` measuring in the embedding model's tokens."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter) -> None:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        size, overlap = _sizes(spec)
        self.spec = spec
        self._splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap,
                                                        length_function=counter.count, add_start_index=True)

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """LangChain's chunks, placed by the in-sequence rule with LangChain's own offsets as hints."""
        docs = self._splitter.create_documents([text])
        hints = [int(d.metadata.get("start_index", -1)) for d in docs]
        return settled(text, spans_in_sequence(text, [d.page_content for d in docs], self.spec.name,
                                               "this document", hints))


class LangChainMarkdown:
    """``MarkdownHeaderTextSplitter`` keeping heading lines in the chunks (one chunk per section)."""

    def __init__(self, spec: ChunkerSpec) -> None:
        from langchain_text_splitters import MarkdownHeaderTextSplitter

        level = int(spec.param_dict["max_level"])
        self.spec = spec
        self._splitter = MarkdownHeaderTextSplitter([("#" * n, f"h{n}") for n in range(1, level + 1)],
                                                    strip_headers=False)

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """The sections, placed by the in-sequence rule. The splitter is shown carriage-return line breaks
        as line feeds (it would drop a lone carriage return); that keeps every offset, so spans hold."""
        lines = text.replace("\r\n", " \n").replace("\r", "\n")
        docs = self._splitter.split_text(lines)
        return settled(text, spans_in_sequence(lines, [d.page_content for d in docs], self.spec.name, "this document"))


class _TracingPositions:
    """Token ids that are positions in one text; ``decode`` returns the exact slice and records its span."""

    def __init__(self, text: str, counter: TokenCounter) -> None:
        self.text = text
        self.bounds = piece_bounds(text, counter).tolist()
        self.decoded: list[tuple[int, int]] = []

    def encode(self, text: str) -> list[int]:
        if text != self.text:
            raise ChunkerError("the token window encodes only the document it was made for")
        return list(range(len(self.bounds) - 1))

    def decode(self, ids: list[int]) -> str:
        start, end = self.bounds[ids[0]], self.bounds[ids[-1] + 1]
        self.decoded.append((start, end))
        return self.text[start:end]


class LangChainTokens:
    """LangChain's token window over the embedding model's tokens."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter) -> None:
        self.spec = spec
        self._size, self._overlap = _sizes(spec)
        self._counter = counter

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """Windows of ``max_tokens`` tokens sharing ``overlap``, each at the span its tokens cover."""
        from langchain_text_splitters.base import Tokenizer, split_text_on_tokens

        if not text.strip():
            return []
        positions = _TracingPositions(text, self._counter)
        tokenizer = Tokenizer(chunk_overlap=self._overlap, tokens_per_chunk=self._size,
                              decode=positions.decode, encode=positions.encode)
        chunks = split_text_on_tokens(text=text, tokenizer=tokenizer)
        if len(chunks) != len(positions.decoded):
            raise ChunkerError(f"chunker {self.spec.name!r}: {len(chunks)} chunks from "
                               f"{len(positions.decoded)} decoded windows")
        claims = ((a, b, c) for (a, b), c in zip(positions.decoded, chunks, strict=True))
        return settled(text, exact_trimmed(text, claims, self.spec.name))


def _size_params(default: int) -> tuple[ParamSpec, ...]:
    return (ParamSpec("max_tokens", default, 1, 100_000, help="largest chunk, in the embedding model's tokens"),
            ParamSpec("overlap", 0, 0, 50_000, help="tokens shared with the previous chunk"))


def _build_recursive(spec: ChunkerSpec, resources: ChunkerResources) -> LangChainRecursive:
    assert resources.counter is not None
    return LangChainRecursive(spec, resources.counter)


def _build_tokens(spec: ChunkerSpec, resources: ChunkerResources) -> LangChainTokens:
    assert resources.counter is not None
    return LangChainTokens(spec, resources.counter)


LANGCHAIN_RECURSIVE = ChunkerKind(
    "langchain_recursive", "LangChain RecursiveCharacterTextSplitter, sized in the model's tokens",
    _size_params(256), _build_recursive, LIBRARY, _version, _available, needs=("counter",))
LANGCHAIN_MARKDOWN = ChunkerKind(
    "langchain_markdown", "LangChain MarkdownHeaderTextSplitter: one chunk per section (no size limit)",
    (ParamSpec("max_level", 6, 1, 6, help="deepest heading level (number of #) that starts a section"),),
    lambda spec, resources: LangChainMarkdown(spec), LIBRARY, _version, _available)
LANGCHAIN_TOKEN = ChunkerKind(
    "langchain_token", "LangChain token windows (TokenTextSplitter's algorithm) over the model's tokens",
    _size_params(256), _build_tokens, LIBRARY, _version, _available, needs=("counter",))
