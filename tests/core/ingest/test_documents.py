"""Document loaders: formats, exact stored text, headings with offsets, per-file errors."""

import os

import pytest
from conftest import SAMPLE
from pdfgen import make_pdf

from workbench.core.ingest.discovery import discover, load_paths
from workbench.core.ingest.documents import load_file
from workbench.core.ingest.headings import heading_path_at, parse_headings


def test_markdown_text_is_stored_unaltered(tmp_path):
    raw = "# Title\r\n\r\nLine with trailing spaces   \n\n## Sub\n\ttabbed text\n"
    f = tmp_path / "a.md"
    f.write_bytes(raw.encode())
    doc = load_file(f).document
    assert doc.text == raw
    assert doc.title == "Title"
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Title"), (2, "Sub")]
    for h in doc.headings:
        assert h.title in doc.text[h.start : h.end]


def test_markdown_headings_ignore_code_fences_and_support_setext():
    text = "Intro\n=====\n\n```\n# not a heading\n```\n\nPart\n----\n\ntext\n"
    assert [(h.level, h.title) for h in parse_headings(text)] == [(1, "Intro"), (2, "Part")]


def test_rst_underlines_levels_by_first_appearance_and_wikitext():
    text = "Top\n===\n\nA\n---\n\nbody\n\nB\n---\n\n = = Wiki sub = = \n"
    heads = parse_headings(text, "plain")
    assert [(h.level, h.title) for h in heads] == [(1, "Top"), (2, "A"), (2, "B"), (2, "Wiki sub")]
    assert heading_path_at(heads, text.index("body")) == ("Top", "A")


def test_html_text_headings_and_scripts(tmp_path):
    doc = load_file(SAMPLE / "backup-howto.html").document
    assert doc.title == "Backing up the research notebook server"
    assert "console.log" not in doc.text and "font-family" not in doc.text
    assert "tracker.png" not in doc.text
    titles = [h.title for h in doc.headings]
    assert titles[0] == doc.title and "Why backups are encrypted" in titles[1:]
    assert {h.level for h in doc.headings if h.title == "Why backups are encrypted"} == {2}
    for h in doc.headings:
        assert doc.text[h.start : h.end] == h.title


def test_pdf_text_layer(tmp_path):
    path = make_pdf([["Hello PDF world", "second line"], ["page two"]], tmp_path / "x.pdf")
    doc = load_file(path).document
    assert "Hello PDF world" in doc.text and "page two" in doc.text
    assert doc.format == "pdf"


@pytest.mark.parametrize(
    ("name", "data", "status", "reason"),
    [
        ("empty.txt", b"", "skipped", "empty file"),
        ("bin.txt", b"\x00\x01\x02binary\x00" * 50, "failed", "binary"),
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "failed", "PDF"),
        ("blank.md", b"   \n\n  ", "skipped", "no text"),
    ],
)
def test_bad_files_are_reported_with_a_reason(tmp_path, name, data, status, reason):
    f = tmp_path / name
    f.write_bytes(data)
    result = load_file(f)
    assert result.document is None
    assert result.status == status
    assert reason.lower() in result.reason.lower()


def test_encodings(tmp_path):
    (tmp_path / "bom.txt").write_bytes("\ufeffhello é".encode())
    (tmp_path / "u16.txt").write_bytes("hello ü".encode("utf-16"))
    (tmp_path / "latin.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    assert load_file(tmp_path / "bom.txt").document.text == "hello é"
    assert load_file(tmp_path / "u16.txt").document.text == "hello ü"
    latin = load_file(tmp_path / "latin.txt")
    assert latin.document.text == "café crème" and "UTF-8" in latin.reason


def test_folder_discovery_recurses_skips_hidden_and_survives_symlink_loops(tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "sub" / "deeper" / "a.md").write_text("# A\n\ntext")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.md").write_text("hidden")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    os.symlink(tmp_path, tmp_path / "sub" / "loop")
    found = discover([tmp_path])
    assert [p.name for p in found.files] == ["a.md"]
    reasons = {os.path.basename(r.path): (r.status, r.reason.split(" (")[0], r.record) for r in found.problems}
    assert reasons == {".hidden": ("skipped", "hidden folder", False),
                       "img.png": ("skipped", "unsupported type .png", False)}


def test_one_bad_file_does_not_stop_the_rest(tmp_path):
    (tmp_path / "good.md").write_text("# Good\n\nfine text")
    (tmp_path / "bad.pdf").write_bytes(b"garbage")
    results = {os.path.basename(r.path): r for r in load_paths([tmp_path, tmp_path / "missing.txt"])}
    assert results["good.md"].document is not None
    assert results["bad.pdf"].status == "failed"
    assert results["missing.txt"].reason == "no such file or folder"
