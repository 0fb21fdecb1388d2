"""Document loaders: files and folders → ``Document`` values, with per-file errors as values.

The text of a ``.txt`` / ``.md`` file is stored exactly as decoded from the file (no newline or
whitespace changes), so character offsets from other tools (e.g. Chroma's reference spans) stay valid.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.headings import Heading, parse_headings
from workbench.core.html_text import html_to_text

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
PDF_SUFFIXES = {".pdf"}
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES
MAX_FILE_MB = 20.0


@dataclass(frozen=True)
class Document:
    """A loaded document: stored text plus its metadata and heading tree."""

    path: str
    title: str
    text: str
    sha256: str
    size: int
    mtime: float
    format: str
    headings: tuple[Heading, ...] = ()
    id: int | None = None
    note: str = ""


@dataclass(frozen=True)
class LoadResult:
    """Outcome of loading one file: a document, or a status (``skipped``/``failed``) with a reason."""

    path: str
    document: Document | None
    status: str = "ok"
    reason: str = ""


@dataclass
class Discovery:
    """Files found under the given paths, plus paths that could not be used."""

    files: list[Path] = field(default_factory=list)
    problems: list[LoadResult] = field(default_factory=list)


class LoadError(Exception):
    """A file that cannot be turned into a document; the message is shown to the user."""


def discover(paths: Iterable[str | os.PathLike[str]]) -> Discovery:
    """Expand files and folders (recursively, following links once, hidden entries skipped)."""
    found = Discovery()
    seen_dirs: set[str] = set()
    seen_files: set[str] = set()

    def add_file(p: Path, explicit: bool) -> None:
        real = os.path.realpath(p)
        if real in seen_files:
            return
        if p.suffix.lower() not in SUPPORTED_SUFFIXES:
            if explicit:
                found.problems.append(
                    LoadResult(str(p), None, "skipped", f"unsupported file type '{p.suffix or p.name}'")
                )
            return
        seen_files.add(real)
        found.files.append(p)

    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            found.problems.append(LoadResult(str(path), None, "failed", "no such file or folder"))
        elif path.is_file():
            add_file(path, explicit=True)
        elif path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=True, onerror=None):
                real = os.path.realpath(root)
                if real in seen_dirs:
                    dirs[:] = []
                    continue
                seen_dirs.add(real)
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        add_file(Path(root) / name, explicit=False)
        else:
            found.problems.append(LoadResult(str(path), None, "skipped", "not a regular file or folder"))
    return found


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode file bytes to text; returns (text, note). Raises LoadError for binary content."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "UTF-8 with BOM"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError as exc:
            raise LoadError(f"invalid UTF-16 text ({exc.reason})") from None
    if b"\x00" in data[:65536]:
        raise LoadError("binary content (NUL bytes) in a text file")
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        pass
    sample = data[:65536]
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    if controls > len(sample) * 0.05:
        raise LoadError("binary content (not valid UTF-8 text)")
    try:
        return data.decode("cp1252"), "not valid UTF-8; decoded as Windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "not valid UTF-8; decoded as Latin-1"


def _pdf_text(path: Path) -> str:
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise LoadError("encrypted PDF (needs a password)")
            except LoadError:
                raise
            except Exception:
                raise LoadError("encrypted PDF (cannot be decrypted)") from None
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except LoadError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise LoadError(f"malformed PDF ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # pypdf raises many exception types on broken files
        raise LoadError(f"malformed PDF ({type(exc).__name__})") from None
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise LoadError("PDF has no text layer (scanned images need OCR first)")
    return text


def load_file(path: str | os.PathLike[str], max_file_mb: float = MAX_FILE_MB) -> LoadResult:
    """Load one file into a ``Document``; never raises for bad content.

    Files larger than ``max_file_mb`` are skipped with a reason (0 = no limit).
    """
    p = Path(path)
    try:
        stat = p.stat()
        if max_file_mb and stat.st_size > max_file_mb * 1_000_000:
            return LoadResult(str(p), None, "skipped", f"too large ({stat.st_size / 1e6:.1f} MB; the limit is "
                                                       f"{max_file_mb:g} MB, change it with --max-file-mb)")
        data = p.read_bytes()
    except FileNotFoundError:
        return LoadResult(str(p), None, "failed", "file disappeared before it could be read")
    except PermissionError:
        return LoadResult(str(p), None, "failed", "permission denied")
    except OSError as exc:
        return LoadResult(str(p), None, "failed", f"cannot read file ({exc.strerror or exc})")
    if not data:
        return LoadResult(str(p), None, "skipped", "empty file")
    suffix = p.suffix.lower()
    title = p.stem
    note = ""
    try:
        if suffix in PDF_SUFFIXES:
            fmt, text = "pdf", _pdf_text(p)
            headings: list[Heading] = []
        elif suffix in HTML_SUFFIXES:
            fmt = "html"
            raw, note = decode_text(data)
            text, headings, html_title = html_to_text(raw)
            title = html_title or title
        else:
            fmt = "markdown" if suffix in {".md", ".markdown"} else "text"
            text, note = decode_text(data)
            headings = parse_headings(text, "markdown" if fmt == "markdown" else "plain")
    except LoadError as exc:
        return LoadResult(str(p), None, "failed", str(exc))
    if not text.strip():
        return LoadResult(str(p), None, "skipped", "no text content")
    if headings and fmt != "html" and headings[0].level == 1 and headings[0].start < 200:
        title = headings[0].title
    doc = Document(
        path=str(p.resolve()),
        title=title,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        size=stat.st_size,
        mtime=stat.st_mtime,
        format=fmt,
        headings=tuple(headings),
        note=note,
    )
    return LoadResult(str(p), doc, "ok", note)


def load_paths(paths: Iterable[str | os.PathLike[str]], max_file_mb: float = MAX_FILE_MB) -> Iterator[LoadResult]:
    """Discover and load every supported file under ``paths``; problems are yielded as results."""
    found = discover(paths)
    yield from found.problems
    for file in found.files:
        yield load_file(file, max_file_mb)
