"""A colour legend for the highlight kinds a view draws (built from the same swatches as the text).

One line, never more: where the whole legend does not fit, the kinds from the right lose their words and show
their swatch only, and the tooltip always names every swatch (a legend that wrapped took four lines of a
side's passages at 1280 × 720).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from workbench.ui.basics.theme import MARKER, MARKER_KINDS, MUTED, SWATCHES, TEXT


def swatch_html(kind: str, label: str | None = None, words: bool = True) -> str:
    """``[sample] label`` of one kind as rich text (``label`` overrides the swatch's own; without ``words``
    the sample alone)."""
    s = SWATCHES[kind]
    style = []
    if s.background:
        style.append(f"background-color: {s.background}; color: {TEXT};")  # dark ink, in a dark palette too
    if s.foreground:
        style.append(f"color: {s.foreground}; font-weight: bold;")
    if s.underline:
        style.append(f"text-decoration: underline; color: {s.underline};")
    sample = MARKER if kind in MARKER_KINDS else "Aa"
    swatch = f"<span style='{' '.join(style)}'>&nbsp;{sample}&nbsp;</span>"
    if not words:
        return swatch
    text = html.escape(label or s.label).replace(" ", "&nbsp;")  # a pair never breaks: swatch and label together
    return f"{swatch}&nbsp;<span style='color: {MUTED};'>{text}</span>"


def _width(rich: str, label: QLabel) -> int:
    doc = QTextDocument()
    doc.setDefaultFont(label.font())
    doc.setDocumentMargin(0)
    doc.setHtml(rich)
    return int(doc.idealWidth()) + 2


class Legend(QLabel):
    """``[swatch] label`` pairs on one line; the rightmost lose their words first when it is narrow."""

    def __init__(self, kinds: Sequence[str] = (), parent: QWidget | None = None,
                 labels: Mapping[str, str] | None = None) -> None:
        super().__init__("", parent)
        self.labels = dict(labels or {})
        self.kinds: list[str] = []
        self._forms: list[tuple[int, str]] = []  # (width, rich text), the whole legend first
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.set_kinds(kinds)

    def set_kinds(self, kinds: Sequence[str]) -> None:
        """Show the swatches of ``kinds`` (in that order)."""
        self.kinds = list(kinds)
        forms = []
        for worded in range(len(self.kinds), -1, -1):
            rich = " &nbsp; ".join(swatch_html(k, self.labels.get(k), i < worded) for i, k in enumerate(self.kinds))
            forms.append((_width(rich, self), rich))
        self._forms = forms
        names = [f"{self.labels.get(k) or SWATCHES[k].label}" for k in self.kinds]
        self.setToolTip("Colours used in the text: " + ", ".join(names))
        self.setAccessibleName(self.plain_text())
        self._fit()
        self.updateGeometry()

    def plain_text(self) -> str:
        """The legend's labels as plain text, in order (what a screen reader says)."""
        return ", ".join(self.labels.get(k) or SWATCHES[k].label for k in self.kinds)

    def is_compact(self) -> bool:
        """Whether some kinds show their swatch without their words (the tooltip names them)."""
        return bool(self._forms) and self.text() != self._forms[0][1]

    def shown_width(self) -> int:
        """The width of the form shown now (whole or compact)."""
        return next((w for w, r in self._forms if r == self.text()), 0)

    def sizeHint(self) -> QSize:
        """The whole legend on one line."""
        width = self._forms[0][0] if self._forms else 0
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        """The swatches alone, on one line."""
        width = self._forms[-1][0] if self._forms else 0
        return QSize(width, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width may fit more or fewer words."""
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.width() if self.width() > 0 else 10**6
        rich = next((r for w, r in self._forms if w <= room), self._forms[-1][1] if self._forms else "")
        if rich != self.text():
            self.setText(rich)
