"""A chunk set's chunks written to a file for use elsewhere, and read back.

One row per chunk in the set's order (document, then position): the document's path and id, the chunk's
``[start, end)`` character span and its text (``text == document_text[start:end]``), the text that was
embedded (a heading path or situating sentence before it, when the set adds one), its token count, its heading
path, the chunker's name and parameters (JSON) and the set's id. Formats: JSON Lines, CSV (the heading path as
a JSON list) and, when pyarrow is installed, Parquet. With vectors, Parquet holds them as a list column of
float32; JSON Lines and CSV get a side ``.npy`` file (``vectors_path``) with one float32 row per chunk, in
row order. Every file is written by the output rules (``workbench.core.outputs``): to a temporary name beside
the target, then renamed, so a failed export leaves no partial file; an existing target is refused unless
``force``, which replaces a regular file and nothing else (never a link, FIFO, device or folder).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from workbench.core.ingest.chunkers.choice import config_chunker
from workbench.core.ingest.documents import Document
from workbench.core.inputs import InputRefused, read_text
from workbench.core.outputs import OutputRefused, check_file, write_files
from workbench.core.retrieve.loaded_set import LoadedSet

EXPORT_FORMATS = ("jsonl", "csv", "parquet")
MAX_READ_BYTES = 200 * 1024 * 1024  # an export read back (``cuts edit --from-export``)


class ExportError(ValueError):
    """An export refused before anything was written (the message says why, in one line)."""


@dataclass(frozen=True)
class ExportedChunk:
    """One exported chunk (the columns of the export, in order)."""

    doc_path: str
    doc_id: int
    start: int
    end: int
    text: str
    embedded_text: str
    tokens: int
    heading_path: tuple[str, ...]
    chunker: str
    chunker_params: str  # JSON object
    set_id: str


COLUMNS = tuple(f.name for f in fields(ExportedChunk))


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote."""

    path: Path
    rows: int
    vectors_path: Path | None = None  # the side .npy file (JSON Lines and CSV with vectors)


def parquet_available() -> bool:
    """True when pyarrow (the Parquet writer) is installed."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def vectors_path(path: Path) -> Path:
    """The side file of a JSON Lines or CSV export's vectors: ``chunks.jsonl`` → ``chunks.vectors.npy``."""
    return path.with_name(f"{path.stem}.vectors.npy")


def exported_chunks(rt: LoadedSet, document: Callable[[int], Document]) -> list[ExportedChunk]:
    """Every chunk of the loaded set ``rt`` as an export row (``document`` reads a stored document by id)."""
    name, params = config_chunker(rt.info.config)
    params_json = json.dumps(params, sort_keys=True)
    t = rt.table
    rows = []
    for row, (doc_id, start, end) in enumerate(zip(t.doc_ids.tolist(), t.starts.tolist(), t.ends.tolist(),
                                                   strict=True)):
        doc = document(doc_id)
        text = doc.text[start:end]
        rows.append(ExportedChunk(doc.path, doc_id, start, end, text, t.prefixes[row] + text, int(t.tokens[row]),
                                  rt.heading_path(row), name, params_json, rt.info.id))
    return rows


def check_target(path: Path, fmt: str, with_vectors: bool, force: bool = False) -> None:
    """Refuse (``ExportError``) a format that is unknown or not installed, or a target (or its side ``.npy``)
    that the write rules refuse (``outputs.check_file``): a missing folder, a link, a folder, a FIFO or device,
    an existing file unless ``force``."""
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: choose one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "parquet" and not parquet_available():
        raise ExportError("parquet needs pyarrow, which is not installed here (the parquet extra: "
                          "pip install pyarrow); use --format jsonl or csv")
    targets = [path] + ([vectors_path(path)] if with_vectors and fmt != "parquet" else [])
    try:
        for target in targets:
            check_file(target, force)
    except OutputRefused as exc:
        raise ExportError(str(exc)) from None


def _row_dict(chunk: ExportedChunk) -> dict[str, object]:
    data = asdict(chunk)
    data["heading_path"] = list(chunk.heading_path)
    return data


def _write_jsonl(tmp: Path, rows: Sequence[ExportedChunk]) -> None:
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for chunk in rows:
            fh.write(json.dumps(_row_dict(chunk), ensure_ascii=False) + "\n")


def _write_csv(tmp: Path, rows: Sequence[ExportedChunk]) -> None:
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        for chunk in rows:
            data = _row_dict(chunk)
            data["heading_path"] = json.dumps(data["heading_path"], ensure_ascii=False)
            writer.writerow([data[c] for c in COLUMNS])


