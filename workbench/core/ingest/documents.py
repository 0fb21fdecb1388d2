"""Document loaders: files and folders → ``Document`` values, with per-file errors as values.

The text of a ``.txt`` / ``.md`` file is stored exactly as decoded from the file (no newline or
whitespace changes), so character offsets from other tools (e.g. Chroma's reference spans) stay valid.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from workbench.core.ingest.filenames import file_kind, path_key, shown
from workbench.core.ingest.headings import Heading, parse_headings
from workbench.core.ingest.html_text import html_to_text
from workbench.core.ingest.values import Document as Document  # the value lives below the store

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
PDF_SUFFIXES = {".pdf"}
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES
MAX_FILE_MB = 20.0


@dataclass(frozen=True)
class LoadResult:
    """Outcome of loading one file: a document, or a status (``skipped``/``failed``) with a reason."""

    path: str
    document: Document | None
    status: str = "ok"
    reason: str = ""
    record: bool = True  # False for files that were never candidates (hidden, unsupported): not stored as problems
    too_large: bool = False  # skipped for the size limit only: an earlier indexed version of it stays


class LoadError(Exception):
    """A file that cannot be turned into a document; the message is shown to the user."""


class TooLarge(LoadError):
    """A file over the size limit (``--max-file-mb``): skipped this time, nothing said about its content."""


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
        guessed = _utf16_without_bom(data)
        if guessed is None:
            raise LoadError("binary content (NUL bytes) in a text file")
        return guessed
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


def _utf16_without_bom(data: bytes) -> tuple[str, str] | None:
    """UTF-16 text without a byte-order mark (NUL bytes at nearly every odd or even position), or None."""
    sample = data[:65536]
    if len(data) % 2 or len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    share_even, share_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if share_odd >= 0.3 and share_even <= 0.02:
        codec = "utf-16-le"
    elif share_even >= 0.3 and share_odd <= 0.02:
        codec = "utf-16-be"
    else:
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    head = text[:20000]
    printable = sum(1 for ch in head if ch.isprintable() or ch in "\t\n\r\f")
    if printable < 0.95 * len(head):
        return None
    return text, f"UTF-16 without a byte-order mark (read as {codec.upper()})"


def _pdf_text(data: bytes) -> str:
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
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
    except LimitReachedError:  # a compressed stream that unpacks past pypdf's limits: a "PDF bomb"
        raise LoadError("too large unpacked (a compressed stream in it expands past the PDF reader's limit; "
                        "a PDF bomb or an unusually large page)") from None
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise LoadError(f"malformed PDF ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # pypdf raises many exception types on broken files
        raise LoadError(f"malformed PDF ({type(exc).__name__})") from None
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise LoadError("PDF has no text layer (scanned images need OCR first)")
    return text


def _too_large(size: int, max_file_mb: float) -> str:
    shown_size = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size:,} bytes"  # never "0.0 MB"
    return f"too large ({shown_size}; the limit is {max_file_mb:g} MB, change it with --max-file-mb)"


def read_regular_file(path: str | os.PathLike[str], max_file_mb: float = MAX_FILE_MB) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file (links followed), read at most up to the size limit (0 = no limit).

    Raises ``LoadError`` with the status ``skipped`` reason as its message for a FIFO, device, socket or
    folder (never opened for reading) and for a file over the limit, even one that grows while it is read.
    """
    limit = int(max_file_mb * 1_000_000) if max_file_mb else 0
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise LoadError(f"not a regular file ({file_kind(info.st_mode)})")
    if limit and info.st_size > limit:
        raise TooLarge(_too_large(info.st_size, max_file_mb))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)  # the file opened, not a replacement swapped in after the check above
        if not stat.S_ISREG(info.st_mode):
            raise LoadError(f"not a regular file ({file_kind(info.st_mode)})")
        data = _read_at_most(fh, limit + 1) if limit else fh.read()
    if limit and len(data) > limit:
        raise TooLarge(_too_large(max(len(data), info.st_size), max_file_mb))
    return data, info


def _read_at_most(fh: BinaryIO, most: int) -> bytes:
    """Up to ``most`` bytes of ``fh``, read in steps: a large limit (``--max-file-mb 25000``) reserves no memory
    for bytes the file does not have."""
    parts: list[bytes] = []
    got = 0
    while got < most:
        part = fh.read(min(most - got, 1 << 20))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def link_target(path: str | os.PathLike[str]) -> str | None:
    """What a symbolic link points to (shown as text), or None when ``path`` is not a link."""
    try:
        return shown(os.readlink(path))
    except OSError:
        return None


def load_file(path: str | os.PathLike[str], max_file_mb: float = MAX_FILE_MB, key: str | None = None) -> LoadResult:
    """Load one file into a ``Document``; never raises for bad content.

    Only regular files are read (links followed): FIFOs, devices and sockets are skipped without being
    opened. Files larger than ``max_file_mb`` are skipped with a reason (0 = no limit). The result's path
    is the store key: ``key`` when given (a file reached through a link, see ``discovery``), else ``path_key``
    (absolute, real, printable).
    """
    p = Path(path)
    key = key or path_key(p)
    try:
        data, info = read_regular_file(p, max_file_mb)
    except TooLarge as exc:
        return LoadResult(key, None, "skipped", str(exc), too_large=True)
    except LoadError as exc:
        return LoadResult(key, None, "skipped", str(exc))
    except FileNotFoundError:
        target = link_target(p)
        if target is not None:
            return LoadResult(path_key(p, follow=False), None, "failed", f"broken link (to {target})")
        return LoadResult(key, None, "failed", "file disappeared before it could be read")
    except PermissionError:
        return LoadResult(key, None, "failed", "permission denied")
    except OSError as exc:
        return LoadResult(key, None, "failed", f"cannot read file ({exc.strerror or exc})")
    if not data:
        return LoadResult(key, None, "skipped", "empty file")
    suffix = p.suffix.lower()
    title = shown(p.stem)
    note = ""
    try:
        if suffix in PDF_SUFFIXES:
            fmt, text = "pdf", _pdf_text(data)
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
        return LoadResult(key, None, "failed", str(exc))
    if not text.strip():
        return LoadResult(key, None, "skipped", "no text content")
    if headings and fmt != "html" and headings[0].level == 1 and headings[0].start < 200:
        title = headings[0].title
    doc = Document(
        path=key,
        title=title,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        size=info.st_size,
        mtime=info.st_mtime,
        format=fmt,
        headings=tuple(headings),
        note=note,
    )
    return LoadResult(key, doc, "ok", note)
