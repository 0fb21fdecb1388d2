"""Opening a workbench database safely: only through SQLite, read-only when the folder or file is, refusing
writes to a damaged file (``quick_check`` once per process and file version), storage errors worded.

``StoreConnection`` is the base of ``workbench.core.store.Store``; each group of tables is a ``Tables`` part
that shares the store's one connection (``store.documents``, ``store.sets``, ``store.caches``, ``store.runs``).
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar
from urllib.parse import quote

import sqlite_utils

from workbench.core.store.errors import (
    BUSY_TIMEOUT_S,
    StoreError,
    WriteRefused,
    damaged_message,
    describe,
    folder_writable,
    is_busy,
    open_error,
    out_of_space,
    read_only_message,
)
from workbench.core.store.readback import BadValues, counter
from workbench.core.store.schema import SCHEMA_VERSION, foreign_tables, migrate

# Integrity of each database file is checked once per process and file version:
# {(device, inode, size, mtime): refusal or None}.
_CHECKED: dict[tuple[int, int, int, int], str | None] = {}
_CHECKED_GUARD = threading.Lock()


def now() -> str:
    """UTC timestamp in ISO format."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


Params = ParamSpec("Params")
Result = TypeVar("Result")
Conn = TypeVar("Conn", bound="Tables")


def writes(method: Callable[Concatenate[Conn, Params], Result]) -> Callable[Concatenate[Conn, Params], Result]:
    """A store method that writes: one write transaction (``BEGIN IMMEDIATE``, see ``transaction``), refused
    on a read-only or damaged store, storage errors worded."""

    @functools.wraps(method)
    def wrapper(self: Conn, /, *args: Params.args, **kwargs: Params.kwargs) -> Result:
        with self.connection.writing(), self.connection.transaction():
            return method(self, *args, **kwargs)

    return wrapper


def cache_write(
    method: Callable[Concatenate[Conn, Params], Result],
) -> Callable[Concatenate[Conn, Params], Result | None]:
    """A write to a cache: skipped on a store that refuses writes, and when the write fails for lack of
    space, a failing disk or another process's long write (a read such as a search must not fail because
    its by-product could not be kept; the next run computes it again)."""

    @functools.wraps(method)
    def wrapper(self: Conn, /, *args: Params.args, **kwargs: Params.kwargs) -> Result | None:
        if self.connection.refusal:
            return None
        try:
            with self.connection.writing(), self.connection.transaction():
                return method(self, *args, **kwargs)
        except StoreError:
            return None

    return wrapper


