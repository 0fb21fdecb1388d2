"""Why an embedding chunker cut where it did: its own score at every boundary between its units, the line it
compared the score with, and the cuts that came of it.

A chunker that can explain itself (``ExplainingChunker``) makes its cuts *from* the explanation
(``chunk(text) == explain(text).cuts``), so what a view draws is the computation that cut, not a second
one that could drift from it. The score is a similarity between neighbouring units (higher: closer in
meaning); ``threshold`` is the similarity below which the chunker cuts, when it cuts by a threshold at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from workbench.core.ingest.chunkers.protocol import Chunker, Cut
from workbench.core.ingest.headings import Heading

NO_CUT = ""
BY_SCORE = "score"  # the score crossed the threshold (or the grouping chose this boundary)
BY_SIZE = "size"  # the chunk would have grown over the size limit


@dataclass(frozen=True)
class CutExplanation:
    """One document as an embedding chunker saw it.

    ``units``: the spans the chunker scored (sentences, small pieces), in order. ``similarity[i]``: its
    score between unit ``i`` and ``i + 1`` (``score_label`` says what it is). ``threshold``: the similarity
    below which it cuts (None when it has no threshold, e.g. a dynamic-programming grouping), named by
    ``threshold_label``. ``reasons[i]``: why it cut after unit ``i`` (``BY_SCORE``, ``BY_SIZE``) or
    ``NO_CUT``. ``cuts``: the chunks it returned."""

    chunker: str
    unit: str
    units: tuple[Cut, ...]
    similarity: tuple[float, ...]
    threshold: float | None
    threshold_label: str
    score_label: str
    reasons: tuple[str, ...]
    cuts: tuple[Cut, ...]

    @property
    def boundaries(self) -> tuple[int, ...]:
        """The character position of each boundary: where unit ``i`` ends."""
        return tuple(end for _start, end in self.units[:-1])

    def cut_indices(self) -> list[int]:
        """The boundaries the chunker cut at (indices into ``similarity``)."""
        return [i for i, reason in enumerate(self.reasons) if reason != NO_CUT]

    def boundary_at(self, offset: int) -> int | None:
        """The boundary nearest character ``offset`` (None when the document has no boundary)."""
        if not self.similarity:
            return None
        return min(range(len(self.similarity)), key=lambda i: abs(self.units[i][1] - offset))


def cut_reasons(units: Sequence[Cut], cuts: Sequence[Cut], by_score: Sequence[bool]) -> tuple[str, ...]:
    """Why each boundary after ``units[i]`` (all but the last) was cut: ``BY_SCORE`` where the score decided,
    ``BY_SIZE`` where a chunk ends there although the score did not ask for it, else ``NO_CUT``."""
    ends = {end for _start, end in cuts}
    return tuple(NO_CUT if units[i][1] not in ends else BY_SCORE if by_score[i] else BY_SIZE
                 for i in range(len(units) - 1))


@runtime_checkable
class ExplainingChunker(Chunker, Protocol):
    """A chunker that says why it cut: ``explain(text, headings).cuts`` is what ``chunk`` returns."""

    def explain(self, text: str, headings: Sequence[Heading]) -> CutExplanation:
        """The chunker's scores, threshold and cuts on one document."""
        ...
