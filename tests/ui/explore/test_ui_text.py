"""Text safety and offsets: the UTF-16 helper with emoji, highlights on the right characters after emoji,
and untrusted document markup shown as text (nothing parsed, nothing fetched)."""

from __future__ import annotations

from ui_support import WAIT_MS, search

from workbench.core.spans import Span, merge_spans
from workbench.ui.basics.theme import MARKER
from workbench.ui.explore.render import chunk_markers, displayable, insert_layers, rendered_spans
from workbench.ui.widgets.utf16 import Utf16Map, to_code_point, to_utf16, utf16_len

pytest_plugins = ["ui_support"]

EMOJI = "Start 😀 then 👩‍🔬 and 𝔘𝔫𝔦 — 漢字, flags 🇩🇪, end"


def test_utf16_map_round_trips_every_offset_with_emoji():
    m = Utf16Map(EMOJI)
    assert m.utf16_length == utf16_len(EMOJI) == len(EMOJI.encode("utf-16-le")) // 2
    for i in range(len(EMOJI) + 1):
        u = m.to_utf16(i)
        assert u == len(EMOJI[:i].encode("utf-16-le")) // 2 == to_utf16(EMOJI, i)
        assert m.to_code_point(u) == i == to_code_point(EMOJI, u)
    smile = EMOJI.index("😀")
    assert m.to_code_point(m.to_utf16(smile) + 1) == smile  # inside the surrogate pair: its character
    assert Utf16Map("plain ascii").to_utf16(5) == 5


def test_displayable_keeps_lengths_and_defuses_structure_characters():
    text = "a\r\nb\rc\x00d\ufdd0e😀"
    shown = displayable(text)
    assert len(shown) == len(text) and utf16_len(shown) == utf16_len(text)
    assert "\r" not in shown and "\x00" not in shown and "\ufdd0" not in shown


def test_highlights_land_on_the_same_characters_after_emoji(qtbot):
    from PySide6.QtGui import QTextCursor, QTextDocument

    from workbench.ui.explore.render import PositionMap

    text = f"{EMOJI}\n\nThe migration runs first 😀😀 because new code needs the columns. 👍 Done."
    hit = (text.index("migration"), text.index("columns") + len("columns"))
    window = (len(EMOJI) + 2, len(text))
    doc = QTextDocument()
    pmap = PositionMap()
    insert_layers(QTextCursor(doc), 7, text, 0, len(text), {"hit": [hit], "window": [window]},
                  markers=[text.index("because")], pmap=pmap)
    assert rendered_spans(doc, pmap, "hit") == [Span(7, *hit)]
    assert rendered_spans(doc, pmap, "window") == [Span(7, *window)]
    # the Qt text under the hit's UTF-16 range is exactly the Python slice (plus the one marker glyph)
    start, end = pmap.position_of(7, hit[0]), pmap.position_of(7, hit[1] - 1) + 1
    cursor = QTextCursor(doc)
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    assert cursor.selectedText().replace(MARKER, "") == text[hit[0]:hit[1]]
    assert pmap.locate(start) == (7, hit[0], None)


HOSTILE = """# Restoring the <b>notebook</b> server

<script>alert('boom')</script>
To restore the notebook server from backup, stop the service 😀 and copy the snapshot back.
<img src="http://example.invalid/pixel.png"> <a href="http://example.invalid/">click</a>
Restoring takes about ten minutes; check the checksums afterwards. 👩‍🔬 &amp; &lt;done&gt;
"""


def test_untrusted_markup_is_shown_as_text_and_nothing_is_fetched(qtbot, make_window, hash_ws, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    window = make_window(hash_ws)
    with qtbot.waitSignal(window.library.indexingFinished, timeout=WAIT_MS):
        window.library.index_paths([str(folder)])
    (result,) = search(qtbot, window, "How do I restore the notebook server from backup?")
    side = window.compare.a
    view = side.results
    shown = view.document().toPlainText().replace(MARKER, "")  # chunk boundaries may fall inside markup
    for markup in ("<script>alert('boom')</script>", '<img src="http://example.invalid/pixel.png">',
                   "<b>notebook</b>", "&amp; &lt;done&gt;"):
        assert markup in shown
    doc_text = hash_ws.corpus.doc_text(result.passages[0].span.doc_id)
    assert view.rendered("hit") == merge_spans(s for p in result.passages for s in p.hit_spans)
    assert view.passage_texts() == [doc_text[p.span.start:p.span.end] for p in result.passages]
    for text_view in (view, window.compare.doc_pane.view):
        assert text_view.resource_requests == []
        assert not _has_images(text_view.document())
    view.activate(0)
    doc_view = window.compare.doc_pane.view
    assert "<script>alert('boom')</script>" in doc_view.document().toPlainText().replace(MARKER, "")
    card = _hover_card(view, result.passages[0].span.doc_id, doc_text.index("alert"))
    assert "&lt;script&gt;" in card and "<script>" not in card and "<img" not in card


def _has_images(document) -> bool:
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat():
                return True
            it += 1
        block = block.next()
    return False


def _hover_card(view, doc_id: int, offset: int) -> str:
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc_id, offset))
    return view.hover_text(view.cursorRect(cursor).center())


def test_a_document_shown_without_chunks_has_no_markers():
    """A document drawn before any chunk set is loaded (no spans) has no chunk markers; it raised ValueError."""
    assert chunk_markers([], "text with no chunks") == set()
    assert chunk_markers([Span(1, 0, 4)], "text more") == {0, 4}
