"""Issue #35 item 9: what the command line says is what happened. A FIFO or a device given as a corpus is
named as one (not "missing", not "no file extension"); a PDF bomb is too large, not malformed; the rate
probe's embedded texts are counted where the summary counts them."""

from __future__ import annotations

import os
import shutil
import zlib
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.core.evaluate.datasets import DatasetError, load_question_set
from workbench.core.index.estimate import BuildEstimate
from workbench.core.ingest.documents import load_file

BUNDLED = Path(__file__).resolve().parents[2] / "workbench" / "datasets" / "sample"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")


@needs_fifo
def test_a_fifo_or_a_device_named_for_index_is_said_to_be_one(capsys, tmp_path, hash_cli):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (Path(os.devnull), "character device")):
        code, out, err = run_cli(capsys, "index", path, "--data-dir", tmp_path / "data")
        assert f"not a regular file ({kind})" in out and "no file extension" not in out, out
        assert code == 1 and "nothing was indexed" in err


@needs_fifo
def test_a_fifo_as_a_question_sets_corpus_is_said_to_be_one(tmp_path):
    root = tmp_path / "qs"
    shutil.copytree(BUNDLED, root)
    (root / "corpora" / "lab-safety.md").unlink()
    os.mkfifo(root / "corpora" / "lab-safety.md")
    with pytest.raises(DatasetError, match="lab-safety.md is a FIFO, not a file"):
        load_question_set(root)


def _pdf_bomb(path: Path, unpacked_mb: int) -> Path:
    """A one-page PDF whose content stream is ``unpacked_mb`` MB of spaces, deflated to a few hundred KB."""
    data = zlib.compress(b"BT /F1 11 Tf 56 740 Td (x) Tj ET\n" + b" " * (unpacked_mb * 1_000_000), 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


@pytest.mark.slow  # unpacks about 75 MB before the reader's limit stops it
def test_a_pdf_bomb_is_too_large_not_malformed(tmp_path):
    result = load_file(_pdf_bomb(tmp_path / "bomb.pdf", 200))
    assert result.document is None and result.reason.startswith("too large"), result.reason
    assert "malformed" not in result.reason


def test_the_rate_probe_is_counted_in_what_the_estimate_says():
    """The estimate said "10 to embed" and the build "10/10" while the summary said "42 embedded"."""
    said = BuildEstimate(42, 10, 0.5, measured=32).describe()
    assert said.startswith("~42 chunks, 42 to embed (32 embedded now") and "10 by the build" in said


def test_a_first_build_says_the_same_count_in_its_estimate_and_summary(capsys, tmp_path, hash_cli):
    sample = Path(__file__).resolve().parents[2] / "resources" / "sample"
    code, out, err = run_cli(capsys, "index", sample, "--data-dir", tmp_path / "d")
    assert code == 0
    line = next(x for x in err.splitlines() if x.startswith("[estimate]"))
    total = int(line.split(" to embed")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert f"{total} embedded" in out, (line, out)
