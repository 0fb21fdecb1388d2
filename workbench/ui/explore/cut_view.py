"""*Cuts of A and B*: both sides' cuts drawn on one text (``core.inspect.cut_compare``), and their figures.

A's cuts are marker glyphs in A's colour raised above the line, B's in B's colour lowered below it; a cut that
has the other side's within reach (paired one to one, ``ingest.cut_agreement``) sits on the agreement grey,
and so does the text between the two. Reference spans stay underlined. One line above the text says the
figures of the shown document and of every document both chunk sets hold.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QWidget

from workbench.core.ingest.cut_agreement import DEFAULT_WITHIN, CutDiff, DocumentCuts, diff_line
from workbench.core.inspect.cut_compare import document_cut_diff, set_cut_diff
from workbench.core.spans import Span
from workbench.ui.basics.theme import KINDS_PROPERTY, cut_marker_format
from workbench.ui.explore.render import PositionMap
from workbench.ui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:
    from workbench.core.retrieve.loaded_set import LoadedSet

CUTS_AB = "AB"  # the chunk-map side of the picker's "cuts of A and B" entry (data "chunks:AB")
CUT_VIEW_KINDS = ["cut_a", "cut_b", "cut_agree", "heading"]


def cut_layers(cuts: DocumentCuts) -> dict[str, list[tuple[int, int]]]:
    """The agreement layer: the text between each pair of agreeing cuts."""
    return {"cut_agree": [(min(a, b), max(a, b)) for a, b in cuts.pairs if a != b]}


def cut_marker_formats(cuts: DocumentCuts) -> dict[int, list[QTextCharFormat]]:
    """Offset → the marker formats drawn before it: A's cut first, then B's, each on the agreement grey when
    paired."""
    paired_a = {a for a, _b in cuts.pairs}
    paired_b = {b for _a, b in cuts.pairs}
    out: dict[int, list[QTextCharFormat]] = {}
    for offset in cuts.a:
        out.setdefault(offset, []).append(cut_marker_format("cut_a", offset in paired_a))
    for offset in cuts.b:
        out.setdefault(offset, []).append(cut_marker_format("cut_b", offset in paired_b))
    return out


def rendered_cuts(document: QTextDocument, pmap: PositionMap, kind: str) -> list[int]:
    """Document offsets of the marker glyphs drawn with ``kind`` (``cut_a``, ``cut_b`` or ``cut_agree``), read
    back from the text formats: each marker stands before the text piece that follows it."""
    starts = [e.position for e in pmap.entries]
    found: list[int] = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            kinds = str(frag.charFormat().property(KINDS_PROPERTY) or "").split(",")
            if kind in kinds and {"cut_a", "cut_b"} & set(kinds):  # a marker, not the text between two cuts
                for position in range(frag.position(), frag.position() + frag.length()):
                    i = bisect.bisect_right(starts, position)
                    if i < len(starts):
                        found.append(pmap.entries[i].start)
            it += 1
        block = block.next()
    return found


class CutSummary(ElidedLabel):
    """The one line of figures above the text: this document's and every shared document's (elided when
    narrow, the whole line in the tooltip)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("muted")
        self.set_tip("Cuts: where each chunk after the first begins. Two cuts agree when they lie within "
                        f"{DEFAULT_WITHIN} characters (paired one to one); the share is 2 × pairs / all cuts. A "
                        "reference is split by a side when one of its cuts falls inside it. 'workbench cuts diff' "
                        "prints the same figures.")
        self._cache: dict[tuple[object, ...], CutDiff] = {}
        self.document: DocumentCuts | None = None
        self.whole: CutDiff | None = None

    def whole_sets(self, rt_a: LoadedSet, rt_b: LoadedSet, reference: Sequence[Span]) -> CutDiff:
        """Every shared document's figures (computed once per pair of sets and references)."""
        key = (rt_a.info.id, len(rt_a), rt_b.info.id, len(rt_b), tuple(reference))
        whole = self._cache.get(key)
        if whole is None:
            whole = self._cache[key] = set_cut_diff(rt_a, rt_b, references=reference).total
        return whole

    def show_cuts(self, doc: DocumentCuts, whole: CutDiff) -> None:
        """Show the figures of the shown document ``doc`` and of all documents ``whole``."""
        self.document, self.whole = doc, whole
        share = f"{100 * whole.agreement:.0f}%" if whole.agreement is not None else "–"
        self.setText(f"This document: {diff_line(doc.diff, DEFAULT_WITHIN)} — all documents: {share} agree")


def document_cuts(rt_a: LoadedSet, rt_b: LoadedSet, doc_id: int, reference: Sequence[Span]) -> DocumentCuts:
    """Document ``doc_id``'s cuts by A and B compared (within ``DEFAULT_WITHIN`` characters)."""
    return document_cut_diff(rt_a, rt_b, doc_id, reference, DEFAULT_WITHIN)
