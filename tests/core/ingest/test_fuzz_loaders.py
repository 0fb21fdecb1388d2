"""Fuzz the document loaders with random bytes: they never raise, and a document's headings and text agree."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.ingest.documents import load_file

SUFFIXES = [".txt", ".md", ".html", ".pdf", ".rst"]
_DIR = Path(tempfile.mkdtemp(prefix="wb-fuzz-"))

markupish = st.lists(st.sampled_from([b"# ", b"## ", b"<h1>", b"</h1>", b"<p>", b"<script>", b"%PDF-1.4\n", b"obj",
                                      b"\n", b"\r\n", b"====\n", b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"text ",
                                      "é😀".encode(), b"\xe9"]), max_size=40).map(b"".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=3000), markupish), st.sampled_from(SUFFIXES))
def test_random_bytes_never_crash_a_loader(data, suffix):
    path = _DIR / f"fuzz{suffix}"
    path.write_bytes(data)
    result = load_file(path)
    assert result.status in {"ok", "skipped", "failed"}
    if result.document is None:
        assert result.reason
        return
    doc = result.document
    assert doc.text.strip()
    for h in doc.headings:
        assert 0 <= h.start <= h.end <= len(doc.text)
    assert [h.start for h in doc.headings] == sorted(h.start for h in doc.headings)
