"""What every ecosystem adapter shares: the library's installed version, its availability (an install hint
when missing), exact spans from a library's ``(start, end, text)`` claims, a lossless tokenizer made of
the embedding model's tokens, so libraries that decode tokens back to text return the document's own text,
and ``settled``: the library's spans widened over what it dropped (control characters, a combining mark
cut from its letter) and, where the library can overshoot its limit, over-long chunks cut to fit.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from importlib import metadata

import numpy as np

from workbench.core.ingest.boundaries import tile_span_list
from workbench.core.ingest.chunkers.errors import ChunkerError, snippet
from workbench.core.ingest.chunkers.protocol import Cut
from workbench.core.ingest.chunkers.recursive import TokenRuler, within_limit
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter

EXTRA_HINT = "pip install 'chunk-workbench[chunkers]'"


def library_version(distribution: str) -> Callable[[], str]:
    """A ``version()`` for ``ChunkerKind``: the installed version of ``distribution`` ('' when missing)."""

    def version() -> str:
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            return ""

    return version


def library_check(module: str, distribution: str) -> Callable[[], str | None]:
    """An ``available()`` for ``ChunkerKind``: None when ``module`` imports, else the install hint."""

    def available() -> str | None:
        return _import_problem(module, distribution)

    return available


@lru_cache(maxsize=32)
def _import_problem(module: str, distribution: str) -> str | None:
    try:
        importlib.import_module(module)
    except Exception as exc:  # ImportError, or a broken install failing while it imports
        return (f"the library {distribution} cannot be imported ({type(exc).__name__}: {exc}); "
                f"install it with: pip install {distribution}  (or {EXTRA_HINT})")
    return None


def exact_trimmed(text: str, claims: Iterable[tuple[int, int, str]], chunker_name: str) -> list[Cut]:
    """Spans a library claims, each checked to hold exactly its chunk text, then trimmed of white space
    (blank chunks are dropped). A claim that does not match raises ``ChunkerError``: never shifted spans."""
    out: list[Cut] = []
    for number, (start, end, claimed) in enumerate(claims):
        if text[start:end] != claimed:
            raise ChunkerError(f"chunker {chunker_name!r}: chunk {number} claims {start}..{end} but the text "
                               f"there is {snippet(text[start:end])}, not {snippet(claimed)}")
        piece = text[start:end]
        core = piece.strip()
        if core:
            lead = len(piece) - len(piece.lstrip())
            out.append((start + lead, start + lead + len(core)))
    return out


def settled(text: str, spans: list[Cut], counter: TokenCounter | None = None, max_tokens: int | None = None,
            headings: Sequence[Heading] = ()) -> list[Cut]:
    """A library's spans made whole: tiled over the text (``boundaries.tile_span_list``: every non-space
    character in a chunk, no chunk edge between a letter and its combining marks) and, given ``counter``
    and ``max_tokens``, each chunk over ``max_tokens`` of the document's tokens cut by the recursive
    splitter (``recursive.within_limit``), so the limit holds on any input (one 5 MB sentence included)."""
    spans = tile_span_list(text, spans)
    if counter is not None and max_tokens is not None and spans:
        spans = within_limit(text, spans, TokenRuler(text, counter), max_tokens, headings)
    return spans


def piece_bounds(text: str, counter: TokenCounter) -> np.ndarray:
    """Where the lossless pieces of ``text`` start and end: piece ``i`` runs from ``bounds[i]`` to
    ``bounds[i + 1]``. Each piece is one token of ``counter`` with the white space after it (the first one
    also holds any white space before it), so the pieces concatenate back to ``text`` exactly."""
    starts = np.asarray(counter.offsets(text), dtype=np.int64).reshape(-1, 2)[:, 0]
    if not len(starts):
        return np.zeros(1, dtype=np.int64) if not text else np.array([0, len(text)], dtype=np.int64)
    starts = np.unique(starts)
    starts[0] = 0
    return np.append(starts, len(text))


class LosslessTokenizer:
    """The embedding model's tokens as a tokenizer whose ``decode(encode(t)) == t`` for every text: ids
    index a vocabulary of exact pieces (see ``piece_bounds``), shared by every text this object encodes."""

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._ids: dict[str, int] = {}
        self._pieces: list[str] = []

    def encode(self, text: str) -> list[int]:
        """Ids of the pieces of ``text``."""
        bounds = piece_bounds(text, self._counter)
        out = []
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            piece = text[a:b]
            if piece not in self._ids:
                self._ids[piece] = len(self._pieces)
                self._pieces.append(piece)
            out.append(self._ids[piece])
        return out

    def decode(self, ids: Iterable[int]) -> str:
        """The exact text the pieces ``ids`` came from."""
        return "".join(self._pieces[i] for i in ids)

    def count(self, text: str) -> int:
        """Tokens in ``text`` as the embedding model counts them."""
        return self._counter.count(text)
