"""chonkie's TokenChunker, SentenceChunker and RecursiveChunker as protocol chunkers.

Each is given the embedding model's tokens as its tokenizer (``LosslessTokenizer``, wrapped in chonkie's
``AutoTokenizer`` interface), so ``max_tokens`` counts the model's tokens, nothing is fetched from the hub
(chonkie's default tokenizers would be) and decoded tokens are the document's exact text. Spans are
chonkie's own ``start_index``/``end_index``, checked to hold each chunk's text exactly, then trimmed.

chonkie's SemanticChunker and LateChunker are not offered: they load their embedding model themselves
(by hub name, through chonkie's own embeddings registry), where workbench chunkers only borrow the
caller's embedding function; the workbench's own ``semantic`` and ``late`` cover those ideas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.core.ingest.chunkers.adapter_support import (
    LosslessTokenizer,
    exact_trimmed,
    library_check,
    library_version,
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
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter

LIBRARY = "chonkie"
_available = library_check("chonkie", LIBRARY)
_version = library_version(LIBRARY)


def chonkie_tokenizer(counter: TokenCounter) -> Any:
    """The model's tokens in chonkie's tokenizer interface (an ``AutoTokenizer`` it uses as given)."""
    from chonkie.tokenizer import AutoTokenizer

    class ModelTokens(AutoTokenizer):
        _backend = "workbench"

        def __init__(self, tokenizer: LosslessTokenizer | None = None) -> None:
            # chonkie calls AutoTokenizer(this) again, which re-runs __init__ with this object: keep the first
            if not hasattr(self, "tokenizer"):
                self.tokenizer = tokenizer or LosslessTokenizer(counter)

        def encode(self, text: str) -> list[int]:
            return list(self.tokenizer.encode(text))

        def decode(self, tokens: Sequence[int]) -> str:
            return str(self.tokenizer.decode(tokens))

        def count_tokens(self, text: str) -> int:
            return int(self.tokenizer.count(text))

        def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
            return [self.encode(t) for t in texts]

        def decode_batch(self, token_sequences: Sequence[Sequence[int]]) -> list[str]:
            return [self.decode(t) for t in token_sequences]

        def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
            return [self.count_tokens(t) for t in texts]

    return ModelTokens()


class ChonkieChunker:
    """A chonkie chunker object behind the protocol: its chunks at their own offsets, checked and trimmed,
    then ``settled``: chonkie's SentenceChunker returns a sentence longer than ``max_tokens`` whole (a line
    with no sentence end, 5 MB of it), which is cut to fit like every other over-long chunk."""

    def __init__(self, spec: ChunkerSpec, chunker: Any, counter: TokenCounter, max_tokens: int) -> None:
        self.spec = spec
        self._chunker = chunker
        self._counter = counter
        self._max_tokens = max_tokens

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """chonkie's chunks as exact, trimmed spans of at most ``max_tokens`` tokens."""
        if not text.strip():
            return []
        claims = ((c.start_index, c.end_index, c.text) for c in self._chunker.chunk(text))
        return settled(text, exact_trimmed(text, claims, self.spec.name), self._counter, self._max_tokens, headings)


def _sizes(spec: ChunkerSpec) -> tuple[int, int]:
    params = spec.param_dict
    size, overlap = int(params["max_tokens"]), int(params.get("overlap", 0))
    if overlap >= size:
        raise ChunkerError(f"chunker {spec.name!r}: overlap must be smaller than max_tokens")
    return size, overlap


def _build_token(spec: ChunkerSpec, resources: ChunkerResources) -> ChonkieChunker:
    from chonkie import TokenChunker

    assert resources.counter is not None
    size, overlap = _sizes(spec)
    return ChonkieChunker(spec, TokenChunker(chonkie_tokenizer(resources.counter), size, overlap), resources.counter,
                          size)


def _build_sentence(spec: ChunkerSpec, resources: ChunkerResources) -> ChonkieChunker:
    from chonkie import SentenceChunker

    assert resources.counter is not None
    size, overlap = _sizes(spec)
    sentences = SentenceChunker(chonkie_tokenizer(resources.counter), size, overlap,
                                min_characters_per_sentence=int(spec.param_dict["min_characters"]))
    return ChonkieChunker(spec, sentences, resources.counter, size)


def _build_recursive(spec: ChunkerSpec, resources: ChunkerResources) -> ChonkieChunker:
    from chonkie import RecursiveChunker

    assert resources.counter is not None
    size, _ = _sizes(spec)
    recursive = RecursiveChunker(chonkie_tokenizer(resources.counter), size,
                                 min_characters_per_chunk=int(spec.param_dict["min_characters"]))
    return ChonkieChunker(spec, recursive, resources.counter, size)


_MAX = ParamSpec("max_tokens", 256, 1, 100_000, help="largest chunk, in the embedding model's tokens")
_OVERLAP = ParamSpec("overlap", 0, 0, 50_000, help="tokens shared with the previous chunk")

CHONKIE_TOKEN = ChunkerKind("chonkie_token", "chonkie TokenChunker: windows of N model tokens",
                            (_MAX, _OVERLAP), _build_token, LIBRARY, _version, _available, needs=("counter",))
CHONKIE_SENTENCE = ChunkerKind("chonkie_sentence", "chonkie SentenceChunker: whole sentences up to N model tokens "
                               "(a longer sentence is cut to fit)",
                               (_MAX, _OVERLAP, ParamSpec("min_characters", 12, 1, 10_000, help=(
                                   "sentences shorter than this join the next (characters)"))),
                               _build_sentence, LIBRARY, _version, _available,
                               needs=("counter",))
CHONKIE_RECURSIVE = ChunkerKind(
    "chonkie_recursive", "chonkie RecursiveChunker: paragraphs, sentences, words to N model tokens",
    (_MAX, ParamSpec("min_characters", 24, 1, 10_000, help="pieces shorter than this are merged (characters)")),
    _build_recursive, LIBRARY, _version, _available, needs=("counter",))
