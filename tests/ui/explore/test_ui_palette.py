"""The highlight palette stays readable for colour-blind researchers, and chunk boundaries show inside merged
blocks (pytest-qt, offscreen, hashed embedder).

The margin: every two backgrounds one view draws side by side (and each against the white paper) differ by at
least ``theme.PALETTE_MARGIN`` = 12 CIE76 ΔE*ab units — about five just-noticeable differences — under normal
vision and under simulated protanopia, deuteranopia and tritanopia (Machado et al. 2009, full severity),
computed here from the colours the text formats use.
"""

from __future__ import annotations

import pytest
from ui_support import search

from workbench.core.spans import Span
from workbench.ui.basics.colours import VISIONS, delta_e, least_difference, line_colour, simulate

pytest_plugins = ["ui_support"]


def test_the_colour_arithmetic_is_what_the_margin_assumes():
    assert delta_e("#ffffff", "#000000") == pytest.approx(100.0, abs=0.01)  # L* from 100 to 0
    assert delta_e("#808080", "#808080", "deutan") == 0.0
    red, green = "#d62728", "#2ca02c"  # the classic pair a deuteranope confuses
    assert delta_e(red, green) > 70 and delta_e(red, green, "deutan") < 0.4 * delta_e(red, green)
    grey = simulate("#777777", "protan")
    assert all(abs(c - 0x77 / 255) < 0.02 for c in grey), "a grey stays grey"


@pytest.mark.parametrize("view", ["passages and one side's document", "A/B document", "evidence", "chunk map",
                                  "cuts of A and B"])
def test_each_views_backgrounds_differ_by_the_stated_margin_for_every_vision(view):
    from workbench.ui.basics.theme import PALETTE_MARGIN, PAPER, SWATCHES, VIEW_BACKGROUNDS

    colours = {kind: SWATCHES[kind].background for kind in VIEW_BACKGROUNDS[view]}
    assert all(colours.values())
    worst, vision, first, second = least_difference([PAPER, *colours.values()])
    assert worst >= PALETTE_MARGIN, f"{view}: {first} and {second} differ by ΔE {worst:.1f} for {vision} vision"


@pytest.mark.parametrize(("kinds", "shown"), [({"window"}, "window"), ({"window", "hit"}, "hit"),
                                              ({"window", "hit", "alt"}, "alt"), ({"only_a", "hit"}, "hit_a"),
                                              ({"only_b", "hit"}, "hit_b"), ({"both", "hit", "alt"}, "hit_both"),
                                              ({"window", "noise", "hit"}, "hit_noise"),
                                              ({"window", "evidence", "hit"}, "hit_evidence"),
                                              ({"missed"}, "missed"),
                                              ({"chunk_odd", "chunk_overlap"}, "chunk_overlap")])
def test_the_text_formats_draw_the_palette_checked_above(kinds, shown):
    from workbench.ui.basics.theme import SWATCHES, VIEW_BACKGROUNDS, kinds_format

    assert kinds_format(kinds).background().color().name() == SWATCHES[shown].background
    assert any(shown in view for view in VIEW_BACKGROUNDS.values())


def test_the_quote_is_a_text_style_not_a_colour_to_tell_from_evidence():
    from PySide6.QtGui import QFont, QTextCharFormat

    from workbench.ui.basics.theme import kinds_format

    quoted = kinds_format({"evidence", "quote"})
    plain = kinds_format({"evidence"})
    assert quoted.background() == plain.background()
    assert (quoted.fontWeight() == QFont.Weight.Bold
            and quoted.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline)


def test_configuration_colours_are_distinct_and_colour_blind_safe_first():
    colours = [line_colour(n) for n in range(40)]
    assert len(set(colours)) == 40
    first_six = colours[:6]
    worst, vision, a, b = least_difference(first_six)
    assert worst >= 12, (worst, vision, a, b)
    assert all(min(delta_e(c, "#ffffff", v) for v in VISIONS) >= 25 for c in first_six), "lines show on white"


def test_adjacent_hit_chunks_keep_their_boundaries_inside_a_merged_passage(qtbot, make_window, hash_sample_ws):
    from dataclasses import replace

    from workbench.ui.basics.theme import MARKER

    window = make_window(hash_sample_ws)
    strategy = replace(window.model.strategy("A").with_expansion(window=2), top_k=12)
    window.model.set_strategy("A", strategy)
    result = search(qtbot, window)[0]
    side = window.compare.a
    merged = [p for p in result.passages if len(p.hit_spans) >= 2]
    assert merged, "top-12 with ±2 windows merges neighbouring hits into one passage"
    rt = hash_sample_ws.sets.runtime(result.set_id)
    document = side.results.document()
    for index, passage in enumerate(result.passages):
        chunk_starts = {rt.span(r).start for r in rt.chunks_in(passage.span)} - {passage.span.start}
        marked = set()
        entries = [e for e in side.results.pmap.entries if e.tag == index]
        for entry in entries:  # a marker glyph sits right before the piece it starts
            if entry.position > 0 and document.characterAt(entry.position - 1) == MARKER:
                marked.add(entry.start)
        assert chunk_starts <= marked, f"passage #{passage.rank}: unmarked chunk starts {sorted(chunk_starts - marked)}"
    hits = [Span(p.span.doc_id, s.start, s.end) for p in merged for s in p.hit_spans]
    drawn_alt = side.results.rendered("alt")
    assert drawn_alt, "every second hit chunk of a passage takes the alternate shade"
    assert all(any(h.start <= a.start and a.end <= h.end for h in hits) for a in drawn_alt if a.doc_id in
               {h.doc_id for h in hits})


def test_evidence_noise_and_reference_colours_are_never_a_or_bs():
    """One colour language: blue and orange mean A and B (sides, the document's only-A / only-B); evidence,
    noise and the reference take other colours, told apart from every A / B colour for every vision."""
    from workbench.ui.basics.theme import PALETTE_MARGIN, SIDE_COLOURS, SWATCHES

    sides = [SWATCHES[k].background for k in ("only_a", "only_b", "hit_a", "hit_b")] + list(SIDE_COLOURS.values())
    judged = [SWATCHES[k].background for k in ("evidence", "noise", "hit_evidence", "hit_noise")]
    judged.append(SWATCHES["reference"].underline)
    for colour in judged:
        for side in sides:
            assert delta_e(colour, side) >= 2 * PALETTE_MARGIN, f"{colour} reads as A / B's {side}"
            worst = min(delta_e(colour, side, vision) for vision in VISIONS)
            assert worst >= 10, f"{colour} and A / B's {side}: ΔE {worst:.1f} for some vision"
    overlap = SWATCHES["chunk_overlap"].background  # the chunk map's overlap is not noise's pink either
    assert all(delta_e(overlap, colour) >= 2 * PALETTE_MARGIN for colour in judged)
