"""Every path a person names for output (``--out``, exports, reports): the one set of write rules.

- **A regular file only.** A target that is a FIFO, a device, a socket, a folder or a symbolic link is refused
  in one line before anything is written; ``--force`` (``replace``) replaces a *regular file* and nothing else.
- **Never through a symbolic link.** The path as named is the person's (links in the folders above it are
  theirs); the file written, and every folder below a named output folder, must not be a link.
- **Atomic.** Each file is written to a hidden temporary name beside its target (created new, never through a
  link), flushed to disk, and renamed into place; a set of files (``write_files``) is all or nothing: when one
  write fails, the temporary files are removed and no target changed.
- **A folder output** (``claim_folder``) is new, or empty, or one the workbench wrote before: the workbench
  leaves a marker file (``MARKER``) in every folder it writes, and a folder that holds anything else but no
  marker is refused ("not empty and not written by the workbench").

Every writer of a person-named output uses this module (chunk exports, question-set exports, evaluation
exports, ``make-questions --out``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MARKER = ".workbench-output"
MARKER_TEXT = ("This folder was written by Chunk Workbench. The workbench may write the same kind of output into it "
               "again (its own files are replaced); remove this file to keep it from doing so.\nkind: {what}\n")
_MARKER_MAX = 4096
# What a folder output holds (the marker names it; a folder is reused only for the same kind)
RESULTS = "evaluation results"
CHROMA_SET = "a question set in Chroma's format"
JSONL_SET = "a question set as JSON Lines"
_EXISTS_HINT = "choose another path or overwrite it with --force"


class OutputRefused(ValueError):
    """An output path refused before anything was written; the message says why in one line."""


def file_kind(mode: int) -> str:
    """A word for the kind of a file that is not a regular file (``FIFO``, ``character device``, …)."""
    kinds = [(stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
             (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "symbolic link")]
    return next((word for test, word in kinds if test(mode)), "special file")


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise OutputRefused(f"{path}: a part of the path is a file, not a folder") from None


def check_file(path: str | os.PathLike[str], replace: bool = False, exists_hint: str = _EXISTS_HINT) -> Path:
    """``path`` when a file may be written there: its folder exists, and ``path`` is missing or (``replace``) a
    regular file. Anything else is an ``OutputRefused`` in one line: a link (never written through, even with
    ``replace``), a folder, a FIFO or device (never replaced), an existing file without ``replace``."""
    p = Path(path)
    parent = p.parent
    if not parent.is_dir():
        raise OutputRefused(f"no such folder: {parent}")
    info = _lstat(p)
    if info is None:
        return p
    if stat.S_ISLNK(info.st_mode):
        raise OutputRefused(f"{p} is a symbolic link: the workbench never writes through one (remove it or name "
                            "another path)")
    if stat.S_ISDIR(info.st_mode):
        raise OutputRefused(f"{p} is a folder: name a file to write")
    if not stat.S_ISREG(info.st_mode):
        raise OutputRefused(f"{p} is a {file_kind(info.st_mode)}, not a regular file: the workbench writes only "
                            "regular files (--force replaces a regular file and nothing else)")
    if not replace:
        raise OutputRefused(f"{p} exists: {exists_hint}")
    return p


def _temporary(final: Path) -> Path:
    """A new, empty, hidden file beside ``final`` (created exclusively, so never through a link)."""
    for _ in range(20):
        tmp = final.with_name(f".{final.name}.{secrets.token_hex(4)}.part")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"no free temporary name beside {final}")


def _synced_regular(tmp: Path) -> None:
    """Flush ``tmp`` to the disk (a full disk can surface only here), checking it is still our regular file."""
    fd = os.open(tmp, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{tmp} was replaced while it was written")
        os.fsync(fd)
    finally:
        os.close(fd)


Writer = Callable[[Path], object]


def write_files(targets: Sequence[tuple[Path, Writer]], replace: bool = False,
                exists_hint: str = _EXISTS_HINT) -> list[Path]:
    """Write every ``(final path, write)`` pair all or nothing: each target is checked (``check_file``), then
    ``write(tmp)`` fills a new temporary file beside it, which is synced; when every one is written they are
    renamed into place (each target checked again just before). A refused target is ``OutputRefused`` (nothing
    written); a failed write re-raises its ``OSError`` with the temporary files removed and no target changed."""
    finals = [check_file(final, replace, exists_hint) for final, _ in targets]
    staged: list[tuple[Path, Path]] = []
    try:
        for final, (_, write) in zip(finals, targets, strict=True):
            tmp = _temporary(final)
            staged.append((tmp, final))
            write(tmp)
            _synced_regular(tmp)
        for _, final in staged:
            check_file(final, replace, exists_hint)  # nothing swapped in while the files were written
        linked: list[Path] = []
        try:
            for tmp, final in staged:
                if replace:
                    os.replace(tmp, final)
                elif _link_new(tmp, final, exists_hint):  # no-clobber: a file made meanwhile is not replaced
                    linked.append(final)
        except BaseException:
            for final in linked:  # all or nothing: the new files this call placed go again
                with contextlib.suppress(OSError):
                    final.unlink()
            raise
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        raise
    return finals


def _link_new(tmp: Path, final: Path, exists_hint: str) -> bool:
    """Put ``tmp`` at ``final`` only if nothing is there (a hard link, then the temporary name goes); where the
    file system has no hard links, a rename after the check. True when ``final`` was made by the link."""
    try:
        os.link(tmp, final, follow_symlinks=False)
    except FileExistsError:
        raise OutputRefused(f"{final} exists: {exists_hint}") from None
    except OSError:  # no hard links here (FAT, some network file systems)
        check_file(final, False, exists_hint)
        os.replace(tmp, final)
        return False
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    return True


def write_text(path: Path, text: str, replace: bool = False) -> Path:
    """One UTF-8 text file written by the rules (``write_files``)."""
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    return write_files([(path, write)], replace)[0]


@dataclass(frozen=True)
class OutputFolder:
    """A folder the workbench may write into (``claim_folder``): ``created`` when it was made now, ``reused``
    when it held an earlier output of the workbench (its marker)."""

    root: Path
    created: bool
    reused: bool
    made: tuple[Path, ...] = ()  # the folders made now, outermost first

    def abandon(self) -> None:
        """Undo ``claim_folder`` after a failed write: the marker and the folders it made are removed (a
        folder that held anything before is left as it was)."""
        if not self.created:
            return
        with contextlib.suppress(OSError):
            (self.root / MARKER).unlink(missing_ok=True)
        for top, _dirs, _files in sorted(os.walk(self.root), reverse=True):  # empty sub-folders it made
            with contextlib.suppress(OSError):
                os.rmdir(top)
        for q in reversed(self.made):
            with contextlib.suppress(OSError):
                q.rmdir()

    def path(self, relative: str) -> Path:
        """The target of ``relative`` (``/``-separated, no ``..``) inside the folder, its sub-folders made as
        needed; a sub-folder that is a link or not a folder is ``OutputRefused``."""
        parts = PurePosixPath(relative).parts
        if not parts or any(p in ("", ".", "..") for p in parts) or PurePosixPath(relative).is_absolute():
            raise OutputRefused(f"{relative!r} is not a name inside {self.root}")
        here = self.root
        for part in parts[:-1]:
            here = here / part
            info = _lstat(here)
            if info is None:
                here.mkdir()
            elif not stat.S_ISDIR(info.st_mode):
                what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else f"a {file_kind(info.st_mode)}"
                raise OutputRefused(f"{here} is {what}, not a folder: the workbench never writes through one")
        return here / parts[-1]

    def check(self, relatives: Sequence[str]) -> None:
        """Refuse (``OutputRefused``) before anything is written when one of ``relatives`` could not be
        written: a link, a folder, a FIFO or device on its way or in its place."""
        for rel in relatives:
            parts = PurePosixPath(rel).parts
            here = self.root
            for n, part in enumerate(parts):
                here = here / part
                info = _lstat(here)
                if info is None:
                    break
                last = n == len(parts) - 1
                if stat.S_ISLNK(info.st_mode):
                    raise OutputRefused(f"{here} is a symbolic link: the workbench never writes through one")
                if not last and not stat.S_ISDIR(info.st_mode):
                    raise OutputRefused(f"{here} is a {file_kind(info.st_mode)}, not a folder")
                if last and not stat.S_ISREG(info.st_mode):
                    raise OutputRefused(f"{here} is a {file_kind(info.st_mode)}, not a regular file: the "
                                        "workbench replaces only a regular file")

    def write(self, files: Sequence[tuple[str, Writer]]) -> list[Path]:
        """Write ``(relative name, write)`` pairs into the folder all or nothing (``write_files``; the
        workbench's own earlier files are replaced)."""
        self.check([rel for rel, _ in files])
        return write_files([(self.path(rel), write) for rel, write in files], replace=True)


def marker_kind(folder: Path) -> str | None:
    """The kind of output the workbench's marker in ``folder`` names (``""`` for a marker it cannot read), or
    None when there is no marker file."""
    try:
        fd = os.open(folder / MARKER, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        text = os.read(fd, _MARKER_MAX).decode("utf-8", "replace")
    finally:
        os.close(fd)
    return next((line[5:].strip() for line in text.splitlines() if line.startswith("kind:")), "")


def check_folder(path: str | os.PathLike[str], option: str = "--out", what: str | None = None) -> Path:
    """``path`` when it may become an output folder: missing (it will be made), empty, or marked as written by
    the workbench (with ``what``: as that kind of output); else ``OutputRefused`` in one line. Nothing is
    created."""
    p = Path(path).expanduser()
    for q in (p, *p.parents):
        try:
            info = os.stat(q)  # the named folder may be a link to a folder (the person's choice)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            raise OutputRefused(f"{option} {path}: a part of the path is a file, not a folder") from None
        except OSError as exc:
            raise OutputRefused(f"{option} {path}: cannot look at {q} ({exc.strerror or exc})") from None
        if not stat.S_ISDIR(info.st_mode):
            raise OutputRefused(f"{option} {path}: {q} is a {_kind_or_file(info.st_mode)}, not a folder")
        break
    if p.is_dir():
        try:
            names = os.listdir(p)
        except OSError as exc:
            raise OutputRefused(f"{option} {path}: cannot read the folder ({exc.strerror or exc})") from None
        if names and MARKER not in names:
            raise OutputRefused(f"{option} {path}: the folder is not empty and was not written by the workbench "
                                f"(no {MARKER} in it): name a new or empty folder")
        if MARKER in names:
            info = os.lstat(p / MARKER)
            if not stat.S_ISREG(info.st_mode):
                raise OutputRefused(f"{option} {path}: {MARKER} is a {file_kind(info.st_mode)}, not the "
                                    "workbench's marker file")
            kind = marker_kind(p)
            if what is not None and kind != what:
                raise OutputRefused(f"{option} {path}: the folder holds {kind or 'another output'} written by the "
                                    f"workbench, not {what}: name a new or empty folder")
            _refuse_planted(p, f"{option} {path}")
    return p


def _refuse_planted(folder: Path, where: str) -> None:
    """``OutputRefused`` when the workbench's own folder holds a link, FIFO, device or socket (planted since it
    wrote there): refused before any work, not when the files are written."""
    for top, dirs, names in os.walk(folder, followlinks=False):
        for name in dirs + names:
            mode = os.lstat(Path(top) / name).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                what = "a symbolic link" if stat.S_ISLNK(mode) else f"a {file_kind(mode)}"
                raise OutputRefused(f"{where}: {Path(top) / name} is {what}; the workbench never writes through "
                                    "one or over one (remove it, or name a new folder)")


def _kind_or_file(mode: int) -> str:
    return "file" if stat.S_ISREG(mode) else file_kind(mode)


def claim_folder(path: str | os.PathLike[str], what: str, option: str = "--out") -> OutputFolder:
    """The output folder ``path`` (``check_folder``), made when missing, with the workbench's marker in it
    (``what`` says what the workbench writes there)."""
    p = check_folder(path, option, what)
    made = tuple(reversed([q for q in (p, *p.parents) if not q.exists()]))
    reused = (p / MARKER).is_file()
    folder = OutputFolder(p, bool(made), reused, made)
    try:
        p.mkdir(parents=True, exist_ok=True)
        if not reused:
            write_files([(p / MARKER, _marker_writer(what))])
    except OSError as exc:
        folder.abandon()
        raise OutputRefused(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    return folder


def _marker_writer(what: str) -> Writer:
    def write(tmp: Path) -> None:
        tmp.write_text(MARKER_TEXT.format(what=what), encoding="utf-8")

    return write
