"""How the results column shares its height: the passages keep at least half the window's height, open knobs
take what is left after the bottom pane's minimum (scrolling up and down when that is less than they need),
and the bottom pane (the document view or the answer) gets the height its content needs up to what remains.
A plain function of pixel counts, so the rule can be tested without a window."""

from __future__ import annotations

from dataclasses import dataclass

KNOB_FLOOR = 40  # open knobs never get less than this (a row and a half, scrolled)
DOC_SHARE = 0.25  # the document view's default share of the results column's height
DOC_MAX = 320  # …and its default maximum height in pixels


@dataclass(frozen=True)
class Heights:
    """The bottom pane's height and the room each side's open knobs get (0 when the knobs are closed)."""

    bottom: int
    knobs: int


def share_heights(total: int, fixed: int, passages: int, knob_need: int, bottom_min: int,
                  bottom_want: int) -> Heights:
    """Split ``total`` pixels between the sides and the bottom pane.

    ``fixed``: a side's height besides its passages and knobs (header, stats line, margins); ``passages``:
    the height its passages keep (half the window's); ``knob_need``: the open knobs' whole height (0: closed);
    ``bottom_min`` / ``bottom_want``: the bottom pane's minimum and the height its content needs (0 / 0: the
    pane is hidden). The passages come first, then the bottom pane's minimum, then the knobs (at least
    ``KNOB_FLOOR``), then the bottom pane up to its content; what is left goes to the passages."""
    spare = total - fixed - passages
    bottom = min(bottom_min, max(0, spare)) if bottom_min else 0
    knobs = 0
    if knob_need:
        knobs = min(knob_need, max(KNOB_FLOOR, spare - bottom))
    bottom += max(0, min(bottom_want - bottom, spare - bottom - knobs))
    return Heights(bottom, knobs)


def document_want(total: int) -> int:
    """The document view's height in a results column ``total`` pixels high."""
    return min(DOC_MAX, int(total * DOC_SHARE))
