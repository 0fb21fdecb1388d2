"""Locks on a data folder: one writer at a time (threads and processes), one app window per folder.

Both use ``fcntl.flock`` on a lock file inside the data folder (released by the OS if the process dies,
so a crash never leaves a stale lock). On systems without ``fcntl`` only the in-process lock applies.

The descriptor rule: a process has at most one open descriptor on each lock file, shared by every
``FileLock`` on that path, and it is opened and closed only while this process holds no lock on the
file. On Linux flock locks belong to the open file description, but where flock is emulated with
``fcntl`` (POSIX) locks, closing *any* descriptor on the file drops every lock the process holds on it;
so the holder's pid is read through the shared descriptor (``os.pread``), never by opening the file again
while this process holds the lock.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

WAIT_NOTICE_S = 0.5  # ``on_wait`` is called once after waiting this long


class LockBusy(Exception):
    """The lock is held by another thread or process."""


class _Shared:
    """The per-process state of one lock file: its descriptor, the owning thread and the depth."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.owner = threading.RLock()  # exclusive across threads, re-entrant within one
        self.guard = threading.Lock()  # protects ``fd``
        self.depth = 0
        self.fd: int | None = None


_SHARED: dict[str, _Shared] = {}
_SHARED_GUARD = threading.Lock()


def _shared(path: Path) -> _Shared:
    key = os.path.realpath(path)
    with _SHARED_GUARD:
        if key not in _SHARED:
            _SHARED[key] = _Shared(Path(key))
        return _SHARED[key]


class FileLock:
    """An exclusive lock on ``path``: re-entrant within a thread, exclusive across threads and processes.

    Every ``FileLock`` on the same path in one process shares one state (see the module notes).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._s = _shared(self.path)

    def acquire(self, timeout: float | None = None, on_wait: Callable[[int | None], None] | None = None) -> None:
        """Take the lock, waiting up to ``timeout`` seconds (None = forever); raises ``LockBusy``.

        ``on_wait(holder_pid)`` is called once when the lock is still busy after ``WAIT_NOTICE_S``.
        """
        s = self._s
        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        notice = [on_wait]

        def maybe_notice(pid: int | None) -> None:
            if notice[0] is not None and time.monotonic() - started >= WAIT_NOTICE_S:
                callback, notice[0] = notice[0], None
                callback(pid)

        if not s.owner.acquire(blocking=False):  # another thread of this process writes
            first = WAIT_NOTICE_S if on_wait is not None else -1
            if timeout is not None:
                first = min(timeout, first) if first >= 0 else timeout
            if not s.owner.acquire(timeout=first):
                if deadline is not None and time.monotonic() >= deadline:
                    raise LockBusy(str(self.path))
                maybe_notice(os.getpid())
                rest = -1 if deadline is None else max(0.0, deadline - time.monotonic())
                if not s.owner.acquire(timeout=rest):
                    raise LockBusy(str(self.path))
        if s.depth:
            s.depth += 1
            return
        try:
            with s.guard:
                s.fd = os.open(s.path, os.O_RDWR | os.O_CREAT, 0o644)
            while fcntl is not None:
                try:
                    fcntl.flock(s.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise LockBusy(str(self.path)) from None
                    maybe_notice(self._read_pid())
                    time.sleep(0.05)
            os.ftruncate(s.fd, 0)
            os.pwrite(s.fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            self._close_fd()  # this process holds no lock on the file: closing drops nothing
            s.owner.release()
            raise
        s.depth = 1

    def _close_fd(self) -> None:
        s = self._s
        with s.guard:
            if s.fd is not None:
                os.close(s.fd)
                s.fd = None

    def release(self) -> None:
        """Give the lock back."""
        s = self._s
        s.depth -= 1
        if s.depth == 0 and s.fd is not None:
            if fcntl is not None:
                fcntl.flock(s.fd, fcntl.LOCK_UN)
            self._close_fd()
        s.owner.release()

    @contextmanager
    def held(self, timeout: float | None = None, on_wait: Callable[[int | None], None] | None = None
             ) -> Iterator[FileLock]:
        """``with lock.held(): ...``"""
        self.acquire(timeout, on_wait)
        try:
            yield self
        finally:
            self.release()

    def is_busy(self) -> bool:
        """True when another thread or process holds the lock right now."""
        s = self._s
        if s.depth and s.owner.acquire(blocking=False):
            s.owner.release()
            return False  # held by this very thread
        try:
            self.acquire(timeout=0)
        except LockBusy:
            return True
        self.release()
        return False

    def _read_pid(self) -> int | None:
        """The pid written in the lock file, read through the shared descriptor (None if unreadable)."""
        s = self._s
        with s.guard:
            fd = s.fd
            try:
                if fd is not None:
                    text = os.pread(fd, 32, 0)
                else:  # no descriptor in this process, so no lock of ours on the file: a short read is safe
                    fd = os.open(s.path, os.O_RDONLY)
                    try:
                        text = os.pread(fd, 32, 0)
                    finally:
                        os.close(fd)
                return int(text.decode().strip() or "x")
            except (OSError, ValueError, UnicodeDecodeError):
                return None

    def holder_pid(self) -> int | None:
        """Process id written by the current holder, if readable (never opens a second descriptor while
        this process holds the lock)."""
        return self._read_pid()
