"""Flips between two configurations of a run: which questions A wins, which B wins, which tie.

By recall (span coverage) or, when the answers were judged, by answer label (seed 004's verdict: answered
on a covered question, clean no on an uncovered one, partial half-way). Each flip carries how many of the
question's reference spans each side covered ("2/3 refs covered → 3/3") and the judge's one-line reasons.
Everything reads ``QuestionResult`` rows, so a recorded run gives the same flips as the live one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.core.evaluate.answer_report import is_covered, label_of
from workbench.core.evaluate.judge import UNJUDGED
from workbench.core.evaluate.sweep import QuestionResult
from workbench.core.spans import Span, overlap_length

REF_COVERED = 0.8  # share of a reference span's characters retrieved for it to count as covered
WINNERS = ("A", "B", "tie")
BY_RECALL, BY_LABEL = "recall", "label"


@dataclass(frozen=True)
class RefCoverage:
    """How a side covered a question's reference spans: ``covered`` of ``total`` (≥ ``REF_COVERED`` of each
    span retrieved), ``missed`` with nothing retrieved, the rest partly retrieved; ``shares`` per span."""

    shares: tuple[float, ...]

    @property
    def total(self) -> int:
        """Number of reference spans."""
        return len(self.shares)

    @property
    def covered(self) -> int:
        """Reference spans covered (at least ``REF_COVERED`` of their characters retrieved)."""
        return sum(s >= REF_COVERED for s in self.shares)

    @property
    def missed(self) -> int:
        """Reference spans of which no character was retrieved."""
        return sum(s == 0 for s in self.shares)

    def __str__(self) -> str:
        return f"{self.covered}/{self.total}" if self.shares else "-"


def reference_coverage(retrieved: Sequence[Span], references: Sequence[Span]) -> RefCoverage:
    """The share of each reference span (in order) that ``retrieved`` holds."""
    return RefCoverage(tuple(overlap_length(retrieved, [r]) / r.length if r.length else 0.0 for r in references))


def label_score(row: QuestionResult) -> float | None:
    """An answer label as a score: the right verdict 1 (answered when covered, clean no when not), partial
    0.5, the wrong one 0; None when unjudged or not answered."""
    label = label_of(row)
    if not label or label == UNJUDGED:
        return None
    if label == "partial":
        return 0.5
    return 1.0 if label == ("answered" if is_covered(row) else "clean_no") else 0.0


@dataclass(frozen=True)
class Flip:
    """One question under configurations A and B: who wins and by how much (``change`` = B − A)."""

    q_index: int
    question: str
    row_a: QuestionResult
    row_b: QuestionResult
    before: float | None
    after: float | None
    refs_a: RefCoverage
    refs_b: RefCoverage

    @property
    def change(self) -> float:
        """B − A of the compared score (0 when either side has none)."""
        return 0.0 if self.before is None or self.after is None else self.after - self.before

    @property
    def winner(self) -> str:
        """``"A"``, ``"B"`` or ``"tie"``."""
        return "B" if self.change > 0 else "A" if self.change < 0 else "tie"

    @property
    def refs_line(self) -> str:
        """``2/3 refs covered → 3/3`` ("-" when the question has no reference spans)."""
        return f"{self.refs_a} refs covered → {self.refs_b}" if self.refs_a.total else "-"

    @property
    def reasons(self) -> tuple[str, str]:
        """The judge's one-line reasons for A's and B's answers ("" when not judged)."""
        return self.row_a.extra.get("reason", "") or "", self.row_b.extra.get("reason", "") or ""


def judged(rows: Sequence[QuestionResult]) -> bool:
    """True when some row carries an answer label."""
    return any(r.label for r in rows)


def find_flips(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult], by: str = BY_RECALL,
               references: Callable[[QuestionResult], Sequence[Span]] | None = None,
               threshold: float = 0.0) -> list[Flip]:
    """Every question both sides answered (matched by index and text), largest change first.

    ``by`` is ``"recall"`` (uncovered questions tie) or ``"label"`` (``label_score``); a change of at most
    ``threshold`` is a tie. ``references(row)`` gives a question's reference spans for the coverage counts.
    """
    if by not in (BY_RECALL, BY_LABEL):
        raise ValueError(f"compare by {BY_RECALL!r} or {BY_LABEL!r}, not {by!r}")
    b = {(r.q_index, r.question): r for r in rows_b}
    out = []
    for ra in rows_a:
        rb = b.get((ra.q_index, ra.question))
        if rb is None:
            continue
        if by == BY_RECALL:
            before, after = ra.metrics.recall, rb.metrics.recall
        else:
            before, after = label_score(ra), label_score(rb)
        if before is not None and after is not None and abs(after - before) <= threshold:
            after = before
        refs = list(references(ra)) if references is not None else []
        out.append(Flip(ra.q_index, ra.question, ra, rb, before, after,
                        reference_coverage(ra.spans, refs), reference_coverage(rb.spans, refs)))
    out.sort(key=lambda f: (-abs(f.change), f.q_index))
    return out


def flip_counts(flips: Sequence[Flip]) -> dict[str, int]:
    """``{"A": wins of A, "B": wins of B, "tie": ties}``."""
    return {w: sum(f.winner == w for f in flips) for w in WINNERS}
