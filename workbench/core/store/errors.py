"""Errors of the data folder worded for people: a full disk, a read-only folder, a damaged database.

The store and the FAISS files turn low-level failures (``sqlite3.OperationalError``, FAISS's
``RuntimeError``, ``OSError``) into one ``StoreError`` whose message says what happened, that nothing
was lost, and what to do. Nothing here opens the database file (see ``workbench.core.store``).
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
BUSY_TIMEOUT_S = 60.0  # how long a connection waits for another one's write lock before giving up


class StoreError(Exception):
    """The store cannot be opened or used; the message tells the user what to do."""


class WriteRefused(StoreError):
    """A write the data folder refused (a full disk, a read-only folder or database, a failing disk): what is
    stored is intact and can still be read, so a search goes on with the last complete state."""


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


def busy_message(folder: Path) -> str:
    """The one-line message for a database another process kept locked for longer than a busy wait."""
    return (f"the data folder {folder} is busy: another process kept its database locked for over "
            f"{BUSY_TIMEOUT_S:.0f} s; {NOTHING_LOST}. Try again when it has finished.")


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's 'database is locked' / 'database table is locked' (SQLITE_BUSY, SQLITE_LOCKED)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "is locked" in str(exc)


def out_of_space(exc: sqlite3.DatabaseError, folder: Path) -> bool:
    """True when a SQLite error comes from a full disk: ``SQLITE_FULL``, or an I/O error while nothing is
    free on the file system (creating the shared-memory file of a WAL database fails that way)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL" or "database or disk is full" in str(exc):
        return True
    return (name.startswith("SQLITE_IOERR") or "disk I/O error" in str(exc)) and 0 <= free_mb(folder) < 1


def open_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """The ``StoreError`` for a database that could not be opened: says what SQLite found, and advises
    throwing data away only when SQLite reported the file damaged."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_NOTADB" or "not a database" in str(exc):
        return StoreError(f"{path} is not a SQLite database; it was left untouched. "
                          "Move it away or choose another data folder.")
    known = describe(exc, path.parent)
    if known is not None:
        return known
    if name.startswith("SQLITE_CORRUPT") or "malformed" in str(exc):
        return StoreError(f"{path} is damaged ({exc}); it was left untouched. It cannot be repaired: move the "
                          "data folder away and index your files again (the cached embeddings are lost), or "
                          "restore it from a backup.")
    return StoreError(f"{path} cannot be opened ({exc}); it was left untouched and nothing was lost.")


def database_failure(exc: sqlite3.DatabaseError, folder: Path) -> str:
    """The one-line message for a SQLite error met while working on a store that opened fine: 'busy' when
    another process held the database too long, 'damaged' only when SQLite itself reported damage."""
    known = describe(exc, folder)
    if known is not None:
        return str(known)
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_CORRUPT") or "malformed" in str(exc):
        return (f"SQLite reports damage in the database of {folder} ({exc}); run `workbench verify` to see "
                "what is affected")
    return f"a database operation failed ({exc}); what it was writing was rolled back"


def folder_writable(folder: Path) -> bool:
    """True when new files can be created in ``folder`` (SQLite needs that for its -wal/-shm files)."""
    return os.access(folder, os.W_OK | os.X_OK)


def from_os_error(exc: OSError, folder: Path) -> StoreError | None:
    """A ``StoreError`` for a full disk or a read-only folder, or None for other errors."""
    if exc.errno in FULL_ERRNOS:
        return WriteRefused(disk_full_message(folder))
    if exc.errno in READ_ONLY_ERRNOS:
        return WriteRefused(read_only_message(folder))
    return None


def from_sqlite_error(exc: sqlite3.Error, folder: Path) -> StoreError | None:
    """A ``StoreError`` for SQLite's full-disk, read-only and write-I/O errors, or None for others.

    SQLite reports ENOSPC (and a short write, as at a file-size limit) as ``SQLITE_FULL``; other write
    failures such as EFBIG as ``SQLITE_IOERR_WRITE``, which carries no errno: it is worded as a full disk
    or failing disk.
    """
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if is_busy(exc):
        return StoreError(busy_message(folder))
    if name == "SQLITE_FULL" or "database or disk is full" in text:
        return WriteRefused(disk_full_message(folder))
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        return WriteRefused(read_only_message(folder))
    if name in {"SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHMSIZE",
                "SQLITE_IOERR_DIR_FSYNC"}:
        free = free_mb(folder)
        return WriteRefused(f"writing to {folder} failed ({text}; {free:,} MB free): the disk is full, over a "
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
