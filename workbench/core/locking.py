"""Locks on a data folder: one writer at a time (threads and processes), one app window per folder.

Both use ``fcntl.flock`` on a lock file inside the data folder (released by the OS if the process dies,
so a crash never leaves a stale lock). On systems without ``fcntl`` only the in-process lock applies.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


class LockBusy(Exception):
    """The lock is held by another thread or process."""


class FileLock:
    """An exclusive lock on ``path``: re-entrant within a thread, exclusive across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def acquire(self, timeout: float | None = None) -> None:
        """Take the lock, waiting up to ``timeout`` seconds (None = forever); raises ``LockBusy``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._thread_lock.acquire(timeout=-1 if timeout is None else max(0.0, timeout)):
            raise LockBusy(str(self.path))
        if self._depth:
            self._depth += 1
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            while fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        os.close(fd)
                        raise LockBusy(str(self.path)) from None
                    time.sleep(0.05)
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except BaseException:
            self._thread_lock.release()
            raise
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        """Give the lock back."""
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        self._thread_lock.release()

    @contextmanager
    def held(self, timeout: float | None = None):  # noqa: ANN201
        """``with lock.held(): ...``"""
        self.acquire(timeout)
        try:
            yield self
        finally:
            self.release()

    def is_busy(self) -> bool:
        """True when another thread or process holds the lock right now."""
        if self._depth and self._thread_lock.acquire(blocking=False):
            self._thread_lock.release()
            return False  # held by this very thread
        try:
            self.acquire(timeout=0)
        except LockBusy:
            return True
        self.release()
        return False

    def holder_pid(self) -> int | None:
        """Process id written by the current holder, if readable."""
        try:
            text = self.path.read_text().strip()
            return int(text) if text else None
        except (OSError, ValueError):
            return None
