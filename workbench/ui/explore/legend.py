"""A colour legend for the highlight kinds a view draws (built from the same swatches as the text).

One word-wrapped rich-text label, so a narrow view wraps the legend instead of growing.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtWidgets import QWidget

from workbench.ui.basics.theme import MARKER, MUTED, SWATCHES, TEXT
from workbench.ui.widgets.wrapped_label import WrappedLabel


def swatch_html(kind: str, label: str | None = None) -> str:
    """``[sample] label`` of one kind as rich text (``label`` overrides the swatch's own)."""
    s = SWATCHES[kind]
    style = []
    if s.background:
        style.append(f"background-color: {s.background}; color: {TEXT};")  # dark ink, in a dark palette too
    if s.foreground:
        style.append(f"color: {s.foreground}; font-weight: bold;")
    if s.underline:
        style.append(f"text-decoration: underline; color: {s.underline};")
    sample = MARKER if kind == "boundary" else "Aa"
    words = html.escape(label or s.label).replace(" ", "&nbsp;")  # a pair never breaks: swatch and label together
    return (f"<span style='{' '.join(style)}'>&nbsp;{sample}&nbsp;</span>"
            f"&nbsp;<span style='color: {MUTED};'>{words}</span>")


class Legend(WrappedLabel):
    """``[swatch] label`` pairs, wrapping when narrow."""

    def __init__(self, kinds: Sequence[str] = (), parent: QWidget | None = None,
                 labels: Mapping[str, str] | None = None) -> None:
        super().__init__("", parent)
        self.labels = dict(labels or {})
        self.kinds: list[str] = []
        self.set_kinds(kinds)

    def set_kinds(self, kinds: Sequence[str]) -> None:
        """Show the swatches of ``kinds`` (in that order)."""
        self.kinds = list(kinds)
        self.setText(" &nbsp; ".join(swatch_html(k, self.labels.get(k)) for k in self.kinds))
        self.setToolTip("Colours used in the text: " + ", ".join(SWATCHES[k].label for k in self.kinds))
        self.setAccessibleName(self.plain_text())

    def plain_text(self) -> str:
        """The legend's labels as plain text, in order (what a screen reader says)."""
        return ", ".join(self.labels.get(k) or SWATCHES[k].label for k in self.kinds)