class StoreConnection:
    """A workbench database file. One instance per thread (SQLite connections are not shared).

    The database file (and its -wal/-shm files) is only ever opened by SQLite: closing any other
    descriptor on it would drop every POSIX lock this process holds on it, and another process could
    then corrupt it. A file that is not a database is recognised by SQLite's own first read.

    The store refuses writes (``refusal`` says why) when the data folder or the file is read-only (it is
    then opened with ``mode=ro``) or when SQLite's ``quick_check`` fails (run once per process per file).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.folder = self.path.parent
        self.refusal: str | None = None
        self.bad_values = BadValues()  # unreadable values met (``readback``): named, replaced or skipped
        existed = self.path.exists()
        writable = folder_writable(self.folder) and (not existed or os.access(self.path, os.W_OK))
        if not writable:
            if not existed:
                raise StoreError(f"the data folder {self.folder} is read-only and holds no store yet; "
                                 "make it writable or choose another data folder.")
            self.refusal = read_only_message(self.folder)
        try:
            self._open(writable)
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            if not (writable and existed and out_of_space(exc, self.folder)):
                raise open_error(self.path, exc) from None
            # A full disk: SQLite cannot even create its shared-memory file. What is stored can still be
            # read (searching only reads); every write is refused with the reason.
            self.refusal = str(open_error(self.path, exc))
            try:
                self._open(writable=False)
            except sqlite3.DatabaseError as again:
                self._close_quietly()
                raise open_error(self.path, again) from None
        except BaseException:
            self._close_quietly()
            raise

    def _open(self, writable: bool) -> None:
        self.db = sqlite_utils.Database(self._connect(read_only=not writable))
        self._open_checks(writable)

    def _connect(self, read_only: bool) -> sqlite3.Connection:
        """A connection; read-only ones use ``mode=ro``, or ``immutable=1`` when SQLite cannot create the
        -shm file of a WAL database in a read-only folder (nothing can write there then)."""
        if not read_only:
            return sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        uri = "file:" + quote(str(self.path.resolve()))
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
        return sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, timeout=BUSY_TIMEOUT_S,
                               check_same_thread=False)

    def _open_checks(self, writable: bool) -> None:
        """Schema version and ownership (before anything is written), WAL mode, integrity (once per process
        and file), migrations (each under SQLite's write lock, see ``schema.migrate``)."""
        version, foreign = self._read_schema()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer Chunk Workbench (schema {version}, this version "
                f"knows {SCHEMA_VERSION}); it was left untouched. Update the app or use another data folder."
            )
        if foreign:
            raise StoreError(
                f"{self.path} is a SQLite database of another program (it holds {foreign}), not a Chunk "
                "Workbench store; it was left untouched. Choose another data folder."
            )
        if writable:
            self._use_wal()
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        damage = self._integrity_once()
        if damage:
            self.refusal = damage
        if self.refusal:
            self.db.execute("PRAGMA query_only = ON")
            if version < SCHEMA_VERSION:
                raise StoreError(f"{self.path} needs an upgrade (schema {version} to {SCHEMA_VERSION}), but "
                                 + self.refusal[0].lower() + self.refusal[1:])
            return
        migrate(self.db, self.transaction)

    def _read_schema(self) -> tuple[int, str]:
        """``(user_version, foreign tables)`` read in one read transaction: another process creating or
        migrating the store at the same moment commits its tables and its version together, so both reads
        must see the same commit (read apart, new tables beside an old version looked like another
        program's database)."""
        conn = self.db.conn
        conn.execute("BEGIN")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            return version, foreign_tables(self.db, version)
        finally:
            conn.rollback()

    def _use_wal(self) -> None:
        """Switch the file to write-ahead logging (readers never wait for a writer). Another process may hold
        the file for a moment (it is creating or migrating it): SQLite then answers with the old mode or
        'locked', so the switch is tried again for as long as a busy wait allows."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                mode = str(self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or time.monotonic() > deadline:
                    raise
                mode = ""
            if mode == "wal" or time.monotonic() > deadline:
                return
            time.sleep(0.05)

    def _integrity_once(self) -> str | None:
        """``PRAGMA quick_check`` the first time this process opens this file; the refusal, or None."""
        try:
            st = self.path.stat()
        except OSError:
            return None
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)  # a file changed since is checked again
        with _CHECKED_GUARD:
            if key in _CHECKED:
                return _CHECKED[key]
        try:
            rows = [r[0] for r in self.db.execute("PRAGMA quick_check(3)").fetchall()]
        except sqlite3.DatabaseError as exc:  # damage so deep the check itself stops
            rows = [str(exc)]
        refusal = None if rows == ["ok"] else damaged_message(self.path, "; ".join(rows))
        with _CHECKED_GUARD:
            _CHECKED[key] = refusal
        return refusal

    def _close_quietly(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            with suppress(sqlite3.Error):
                db.close()

    @property
    def writable(self) -> bool:
        """False when writes are refused (read-only folder or file, or a damaged database)."""
        return self.refusal is None

    def check_writable(self) -> None:
        """Raise ``WriteRefused`` with the reason when this store refuses writes."""
        if self.refusal:
            raise WriteRefused(self.refusal)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``with store.transaction(): ...``: one write transaction. ``BEGIN IMMEDIATE`` takes SQLite's write
        lock before the first read, waiting up to the busy timeout for another writer; a deferred ``BEGIN``
        would read first and then fail at once ("database is locked") when another process committed in
        between. Inside an open transaction it is a savepoint."""
        conn = self.db.conn
        if conn.in_transaction:
            with self.db.atomic():  # a savepoint
                yield
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.rollback()  # a no-op when the error already ended the transaction
            raise
        conn.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[None]:
        """``with store.writing(): ...``: refuse when read-only; word full-disk and I/O errors for people."""
        self.check_writable()
        try:
            yield
        except sqlite3.Error as exc:
            known = describe(exc, self.folder)
            if known is None:
                raise
            raise known from None

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def generation(self) -> int:
        """A counter that grows with every change to documents or chunk sets (not to the caches)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        if not row:
            return 0
        value, problem = counter(row[0])
        if value is None:  # read as 0: the next change writes a number (``_bump`` casts the text to 0)
            self.bad_values.note("meta 'generation'", f"{problem}; read as 0 until the next change rewrites it")
            return 0
        return value

    def bump_generation(self) -> None:
        """Count a change to documents or chunk sets (call inside the write transaction that makes it)."""
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )


class Tables:
    """A group of tables of one database (a part of ``Store``): its operations over the store's one connection,
    which every part shares (like sqlite-utils' ``Table`` objects handed out by one ``Database``)."""

    def __init__(self, connection: StoreConnection) -> None:
        self.connection = connection

    @property
    def db(self) -> sqlite_utils.Database:
        """The connection's sqlite-utils database."""
        return self.connection.db
