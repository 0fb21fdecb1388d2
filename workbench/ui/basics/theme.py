"""Colours, fonts and text formats shared by every view (one place, so the legend matches the text)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QTextCharFormat, QTextFormat

from workbench.core.ingest.cut_agreement import DEFAULT_WITHIN

KINDS_PROPERTY = int(QTextFormat.Property.UserProperty) + 1  # the layer kinds of a fragment, "hit,window"
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
    Swatch("hit", "hit chunk", background="#ffc94a"),
    Swatch("alt", "the next hit chunk (alternate shade)", background="#ed9a2c"),
    Swatch("window", "expanded neighbours", background="#d6e4f5"),
    Swatch("only_a", "returned only by A", background="#c4dbff"),
    Swatch("only_b", "returned only by B", background="#ffd09c"),
    Swatch("both", "returned by A and B", background="#d6d6d6"),
    Swatch("hit_a", "hit chunk returned only by A", background="#6f9de6"),
    Swatch("hit_b", "hit chunk returned only by B", background="#e08a3c"),
    Swatch("hit_both", "hit chunk returned by A and B", background="#9c9c9c"),
    Swatch("reference", "reference answer span", underline="#b0007a"),
    Swatch("overlap", "chunk overlap (text in two chunks)", underline="#8a8f98"),
    Swatch("heading", "heading", foreground="#1f4e79"),
    Swatch("boundary", "chunk boundary", foreground="#6d28d9"),
    Swatch("hit_dark", "hit chunks (a darker shade of their colour)", background="#9c9c9c"),
    Swatch("quote", "sentence quoted by the extractive answer", foreground="#0b5e45", underline="#0b5e45"),
    Swatch("evidence", "evidence: reference text retrieved", background="#b3f6cf"),
    Swatch("noise", "noise: retrieved outside every reference", background="#f0a0da"),
    Swatch("missed", "missed: reference text not retrieved", background="#c8c8c8"),
    Swatch("hit_evidence", "hit chunk inside a reference", background="#65b283"),
    Swatch("hit_noise", "hit chunk outside every reference", background="#b14983"),
    Swatch("chunk_odd", "chunks 1, 3, 5 … of the chunk map", background="#d3e5fb"),
    Swatch("chunk_even", "chunks 2, 4, 6 … of the chunk map", background="#fbe8c2"),
    Swatch("chunk_overlap", "chunk overlap: text in two chunks", background="#d27c7d"),
    # cuts of A and B: each side's marks in its side colour (SIDE_COLOURS), A's raised, B's lowered
    Swatch("cut_a", "cut by A (raised)", foreground="#2f6fde"),
    Swatch("cut_b", "cut by B (lowered)", foreground="#d9730d"),
    Swatch("cut_agree", f"A and B cut within {DEFAULT_WITHIN} characters", background="#d6d6d6"),
]}
MARKER_KINDS = ("boundary", "cut_a", "cut_b")  # kinds drawn as a marker glyph between characters

# Paint order: later kinds win for the background.
BACKGROUND_ORDER = ("cut_agree", "chunk_odd", "chunk_even", "chunk_overlap", "window", "both", "only_a", "only_b",
                    "hit", "noise", "missed", "evidence")
EVIDENCE_KINDS = ("evidence", "noise", "missed")
# The backgrounds each view draws next to each other (and on white paper). Colour-blind safe by a stated margin:
# any two of one view differ by at least PALETTE_MARGIN (CIE76 ΔE*ab) under normal, protan, deutan and tritan
# vision (``colours.least_difference``; tests/ui/explore/test_ui_palette.py checks it). Quoted sentences are a text
# style (bold, wavy underline), references and overlaps underlines: never a colour to tell from a background.
PAPER = "#ffffff"
PALETTE_MARGIN = 12.0
VIEW_BACKGROUNDS: dict[str, tuple[str, ...]] = {
    "passages and one side's document": ("window", "hit", "alt"),
    "A/B document": ("only_a", "only_b", "both", "hit_a", "hit_b", "hit_both"),
    "evidence": ("evidence", "noise", "missed", "hit_evidence", "hit_noise"),
    "chunk map": ("chunk_odd", "chunk_even", "chunk_overlap"),
    "cuts of A and B": ("cut_agree",),
}
HIT_SHADES = {"only_a": "hit_a", "only_b": "hit_b", "both": "hit_both", "evidence": "hit_evidence",
              "noise": "hit_noise"}


@dataclass(frozen=True)
class Palette:
    """The app's colours for one colour scheme (the stylesheet and the plots are built from it)."""

    text: str
    muted: str
    border: str
    card: str
    page: str
    accent: str
    raised: str  # summary line and library strip: a shade between page and card
    dark: bool = False
    # document text stays on light paper in both schemes (the highlight colours are made for it)
    paper: str = "#ffffff"
    paper_page: str = "#f6f8fa"
    ink: str = "#1d2329"


