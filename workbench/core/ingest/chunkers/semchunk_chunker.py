"""semchunk as a protocol chunker: its semantic splitting (largest separators first: blank lines, lines,
tabs, sentence ends, clause marks, words, characters) with the embedding model's token count as its token
counter, so ``max_tokens`` and ``overlap`` are the model's tokens. Spans are semchunk's own offsets
(``offsets=True``), checked to hold each chunk's text exactly. semchunk's overlap mode can return a chunk
over ``max_tokens`` (a single unbreakable run, e.g. ``"7" * 14`` at 12 tokens with overlap 3); such a chunk
is split again without overlap at its own offsets, so no chunk exceeds the limit (counted on the chunk's
own text, as semchunk counts; a piece inside a neighbouring chunk is dropped).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.core.ingest.chunkers.adapter_support import (
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

LIBRARY = "semchunk"


class SemchunkChunker:
    """semchunk's ``chunkerify`` with the model's token counter."""

    def __init__(self, spec: ChunkerSpec, counter: TokenCounter) -> None:
        import semchunk

        params = spec.param_dict
        self.spec = spec
        self._size, self._overlap = int(params["max_tokens"]), int(params["overlap"])
        if self._overlap >= self._size:
            raise ChunkerError(f"chunker {spec.name!r}: overlap must be smaller than max_tokens")
        self._count = counter.count
        self._chunk: Any = semchunk.chunkerify(counter.count, self._size)  # type: ignore[attr-defined]

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """semchunk's chunks at its own offsets."""
        if not text.strip():
            return []
        chunks, offsets = self._chunk(text, offsets=True, overlap=self._overlap or None)
        triples: list[tuple[int, int, str]] = []
        for (a, b), piece in zip(offsets, chunks, strict=True):
            if self._overlap and self._count(piece) > self._size:  # semchunk's overlap overshot: split again
                parts, part_offsets = self._chunk(text[a:b], offsets=True)
                triples.extend((a + int(x), a + int(y), str(c)) for (x, y), c in zip(part_offsets, parts, strict=True))
            else:
                triples.append((int(a), int(b), str(piece)))
        triples.sort(key=lambda t: (t[0], -t[1]))
        kept: list[tuple[int, int, str]] = []
        for triple in triples:  # a re-split piece inside a neighbouring overlap chunk adds nothing
            if not kept or triple[1] > kept[-1][1]:
                kept.append(triple)
        return settled(text, exact_trimmed(text, kept, self.spec.name))


def _build(spec: ChunkerSpec, resources: ChunkerResources) -> SemchunkChunker:
    assert resources.counter is not None
    return SemchunkChunker(spec, resources.counter)


SEMCHUNK = ChunkerKind(
    "semchunk", "semchunk: split at the largest separators (paragraphs, sentences, words) to N model tokens",
    (ParamSpec("max_tokens", 256, 1, 100_000, help="largest chunk, in the embedding model's tokens"),
     ParamSpec("overlap", 0, 0, 50_000, help="tokens shared with the previous chunk")),
    _build, LIBRARY, library_version(LIBRARY), library_check("semchunk", LIBRARY), needs=("counter",))
