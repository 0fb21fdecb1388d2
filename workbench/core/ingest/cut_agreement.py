"""Where two chunkings of one text cut it, compared: boundary agreement and reference spans split.

Pure functions over character offsets. A chunking's *cuts* in a document are the starts of its chunks after
the first (``chunk_cuts``): where one chunk gives way to the next (with overlapping chunks, where each new
chunk begins). Two cuts *agree* when they lie within ``within`` characters of each other; cuts are paired
one to one (``agreeing_cuts``: the largest such pairing, found in one sweep), so three cuts of A near one cut
of B count one agreement, not three. A reference span is *split* by a chunking when one of its cuts falls
strictly inside it (at neither edge), and each reference is counted once as split by A only, by B only, by
both or by neither.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DEFAULT_WITHIN = 20  # characters: two cuts this close are the same cut (about three words)

Offsets = Sequence[tuple[int, int]]


def chunk_cuts(chunks: Offsets) -> list[int]:
    """The cuts of a document's chunks (``(start, end)`` spans in any order): every distinct chunk start
    after the first, sorted."""
    starts = sorted({start for start, _end in chunks})
    return starts[1:]


def agreeing_cuts(a: Sequence[int], b: Sequence[int], within: int = DEFAULT_WITHIN) -> list[tuple[int, int]]:
    """Pairs ``(cut of a, cut of b)`` at most ``within`` characters apart, each cut in at most one pair, as
    many pairs as possible (both lists sorted; a greedy sweep is optimal for equal-width windows)."""
    if within < 0:
        raise ValueError("within must be 0 or more characters")
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if b[j] < a[i] - within:
            j += 1  # too far left of this cut of a, and of every later one
        elif b[j] > a[i] + within:
            i += 1  # no cut of b left near this cut of a
        else:
            pairs.append((a[i], b[j]))
            i += 1
            j += 1
    return pairs


def splits(cuts: Sequence[int], start: int, end: int) -> bool:
    """True when a cut of the sorted ``cuts`` lies strictly inside ``[start, end)`` (after its start, before its
    end)."""
    i = bisect.bisect_right(cuts, start)
    return i < len(cuts) and cuts[i] < end


@dataclass(frozen=True)
class CutDiff:
    """Two chunkings' cuts compared over one document or several (``combine_diffs`` adds them up)."""

    a_cuts: int = 0
    b_cuts: int = 0
    agreeing: int = 0  # pairs of cuts within ``within`` characters (one to one)
    references: int = 0
    split_a_only: int = 0
    split_b_only: int = 0
    split_both: int = 0
    split_neither: int = 0

    @property
    def agreement(self) -> float | None:
        """Agreeing cuts as a share of all cuts, ``2 × pairs / (cuts of A + cuts of B)`` (1: every cut of each
        has one of the other's near it; None: neither cut the text)."""
        total = self.a_cuts + self.b_cuts
        return 2 * self.agreeing / total if total else None

    def as_dict(self) -> dict[str, int | float | None]:
        """The figures as a JSON-ready dict (the agreement share included)."""
        return {"a_cuts": self.a_cuts, "b_cuts": self.b_cuts, "agreeing": self.agreeing,
                "agreement": self.agreement, "references": self.references, "split_a_only": self.split_a_only,
                "split_b_only": self.split_b_only, "split_both": self.split_both,
                "split_neither": self.split_neither}


@dataclass(frozen=True)
class DocumentCuts:
    """One document's cuts by A and by B, their agreeing pairs and the figures."""

    a: tuple[int, ...]
    b: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    diff: CutDiff


def compare_cuts(a: Sequence[int], b: Sequence[int], references: Offsets = (),
                 within: int = DEFAULT_WITHIN) -> DocumentCuts:
    """Compare cut lists ``a`` and ``b`` of one document (any order) and the ``references`` in it."""
    a_sorted, b_sorted = sorted(set(a)), sorted(set(b))
    pairs = agreeing_cuts(a_sorted, b_sorted, within)
    counts = {"a_only": 0, "b_only": 0, "both": 0, "neither": 0}
    refs = [(s, e) for s, e in references if e > s]
    for start, end in refs:
        by_a, by_b = splits(a_sorted, start, end), splits(b_sorted, start, end)
        counts["both" if by_a and by_b else "a_only" if by_a else "b_only" if by_b else "neither"] += 1
    diff = CutDiff(len(a_sorted), len(b_sorted), len(pairs), len(refs), counts["a_only"], counts["b_only"],
                   counts["both"], counts["neither"])
    return DocumentCuts(tuple(a_sorted), tuple(b_sorted), tuple(pairs), diff)


def combine_diffs(diffs: Iterable[CutDiff]) -> CutDiff:
    """The figures of several documents added up (the agreement is then over all their cuts)."""
    total = CutDiff()
    for d in diffs:
        total = CutDiff(total.a_cuts + d.a_cuts, total.b_cuts + d.b_cuts, total.agreeing + d.agreeing,
                        total.references + d.references, total.split_a_only + d.split_a_only,
                        total.split_b_only + d.split_b_only, total.split_both + d.split_both,
                        total.split_neither + d.split_neither)
    return total


def diff_line(d: CutDiff, within: int) -> str:
    """The figures in one line for people, e.g. ``cuts A 12 · B 9 · 7 agree within 20 chars (67%) ·
    references split by A only 1, B only 0, both 2, neither 5``."""
    share = f" ({100 * d.agreement:.0f}%)" if d.agreement is not None else ""
    line = f"cuts A {d.a_cuts} · B {d.b_cuts} · {d.agreeing} agree within {within} chars{share}"
    if d.references:
        line += (f" · references split by A only {d.split_a_only}, B only {d.split_b_only}, "
                 f"both {d.split_both}, neither {d.split_neither}")
    return line