LIGHT = Palette(text="#1d2329", muted="#5f6b7a", border="#d0d7de", card="#ffffff", page="#f6f8fa",
                accent="#2f6fde", raised="#eef2f7")
DARK = Palette(text="#e6edf3", muted="#9aa5b1", border="#3d444d", card="#1c2128", page="#121519",
               accent="#4c8df6", raised="#262c34", dark=True)

TEXT = LIGHT.text
MUTED = LIGHT.muted
BORDER = LIGHT.border
CARD = LIGHT.card
PAGE = LIGHT.page
ACCENT = LIGHT.accent
SIDE_COLOURS = {"A": "#2f6fde", "B": "#d9730d"}


def palette_for(scheme: Qt.ColorScheme) -> Palette:
    """``DARK`` for the dark colour scheme, else ``LIGHT`` (an unknown scheme is light)."""
    return DARK if scheme == Qt.ColorScheme.Dark else LIGHT


def system_scheme() -> Qt.ColorScheme:
    """The system's colour scheme (``Unknown`` without a GUI application or where Qt cannot tell)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return Qt.ColorScheme.Unknown
    return app.styleHints().colorScheme()


def current_palette() -> Palette:
    """The palette for the system's colour scheme: dark only when the system is dark."""
    return palette_for(system_scheme())


def stylesheet(p: Palette = LIGHT) -> str:
    """The app's stylesheet in palette ``p``."""
    ink = f" color: {p.ink};" if p.dark else ""  # light: the system's text colour, as before
    return f"""
QMainWindow, QDialog {{ background: {p.page}; }}
QLabel#sideTitle {{ font-weight: 600; font-size: 11pt; }}
QLabel#summary {{ color: {p.text}; padding: 4px 8px; background: {p.raised}; border: 1px solid {p.border};
    border-radius: 4px; }}
QLabel#muted, QLabel#stats {{ color: {p.muted}; }}
QLabel#knobSummary {{ color: {p.text}; background: {p.card}; border: 1px solid {p.border}; border-radius: 9px;
    padding: 1px 8px; }}
QLabel#knobSummary:hover {{ border-color: {p.accent}; }}
QPushButton#mode {{ border: 1px solid {p.border}; background: {p.card}; padding: 2px 12px; }}
QPushButton#mode:checked {{ background: {p.accent}; color: white; border-color: {p.accent}; }}
QToolButton#libraryStrip {{ border: none; border-right: 1px solid {p.border}; background: {p.raised}; }}
QLabel#banner {{ color: #8a1f11; background: #fdecea; border: 1px solid #f5c2bd; border-radius: 4px;
    padding: 4px 8px; }}
QGroupBox {{ font-weight: 600; border: 1px solid {p.border}; border-radius: 6px; margin-top: 10px;
    padding-top: 6px; background: {p.card}; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QTextEdit, QTextBrowser, QPlainTextEdit {{ background: {p.paper};{ink} border: 1px solid {p.border};
    border-radius: 4px; }}
QTextEdit#results {{ background: {p.paper_page}; border: 1px solid {p.border}; border-radius: 4px; }}
QTreeWidget {{ background: {p.card}; border: 1px solid {p.border}; border-radius: 4px; }}
QLineEdit#question {{ padding: 5px 8px; font-size: 11pt; border: 1px solid {p.border}; border-radius: 4px;
    background: {p.card}; }}
QPushButton#primary {{ background: {p.accent}; color: white; border: none; border-radius: 4px;
    padding: 5px 14px; font-weight: 600; }}
QPushButton#primary:disabled {{ background: #9db7e8; }}
QProgressBar {{ border: 1px solid {p.border}; border-radius: 3px; text-align: center; height: 14px;
    background: {p.card}; }}
QProgressBar::chunk {{ background: {p.accent}; border-radius: 2px; }}
QTabWidget::pane {{ border: 1px solid {p.border}; border-radius: 4px; background: {p.card}; }}
"""


