"""How the results column shares its height: the passages keep the height the window's task gives them (half
the window while exploring; less while marking or shaping cuts, or when the tab in front needs its least), open
knobs take what is left after the bottom pane's minimum but never less than their floor (``knob_floor``: four
rows; they scroll within it), and the bottom pane (the document view or the answer) gets the height its content
needs up to what remains. A plain function of pixel counts, so the rule can be tested without a window."""

from __future__ import annotations

from dataclasses import dataclass

KNOB_FLOOR = 40  # open knobs never get less than this (a row and a half, scrolled) …
KNOB_ROWS = 4  # … and, where the window says how tall a row is, never fewer rows than this (``knob_floor``)
DOC_SHARE = 0.25  # the document view's default share of the results column's height
DOC_MAX = 320  # …and its default maximum height in pixels


@dataclass(frozen=True)
class Heights:
    """The bottom pane's height and the room each side's open knobs get (0 when the knobs are closed)."""

    bottom: int
    knobs: int


def knob_floor(row: int) -> int:
    """The least height of open knobs whose rows are ``row`` pixels tall: ``KNOB_ROWS`` rows."""
    return max(KNOB_FLOOR, KNOB_ROWS * row)


def share_heights(total: int, fixed: int, passages: int, knob_need: int, bottom_min: int,
                  bottom_want: int, floor: int = KNOB_FLOOR) -> Heights:
    """Split ``total`` pixels between the sides and the bottom pane.

    ``fixed``: a side's height besides its passages and knobs (header, stats line, margins); ``passages``:
    the height its passages keep (half the window's); ``knob_need``: the open knobs' whole height (0: closed);
    ``bottom_min`` / ``bottom_want``: the bottom pane's minimum and the height its content needs (0 / 0: the
    pane is hidden). The passages come first, then the bottom pane's minimum, then the knobs (at least
    ``floor``, ``KNOB_FLOOR`` unless the caller knows its rows: ``knob_floor``), then the bottom pane up to its
    content; what is left goes to the passages."""
    spare = total - fixed - passages
    bottom = min(bottom_min, max(0, spare)) if bottom_min else 0
    knobs = 0
    if knob_need:
        knobs = min(knob_need, max(floor, spare - bottom))
    bottom += max(0, min(bottom_want - bottom, spare - bottom - knobs))
    return Heights(bottom, knobs)


def document_want(total: int) -> int:
    """The document view's height in a results column ``total`` pixels high."""
    return min(DOC_MAX, int(total * DOC_SHARE))
