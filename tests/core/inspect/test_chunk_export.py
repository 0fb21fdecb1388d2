"""``workbench chunks export`` and the core writer / reader: every field written, JSON Lines and CSV read back
equal to the stored chunks, vectors beside them, and the refusals (nothing written)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.core.inspect.chunk_export import (
    COLUMNS,
    ExportError,
    exported_chunks,
    parquet_available,
    read_exported_chunks,
    read_exported_vectors,
    vectors_path,
    write_chunk_export,
)

GUIDE = ("# Guide\n\nIntro line with \"quotes\", commas, and a tab\there.\r\n\n" + "\n\n".join(
    f"## {t.title()}\n\n" + " ".join(f"The {t} note {n} says the {t} is checked daily — ☃ 𝄞." for n in range(9))
    for t in ["harbour", "glacier"]))


@pytest.fixture
def loaded(hash_ws, tmp_path):
    from workbench.core.ingest.values import ChunkConfig

    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8", newline="")
    (tmp_path / "notes.txt").write_text("Short notes.\nSecond line.", encoding="utf-8")
    assert not hash_ws.add_paths([str(tmp_path / "guide.md"), str(tmp_path / "notes.txt")]).failed
    config = ChunkConfig(size=30, overlap=5, structure_aware=True, heading_prefix=True)
    return hash_ws, hash_ws.sets.runtime(hash_ws.sets.ensure_chunk_set(config).id)


def test_every_field_of_every_chunk(loaded):
    ws, rt = loaded
    rows = exported_chunks(rt, ws.corpus.document)
    assert len(rows) == len(rt) > 4
    t = rt.table
    for row, chunk in enumerate(rows):
        doc = ws.corpus.document(chunk.doc_id)
        assert (chunk.doc_id, chunk.start, chunk.end) == (int(t.doc_ids[row]), int(t.starts[row]), int(t.ends[row]))
        assert chunk.doc_path == doc.path and chunk.text == doc.text[chunk.start:chunk.end]
        assert chunk.embedded_text == t.prefixes[row] + chunk.text and chunk.tokens == int(t.tokens[row])
        assert chunk.heading_path == rt.heading_path(row) and chunk.set_id == rt.info.id
        assert chunk.chunker == "structure"
        assert json.loads(chunk.chunker_params) == {"unit": "tokens", "size": 30, "overlap": 5}
    assert any(c.heading_path for c in rows) and any(c.embedded_text != c.text for c in rows), \
        "heading-path embedding puts the path before the text"


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_round_trip_with_vectors(loaded, tmp_path, fmt):
    ws, rt = loaded
    rows = exported_chunks(rt, ws.corpus.document)
    vectors = rt.index.vectors_for(rt.table.ids)
    out = tmp_path / f"chunks.{fmt}"
    result = write_chunk_export(rows, out, fmt, vectors)
    assert result.rows == len(rows) and result.vectors_path == vectors_path(out) == tmp_path / "chunks.vectors.npy"
    back = read_exported_chunks(out)
    assert back == rows, "spans, text, embedded text, heading paths and chunker read back as stored"
    for chunk in back:
        assert chunk.text == ws.corpus.document(chunk.doc_id).text[chunk.start:chunk.end]
    saved = read_exported_vectors(out)
    assert saved.dtype == np.float32 and saved.shape == (len(rows), vectors.shape[1])
    assert np.array_equal(saved, vectors.astype(np.float32))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".chunks", "chunks"))) == \
        sorted(["chunks.vectors.npy", f"chunks.{fmt}"]), "no temporary file is left"
    if fmt == "jsonl":
        first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
        assert tuple(first) == COLUMNS
    else:
        assert out.read_text(encoding="utf-8").splitlines()[0].split(",") == list(COLUMNS)


def test_refusals_write_nothing(loaded, tmp_path):
    ws, rt = loaded
    rows = exported_chunks(rt, ws.corpus.document)
    out = tmp_path / "chunks.jsonl"
    out.write_text("keep me")
    with pytest.raises(ExportError, match="exists"):
        write_chunk_export(rows, out, "jsonl")
    assert out.read_text() == "keep me"
    write_chunk_export(rows, out, "jsonl", force=True)
    assert read_exported_chunks(out) == rows
    other = tmp_path / "other.csv"
    vectors_path(other).write_bytes(b"x")
    with pytest.raises(ExportError, match="vectors.npy exists"):
        write_chunk_export(rows, other, "csv", rt.index.vectors_for(rt.table.ids))
    assert not other.exists()
    with pytest.raises(ExportError, match="no such folder"):
        write_chunk_export(rows, tmp_path / "nowhere" / "c.jsonl", "jsonl")
    with pytest.raises(ExportError, match="unknown export format"):
        write_chunk_export(rows, tmp_path / "c.xml", "xml")
    with pytest.raises(ExportError, match="3 vectors"):
        write_chunk_export(rows, tmp_path / "c.jsonl", "jsonl", np.zeros((3, 4), dtype=np.float32))
    assert not (tmp_path / "c.jsonl").exists()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc_path": "x"}\n')
    with pytest.raises(ExportError, match="line 1"):
        read_exported_chunks(bad)


@pytest.mark.skipif(parquet_available(), reason="pyarrow is installed here")
def test_parquet_is_refused_in_one_line_without_pyarrow(loaded, tmp_path):
    ws, rt = loaded
    with pytest.raises(ExportError, match="pyarrow"):
        write_chunk_export(exported_chunks(rt, ws.corpus.document), tmp_path / "c.parquet", "parquet")
    assert not (tmp_path / "c.parquet").exists()


@pytest.mark.skipif(not parquet_available(), reason="pyarrow is not installed")
def test_parquet_holds_every_column_and_the_vectors(loaded, tmp_path):
    import pyarrow.parquet as pq

    ws, rt = loaded
    rows = exported_chunks(rt, ws.corpus.document)
    vectors = rt.index.vectors_for(rt.table.ids)
    write_chunk_export(rows, tmp_path / "c.parquet", "parquet", vectors)
    table = pq.read_table(tmp_path / "c.parquet")
    assert table.column_names == [*COLUMNS, "vector"]
    assert table.column("text").to_pylist() == [c.text for c in rows]
    assert np.allclose(np.array(table.column("vector").to_pylist(), dtype=np.float32), vectors)


def test_cli_chunks_export(capsys, tmp_path, hash_cli):
    from cli_support import run_cli

    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8", newline="")
    data = tmp_path / "data"
    out = tmp_path / "out.csv"
    code, _out, err = run_cli(capsys, "chunks", "export", "neighbours", "--out", out, "--data-dir", data)
    assert code != 0 and "index" in err and not data.exists() and not out.exists(), "nothing is created"
    assert run_cli(capsys, "index", tmp_path / "guide.md", "--data-dir", data, "--quiet")[0] == 0
    code, text, err = run_cli(capsys, "chunks", "export", "neighbours", "--format", "csv", "--out", out,
                              "--vectors", "--data-dir", data, "--quiet")
    assert code == 0, err
    npy = tmp_path / "out.vectors.npy"
    assert text.startswith("wrote ") and str(npy) in text, "the side file's path is said"
    chunks = read_exported_chunks(out)
    assert chunks and {c.chunker for c in chunks} == {"fixed"}
    assert json.loads(chunks[0].chunker_params) == {"unit": "tokens", "size": 100, "overlap": 0}
    assert read_exported_vectors(out).shape[0] == len(chunks)
    assert all(c.text == GUIDE[c.start:c.end] for c in chunks)
    code, _text, err = run_cli(capsys, "chunks", "export", "neighbours", "--out", out, "--data-dir", data)
    assert code != 0 and "exists" in err and "--force" in err and err.count("\n") == 1
    code, text, err = run_cli(capsys, "chunks", "export", "neighbours", "--out", out, "--format", "jsonl",
                              "--force", "--json", "--data-dir", data, "--quiet")
    assert code == 0, err
    record = json.loads(text)
    assert record["rows"] == len(chunks) and record["vectors_path"] is None
    for bad in (["nonesuch", "--out", tmp_path / "x.jsonl"], ["neighbours"],
                ["neighbours", "--out", tmp_path / "no" / "x.jsonl"]):
        code, _text, err = run_cli(capsys, "chunks", "export", *bad, "--data-dir", data, "--quiet")
        assert code != 0 and err.count("\n") == 1, err
    if not parquet_available():
        code, _text, err = run_cli(capsys, "chunks", "export", "neighbours", "--format", "parquet",
                                   "--out", tmp_path / "x.parquet", "--data-dir", data)
        assert code != 0 and "pyarrow" in err and not (tmp_path / "x.parquet").exists()
