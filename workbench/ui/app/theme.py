"""Colours, fonts and text formats shared by every view (one place, so the legend matches the text)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCharFormat, QTextFormat

KINDS_PROPERTY = QTextFormat.UserProperty + 1  # the layer kinds of a fragment, "hit,window"
MARKER = "\u00a6"  # ¦ chunk boundary marker, inserted between characters (never part of the text)


@dataclass(frozen=True)
class Swatch:
    """One highlight kind: its background and the label the legend shows."""

    kind: str
    label: str
    background: str = ""
    foreground: str = ""
    underline: str = ""


SWATCHES: dict[str, Swatch] = {s.kind: s for s in [
    Swatch("hit", "hit chunk", background="#ffd54a"),
    Swatch("window", "expanded neighbours", background="#fff3c4"),
    Swatch("only_a", "returned only by A", background="#cfe2ff"),
    Swatch("only_b", "returned only by B", background="#ffdcc2"),
    Swatch("both", "returned by A and B", background="#cdeccd"),
    Swatch("reference", "reference answer span", underline="#b0007a"),
    Swatch("overlap", "chunk overlap (text in two chunks)", underline="#8a8f98"),
    Swatch("heading", "heading", foreground="#1f4e79"),
    Swatch("boundary", "chunk boundary", foreground="#7c3aed"),
    Swatch("hit_dark", "hit chunks (darker shade)", background="#9ccf9c"),
    Swatch("quote", "sentence quoted by the extractive answer", background="#8fe3c8"),
    Swatch("evidence", "evidence: reference text retrieved", background="#a8e0a0"),
    Swatch("noise", "noise: retrieved outside every reference", background="#f9cfc9"),
    Swatch("missed", "missed: reference text not retrieved", background="#ddd3f3"),
]}

# Paint order: later kinds win for the background.
BACKGROUND_ORDER = ("window", "both", "only_a", "only_b", "hit", "noise", "missed", "evidence", "quote")
EVIDENCE_KINDS = ("evidence", "noise", "missed")

TEXT = "#1d2329"
MUTED = "#5f6b7a"
BORDER = "#d0d7de"
CARD = "#ffffff"
PAGE = "#f6f8fa"
ACCENT = "#2f6fde"
SIDE_COLOURS = {"A": "#2f6fde", "B": "#d9730d"}

STYLESHEET = f"""
QMainWindow, QDialog {{ background: {PAGE}; }}
QLabel#sideTitle {{ font-weight: 600; font-size: 11pt; }}
QLabel#summary {{ color: {TEXT}; padding: 4px 8px; background: #eef2f7; border: 1px solid {BORDER};
    border-radius: 4px; }}
QLabel#muted, QLabel#stats {{ color: {MUTED}; }}
QLabel#knobSummary {{ color: {TEXT}; background: {CARD}; border: 1px solid {BORDER}; border-radius: 9px;
    padding: 1px 8px; }}
QLabel#knobSummary:hover {{ border-color: {ACCENT}; }}
QPushButton#mode {{ border: 1px solid {BORDER}; background: {CARD}; padding: 2px 12px; }}
QPushButton#mode:checked {{ background: {ACCENT}; color: white; border-color: {ACCENT}; }}
QToolButton#libraryStrip {{ border: none; border-right: 1px solid {BORDER}; background: #eef2f7; }}
QLabel#banner {{ color: #8a1f11; background: #fdecea; border: 1px solid #f5c2bd; border-radius: 4px;
    padding: 4px 8px; }}
QGroupBox {{ font-weight: 600; border: 1px solid {BORDER}; border-radius: 6px; margin-top: 10px;
    padding-top: 6px; background: {CARD}; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QTextEdit#results {{ background: {PAGE}; border: 1px solid {BORDER}; border-radius: 4px; }}
QTextEdit, QTextBrowser, QPlainTextEdit, QTreeWidget {{ background: {CARD}; border: 1px solid {BORDER};
    border-radius: 4px; }}
QLineEdit#question {{ padding: 5px 8px; font-size: 11pt; border: 1px solid {BORDER}; border-radius: 4px;
    background: {CARD}; }}
QPushButton#primary {{ background: {ACCENT}; color: white; border: none; border-radius: 4px;
    padding: 5px 14px; font-weight: 600; }}
QPushButton#primary:disabled {{ background: #9db7e8; }}
QProgressBar {{ border: 1px solid {BORDER}; border-radius: 3px; text-align: center; height: 14px;
    background: {CARD}; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 2px; }}
QTabWidget::pane {{ border: 1px solid {BORDER}; border-radius: 4px; background: {CARD}; }}
"""


def text_font(point_size: float = 10.5) -> QFont:
    """The font for document text (the system's general font at a readable size)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    font.setPointSizeF(point_size)
    return font


def kinds_format(kinds: Iterable[str]) -> QTextCharFormat:
    """The character format of text that belongs to ``kinds`` (layers such as ``hit``, ``window``)."""
    kinds = frozenset(kinds)
    fmt = QTextCharFormat()
    fmt.setProperty(KINDS_PROPERTY, ",".join(sorted(kinds)))
    for kind in BACKGROUND_ORDER:
        if kind in kinds:
            fmt.setBackground(QColor(SWATCHES[kind].background))
    if "hit" in kinds and kinds & {"only_a", "only_b", "both"}:
        # in the A/B view a hit is a darker shade of its side colour
        fmt.setBackground(QColor(SWATCHES[_side_kind(kinds)].background).darker(122))
    if "hit" in kinds and kinds & {"evidence", "noise"} and "quote" not in kinds:
        # with evidence colours a hit chunk is a darker shade of evidence or noise
        fmt.setBackground(QColor(SWATCHES["evidence" if "evidence" in kinds else "noise"].background).darker(115))
    if "heading" in kinds:
        fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setForeground(QColor(SWATCHES["heading"].foreground))
    if "reference" in kinds:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
        fmt.setUnderlineColor(QColor(SWATCHES["reference"].underline))
        fmt.setForeground(QColor("#6d004b"))
    elif "overlap" in kinds:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
        fmt.setUnderlineColor(QColor(SWATCHES["overlap"].underline))
    return fmt


def _side_kind(kinds: frozenset[str]) -> str:
    for kind in ("both", "only_a", "only_b"):
        if kind in kinds:
            return kind
    return "window"


def marker_format(kinds: Iterable[str] = ()) -> QTextCharFormat:
    """Format of the chunk-boundary marker glyph (on the background of the text it stands in)."""
    fmt = kinds_format(set(kinds) - {"heading", "reference", "overlap"})
    fmt.setForeground(QColor(SWATCHES["boundary"].foreground))
    fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setProperty(KINDS_PROPERTY, "boundary")
    return fmt


def plain_format(colour: str = TEXT, bold: bool = False, size: float | None = None,
                 italic: bool = False) -> QTextCharFormat:
    """Format of labels inside documents (headers, notes): no layer kinds."""
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(colour))
    fmt.setProperty(KINDS_PROPERTY, "")
    if bold:
        fmt.setFontWeight(QFont.Weight.DemiBold)
    if italic:
        fmt.setFontItalic(True)
    if size:
        fmt.setFontPointSize(size)
    return fmt
