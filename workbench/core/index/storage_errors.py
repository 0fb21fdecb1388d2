"""Errors of the data folder worded for people: a full disk, a read-only folder, a damaged database.

The store and the FAISS files turn low-level failures (``sqlite3.OperationalError``, FAISS's
``RuntimeError``, ``OSError``) into one ``StoreError`` whose message says what happened, that nothing
was lost, and what to do. Nothing here opens the database file (see ``workbench.core.index.store``).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
NOTHING_LOST = "nothing was lost: the store keeps its last complete state"


class StoreError(Exception):
    """The store cannot be opened or used; the message tells the user what to do."""


def free_mb(folder: Path) -> int:
    """Megabytes free on the file system holding ``folder`` (-1 when unknown)."""
    try:
        return int(shutil.disk_usage(folder).free // 1_000_000)
    except OSError:
        return -1


def disk_full_message(folder: Path) -> str:
    """The one-line message for a write that failed for lack of space (or a file-size limit)."""
    free = free_mb(folder)
    amount = f"{free:,} MB free" if free >= 0 else "free space unknown"
    return (f"the disk is full (or a file-size limit was reached): {amount} in {folder}; {NOTHING_LOST}. "
            "Free some space and run it again.")


def read_only_message(folder: Path) -> str:
    """The one-line message for a write refused because the data folder cannot be written."""
    return (f"the data folder {folder} is read-only: searching and listing work, but nothing can be indexed "
            "or changed there. Make it writable or choose another data folder.")


def damaged_message(path: Path, detail: str) -> str:
    """The one-line message for a database that failed SQLite's integrity check."""
    detail = " ".join(detail.replace("*** in database main ***", "").split())
    return (f"{path} is damaged (SQLite integrity check: {detail[:160]}); it is opened read-only and nothing "
            "will be written to it. It cannot be repaired: move the data folder away and index your files "
            "again (the cached embeddings are lost), or restore the folder from a backup.")


def folder_writable(folder: Path) -> bool:
    """True when new files can be created in ``folder`` (SQLite needs that for its -wal/-shm files)."""
    return os.access(folder, os.W_OK | os.X_OK)


def from_os_error(exc: OSError, folder: Path) -> StoreError | None:
    """A ``StoreError`` for a full disk or a read-only folder, or None for other errors."""
    if exc.errno in FULL_ERRNOS:
        return StoreError(disk_full_message(folder))
    if exc.errno in READ_ONLY_ERRNOS:
        return StoreError(read_only_message(folder))
    return None


def from_sqlite_error(exc: sqlite3.Error, folder: Path) -> StoreError | None:
    """A ``StoreError`` for SQLite's full-disk, read-only and write-I/O errors, or None for others.

    SQLite reports ENOSPC (and a short write, as at a file-size limit) as ``SQLITE_FULL``; other write
    failures such as EFBIG as ``SQLITE_IOERR_WRITE``, which carries no errno: it is worded as a full disk
    or failing disk.
    """
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name == "SQLITE_FULL" or "database or disk is full" in text:
        return StoreError(disk_full_message(folder))
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        return StoreError(read_only_message(folder))
    if name in {"SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHMSIZE",
                "SQLITE_IOERR_DIR_FSYNC"}:
        free = free_mb(folder)
        return StoreError(f"writing to {folder} failed ({text}; {free:,} MB free): the disk is full, over a "
                          f"file-size limit or failing; {NOTHING_LOST}. Free some space or check the disk, "
                          "then run it again.")
    return None


def describe(exc: BaseException, folder: Path) -> StoreError | None:
    """The ``StoreError`` for any storage failure this module knows how to word, else None."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return from_sqlite_error(exc, folder)
    if isinstance(exc, OSError):
        return from_os_error(exc, folder)
    return None