def _write_parquet(tmp: Path, rows: Sequence[ExportedChunk], vectors: np.ndarray | None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, object] = {c: [_row_dict(chunk)[c] for chunk in rows] for c in COLUMNS}
    if vectors is not None:
        columns["vector"] = pa.array(list(vectors.astype(np.float32)), type=pa.list_(pa.float32()))
    pq.write_table(pa.table(columns), str(tmp))


def write_chunk_export(rows: Sequence[ExportedChunk], path: Path, fmt: str, vectors: np.ndarray | None = None,
                       force: bool = False) -> ExportResult:
    """Write ``rows`` (with ``vectors``, one row each, when given) to ``path`` in ``fmt``; see the module."""
    path = Path(path)
    check_target(path, fmt, vectors is not None, force)
    if vectors is not None and len(vectors) != len(rows):
        raise ExportError(f"{len(vectors)} vectors for {len(rows)} chunks")
    targets: list[tuple[Path, Callable[[Path], object]]] = []
    if fmt == "jsonl":
        targets.append((path, lambda tmp: _write_jsonl(tmp, rows)))
    elif fmt == "csv":
        targets.append((path, lambda tmp: _write_csv(tmp, rows)))
    else:
        targets.append((path, lambda tmp: _write_parquet(tmp, rows, vectors)))
    side = None
    if vectors is not None and fmt != "parquet":
        side = vectors_path(path)
        array = np.ascontiguousarray(vectors, dtype=np.float32)

        def write_side(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                np.save(fh, array)

        targets.append((side, write_side))
    try:
        write_files(targets, replace=force)
    except OutputRefused as exc:
        raise ExportError(str(exc)) from None
    return ExportResult(path, len(rows), side)


def _chunk_from(data: dict[str, object], heading_path: object) -> ExportedChunk:
    paths = json.loads(heading_path) if isinstance(heading_path, str) else heading_path
    if not isinstance(paths, list):
        raise ExportError("heading_path is not a list")
    return ExportedChunk(str(data["doc_path"]), int(str(data["doc_id"])), int(str(data["start"])),
                         int(str(data["end"])), str(data["text"]), str(data["embedded_text"]),
                         int(str(data["tokens"])), tuple(str(p) for p in paths), str(data["chunker"]),
                         str(data["chunker_params"]), str(data["set_id"]))


def read_exported_chunks(path: Path, max_bytes: int = MAX_READ_BYTES) -> list[ExportedChunk]:
    """The chunks of an export written by ``write_chunk_export`` (JSON Lines or CSV, told by the file's
    suffix ``.csv``; anything else is read as JSON Lines), in the order written; ``ExportError`` names the
    first row that cannot be read. The file is read by the read rules (``workbench.core.inputs``): a regular
    file only (a FIFO or device is refused without blocking), at most ``max_bytes`` (counted while reading).
    A CSV field may be as long as the file (a chunk over the csv module's default 131,072 characters)."""
    path = Path(path)
    out: list[ExportedChunk] = []
    try:
        text = read_text(path, max_bytes)
    except InputRefused as exc:
        raise ExportError(str(exc)) from None
    try:
        with io.StringIO(text, newline="") as fh:
            if path.suffix.lower() == ".csv":
                if csv.field_size_limit() < len(text) + 1:  # within the read bound: no field is longer than the file
                    csv.field_size_limit(len(text) + 1)
                for n, record in enumerate(csv.DictReader(fh), start=2):
                    try:
                        out.append(_chunk_from(dict(record), record["heading_path"]))
                    except (KeyError, ValueError, TypeError, RecursionError) as exc:
                        raise ExportError(f"{path}: line {n}: not an exported chunk ({exc})") from None
            else:
                for n, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    try:
                        data = json.loads(line)
                        out.append(_chunk_from(data, data["heading_path"]))
                    except (KeyError, ValueError, TypeError, AttributeError, RecursionError) as exc:
                        raise ExportError(f"{path}: line {n}: not an exported chunk ({exc})") from None
    except csv.Error as exc:
        raise ExportError(f"{path}: not valid CSV ({exc})") from None
    return out


def read_exported_vectors(path: Path) -> np.ndarray:
    """The side ``.npy`` vectors of a JSON Lines or CSV export at ``path`` (one float32 row per chunk)."""
    vectors: np.ndarray = np.load(vectors_path(Path(path)), allow_pickle=False)
    return vectors
