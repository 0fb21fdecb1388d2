"""File names as the store keys them: absolute, printable text, and back to the name on disk.

A file name that is not valid UTF-8 (e.g. ``caf\\xe9.txt`` written by a Latin-1 system) reaches Python as
a string with lone surrogates (``os.fsdecode``'s surrogateescape). Such a string cannot be stored in
SQLite, written as JSON or printed, so every name is keyed by its *shown* form: each undecodable byte is
written as ``\\xNN``. ``fs_path`` turns a key back into the name on disk, so re-indexing a stored path
finds the same file again.
"""

from __future__ import annotations

import os
import re
import stat

_ESCAPED = re.compile(r"\\x([89a-f][0-9a-f])")


def shown(name: str | os.PathLike[str]) -> str:
    """``name`` as printable text: undecodable bytes of a file name become ``\\xNN`` (others unchanged)."""
    text = os.fspath(name)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", errors="backslashreplace")


def path_key(path: str | os.PathLike[str], follow: bool = True) -> str:
    """The store key of a file: its absolute real path (``follow``) or the link itself, shown as text."""
    full = os.path.abspath(os.fspath(path))
    if follow:
        return shown(os.path.realpath(full))
    parent, name = os.path.split(full)
    return shown(os.path.join(os.path.realpath(parent), name))


def fs_path(key: str | os.PathLike[str]) -> str:
    """The name on disk for a store key or a path typed by the user (``\\xNN`` escapes undone if needed)."""
    text = os.fspath(key)
    if os.path.lexists(text) or not _ESCAPED.search(text):
        return text
    raw = _ESCAPED.sub(lambda m: "\0" + m.group(1), text)  # mark escapes, then rebuild the bytes
    parts = raw.split("\0")
    data = parts[0].encode("utf-8") + b"".join(bytes([int(p[:2], 16)]) + p[2:].encode("utf-8") for p in parts[1:])
    candidate = os.fsdecode(data)
    return candidate if os.path.lexists(candidate) else text


def is_inside(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or lies under it (both absolute, same form)."""
    root = folder.rstrip(os.sep) + os.sep
    return path == folder or path.startswith(root)


def file_kind(mode: int) -> str:
    """A word for the kind of a non-regular file (``FIFO``, ``character device``, …)."""
    kinds = [(stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
             (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "link")]
    return next((word for test, word in kinds if test(mode)), "special file")