STYLESHEET = stylesheet(LIGHT)


def app_stylesheet() -> str:
    """The stylesheet for the system's colour scheme."""
    return stylesheet(current_palette())


def text_font(point_size: float = 10.5) -> QFont:
    """The font for document text (the system's general font at a readable size)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    font.setPointSizeF(point_size)
    return font


def kinds_format(kinds: Iterable[str]) -> QTextCharFormat:
    """The character format of text that belongs to ``kinds`` (layers such as ``hit``, ``window``): the
    background of the kind painted last (``BACKGROUND_ORDER``); a hit chunk takes its category's hit shade
    (A only, B only, both, evidence, noise; ``alt``: every second hit chunk of a passage in its own shade, so
    adjacent hits stay two chunks); quoted sentences bold with a wavy underline."""
    kinds = frozenset(kinds)
    fmt = QTextCharFormat()
    fmt.setProperty(KINDS_PROPERTY, ",".join(sorted(kinds)))
    category = next((k for k in reversed(BACKGROUND_ORDER) if k in kinds and k != "hit"), "")
    background = category
    if "hit" in kinds:
        background = HIT_SHADES.get(category) or ("alt" if "alt" in kinds else "hit")
    if background:
        fmt.setBackground(QColor(SWATCHES[background].background))
        fmt.setForeground(QColor(TEXT))  # light highlights keep dark text, in a dark palette too
    if "heading" in kinds:
        fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setForeground(QColor(SWATCHES["heading"].foreground))
    if "quote" in kinds:
        fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setForeground(QColor(SWATCHES["quote"].foreground))
    if "reference" in kinds:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
        fmt.setUnderlineColor(QColor(SWATCHES["reference"].underline))
        fmt.setForeground(QColor("#6d004b"))
    elif "quote" in kinds:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        fmt.setUnderlineColor(QColor(SWATCHES["quote"].underline))
    elif "overlap" in kinds:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
        fmt.setUnderlineColor(QColor(SWATCHES["overlap"].underline))
    return fmt


def marker_format(kinds: Iterable[str] = ()) -> QTextCharFormat:
    """Format of the chunk-boundary marker glyph (on the background of the text it stands in)."""
    fmt = kinds_format(set(kinds) - {"heading", "reference", "overlap"})
    fmt.setForeground(QColor(SWATCHES["boundary"].foreground))
    fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setProperty(KINDS_PROPERTY, "boundary")
    return fmt


CUT_MARK_RAISE = 35.0  # percent of the line's height: A's cut marks sit this far above the baseline, B's below


def cut_marker_format(kind: str, agreed: bool = False) -> QTextCharFormat:
    """Format of a cut's marker glyph in the *cuts of A and B* view: ``kind`` ``cut_a`` (A's colour, raised
    above the line) or ``cut_b`` (B's colour, lowered), on the agreement grey when the other side cuts within
    reach (``agreed``); its kinds property reads ``cut_a`` or ``cut_a,cut_agree``."""
    fmt = marker_format({"cut_agree"} if agreed else ())
    fmt.setForeground(QColor(SWATCHES[kind].foreground))
    fmt.setBaselineOffset(CUT_MARK_RAISE if kind == "cut_a" else -CUT_MARK_RAISE)  # full size, unlike superscript
    fmt.setProperty(KINDS_PROPERTY, f"{kind},cut_agree" if agreed else kind)
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
