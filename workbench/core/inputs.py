"""Every path a person names for input (a benchmark's files and folders, ``cuts edit --from-export``, a question
set's ``questions.csv``): the one set of read rules.

- **A regular file only.** A FIFO, a device, a socket or a folder is refused in one line without being read: the
  kind is checked before the file is opened (never blocking: opened with ``O_NONBLOCK``), then again on the
  opened descriptor (``fstat``), so nothing swapped in between is read.
- **A size bound enforced while reading**, not taken from ``stat`` (a device or a ``/proc`` file stats as 0
  bytes): reading stops one byte past the bound and the file is refused.
- **Never outside the root the person named.** A name that comes from the data (a row's ``document``, a file
  in a benchmark's folder) is refused when it is absolute, holds ``..``, or resolves, links followed, to
  outside the folder the person named.

Each refusal is an ``InputRefused`` (a ``ValueError``) whose message is one line naming the path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

from workbench.core.outputs import file_kind

MAX_DATA_BYTES = 512 * 1_000_000  # one benchmark file (JSON, JSON Lines, Parquet, CSV) read whole
_STEP = 1 << 20


class InputRefused(ValueError):
    """A person-named input refused before (or while) it was read; the message says why in one line."""


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:,.0f} MB" if n >= 1_000_000 else f"{n:,} bytes"


def check_regular(path: str | os.PathLike[str], what: str = "") -> os.stat_result:
    """``path``'s status when it is a regular file (links followed: the person named it); else
    ``InputRefused``: missing, a folder, a FIFO, a device or a socket (nothing is opened)."""
    label = what or os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputRefused(f"{label}: no such file") from None
    except NotADirectoryError:
        raise InputRefused(f"{label}: a part of the path is a file, not a folder") from None
    except OSError as exc:
        raise InputRefused(f"{label}: cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputRefused(f"{label} is a {file_kind(info.st_mode)}, not a regular file: only a regular file is "
                           "read")
    return info


def read_bytes(path: str | os.PathLike[str], limit: int | None = None, what: str = "") -> bytes:
    """The bytes of the regular file ``path`` (``check_regular``), at most ``limit`` of them (default
    ``MAX_DATA_BYTES``): the bound is enforced while reading, so a file that stats small but is larger (or grows)
    is refused too (``InputRefused``)."""
    label = what or os.fspath(path)
    most = MAX_DATA_BYTES if limit is None else limit
    info = check_regular(path, what)
    if info.st_size > most:
        raise InputRefused(f"{label} is larger than {_megabytes(most)} ({_megabytes(info.st_size)}); it is not "
                           "read")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise InputRefused(f"{label}: cannot read it ({exc.strerror or exc})") from None
    try:
        opened = os.fstat(fd)  # the file opened, not one swapped in after the check above
        if not stat.S_ISREG(opened.st_mode):
            raise InputRefused(f"{label} is a {file_kind(opened.st_mode)}, not a regular file: only a regular "
                               "file is read")
        parts: list[bytes] = []
        got = 0
        while got <= most:
            part = os.read(fd, min(most + 1 - got, _STEP))
            if not part:
                break
            parts.append(part)
            got += len(part)
    except OSError as exc:
        raise InputRefused(f"{label}: cannot read it ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if got > most:
        raise InputRefused(f"{label} is larger than {_megabytes(most)}; reading stopped there")
    return b"".join(parts)


def read_text(path: str | os.PathLike[str], limit: int | None = None, what: str = "") -> str:
    """``read_bytes`` decoded as UTF-8 (a byte-order mark at the start is dropped); text that is not UTF-8 is
    ``InputRefused`` naming the first bad byte's position."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputRefused(f"{what or os.fspath(path)} is not UTF-8 text (byte {exc.start:,}: {exc.reason})") \
            from None


def _is_inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def inside(root: str | os.PathLike[str], name: str, what: str = "") -> Path:
    """The path of ``name`` (a relative name that came from the data) under ``root`` (a folder the person
    named). ``InputRefused`` when ``name`` is empty or absolute, holds ``..``, or resolves (links followed) to
    outside ``root``. The path need not exist."""
    label = what or repr(name)
    posix, windows = PurePosixPath(name.replace("\\", "/")), PureWindowsPath(name)
    if not name.strip() or "\0" in name:
        raise InputRefused(f"{label}: not a file name")
    if posix.is_absolute() or windows.is_absolute() or windows.drive:
        raise InputRefused(f"{label}: {name!r} is an absolute path; a file named by the data must lie inside "
                           f"{root}")
    if ".." in posix.parts:
        raise InputRefused(f"{label}: {name!r} climbs out of its folder ('..'); a file named by the data must "
                           f"lie inside {root}")
    base = Path(root).resolve()
    path = Path(root) / posix
    if not _is_inside(path.resolve(), base):
        raise InputRefused(f"{label}: {name!r} is a link to outside {root} ({path.resolve()}); copy the file "
                           "into the folder")
    return path


def check_inside(root: str | os.PathLike[str], path: str | os.PathLike[str], what: str = "") -> Path:
    """``path`` (found under ``root``) when it resolves, links followed, to inside ``root``; else
    ``InputRefused`` (a link to outside)."""
    p = Path(path)
    target = p.resolve()
    if not _is_inside(target, Path(root).resolve()):
        raise InputRefused(f"{what or p} is a link to outside {root} ({target}); copy the file into the folder")
    return p


def file_exists(path: str | os.PathLike[str], what: str = "") -> bool:
    """True for a regular file, False when nothing is there; ``InputRefused`` for a folder, FIFO, device or
    socket (never opened)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        pass
    check_regular(path, what)
    return True


def files_under(folder: str | os.PathLike[str], root: str | os.PathLike[str], suffixes: Sequence[str] = (),
                recursive: bool = True) -> list[Path]:
    """The regular files in ``folder`` (and its sub-folders when ``recursive``; links to folders are not
    descended), sorted, those of ``suffixes`` only when given; an empty list when ``folder`` does not exist.
    A file that is a link to outside ``root`` (the folder the person named), or that is a FIFO, device or
    socket, is ``InputRefused``."""
    base = Path(folder)
    if not base.is_dir():
        return []
    out: list[Path] = []
    for top, dirs, names in os.walk(base, followlinks=False):
        here = Path(top)
        if not recursive:
            dirs.clear()
        for d in list(dirs):
            if (here / d).is_symlink():
                check_inside(root, here / d)  # a link to a folder outside is refused; one inside is not descended
                dirs.remove(d)
        dirs.sort()
        for name in names:
            path = here / name
            if suffixes and path.suffix not in suffixes:
                continue
            check_inside(root, path)
            if not file_exists(path):  # a dangling link
                continue
            out.append(path)
    return sorted(out)


def refuse_special_files(folder: str | os.PathLike[str], what: str = "", depth: int = 3) -> None:
    """``InputRefused`` naming the first FIFO, device or socket (links followed) in ``folder`` or its
    sub-folders down to ``depth``: a folder read by another library (an embedding model's) is checked whole
    before that library opens any of it. Links themselves, to inside or out, are left alone."""
    base = Path(folder)
    for top, dirs, names in os.walk(base, followlinks=False):
        if len(Path(top).relative_to(base).parts) >= depth:
            dirs.clear()
        for name in names:
            path = Path(top) / name
            try:
                mode = os.stat(path).st_mode
            except OSError:
                continue  # a dangling link: the library says what it misses
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise InputRefused(f"{what or base}: {path} is a {file_kind(mode)}, not a regular file: only a "
                                   "regular file is read")
