"""Finding the files to index under the paths a user names, with a status for every file that is not used.

Folders are read recursively. Hidden entries, unsupported types, links that point outside the folder
(unless ``follow_links``), broken links and unreadable folders are reported as ``LoadResult`` problems,
so every file under a folder ends up with a status. Keys are ``filenames.path_key`` values, except for a file
that lies outside a folder named and was reached through a link inside it (``follow_links``): its key is
where the link put it inside the folder (``Discovery.keys``), so it goes when the link goes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.ingest.documents import (
    MAX_FILE_MB,
    SUPPORTED_SUFFIXES,
    LoadResult,
    link_target,
    load_file,
)
from workbench.core.ingest.filenames import file_kind, fs_path, is_inside, path_key, shown

SUPPORTED_TEXT = ", ".join(sorted(SUPPORTED_SUFFIXES))


@dataclass
class Discovery:
    """Files found under the given paths, paths that could not be used, and the folders that were read."""

    files: list[Path] = field(default_factory=list)
    problems: list[LoadResult] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)  # keys of the folders named (for reconciling the store)
    # file (as found) → its store key, for files outside a folder reached through a link inside it
    keys: dict[str, str] = field(default_factory=dict)
    # keys of links inside a folder that point outside it and were not followed (what was indexed through
    # them before is no longer part of the folder)
    unfollowed: list[str] = field(default_factory=list)

    def key(self, file: Path) -> str | None:
        """The store key of a file found, when it is not ``path_key(file)`` (see ``keys``)."""
        return self.keys.get(os.fspath(file))


def unsupported_reason(path: Path) -> str:
    """Why a file of this type is not read."""
    kind = f"unsupported type {shown(path.suffix.lower())}" if path.suffix else "no file extension"
    return f"{kind} (supported: {SUPPORTED_TEXT})"


def _special_kind(path: Path) -> str:
    """The kind of ``path`` when it is neither a regular file nor a folder (links followed), else ``""``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    return "" if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else file_kind(mode)


def discover(paths: Iterable[str | os.PathLike[str]], follow_links: bool = False) -> Discovery:
    """Expand files and folders (recursively; links inside a folder followed once; see the module doc)."""
    found = Discovery()
    seen_dirs: set[str] = set()
    seen_files: dict[str, str] = {}  # real path -> key of the first path that reached it
    seen_keys: set[str] = set()
    errors: list[OSError] = []
    links: list[Path] = []

    def problem(p: str | Path, status: str, reason: str, record: bool = True, follow: bool = False) -> None:
        found.problems.append(LoadResult(path_key(p, follow=follow), None, status, reason, record))

    def add_file(p: Path, explicit: bool, via: str | None = None) -> None:
        real = os.path.realpath(p)
        key = via or path_key(p)
        if real in seen_files:
            if seen_files[real] != path_key(p, follow=False):
                problem(p, "skipped", f"same file as {seen_files[real]}", record=False)
            return
        special = _special_kind(p)
        if special:  # a FIFO, a device (/dev/zero), a socket: said as what it is, never opened
            problem(p, "skipped", f"not a regular file ({special})", record=explicit)
            return
        if p.suffix.lower() not in SUPPORTED_SUFFIXES:
            problem(p, "skipped", unsupported_reason(p), record=explicit)
            return
        if key in seen_keys:  # a name that is not UTF-8 whose escaped form is also a real name
            problem(p, "failed", f"its name shown as text ({key}) is the name of another file")
            return
        seen_files[real] = via or path_key(p, follow=False)
        seen_keys.add(key)
        found.files.append(p)
        if via:
            found.keys[os.fspath(p)] = via

    def outside(p: str, root: str) -> bool:
        return not follow_links and not is_inside(os.path.realpath(p), root)

    def reached(p: Path, top: Path, root: str) -> str | None:
        """For a file outside ``root`` reached through a link under it: its place under the folder (the
        walk's path below ``top``, the folder as named, joined to its real path ``root``); else None."""
        if is_inside(os.path.realpath(p), root):
            return None
        return shown(os.path.join(root, os.path.relpath(p, top)))

    def unfollowed(p: str | Path, reason: str) -> None:
        problem(p, "skipped", reason)
        found.unfollowed.append(path_key(p, follow=False))

    for raw in paths:
        path = Path(fs_path(os.path.expanduser(os.fspath(raw))))
        if not os.path.lexists(path):
            problem(path, "failed", "no such file or folder")
        elif not path.exists():
            problem(path, "failed", f"broken link (to {link_target(path)})")
        elif path.is_dir():
            root = os.path.realpath(path)
            found.folders.append(path_key(root))

            for folder, dirs, files in os.walk(path, followlinks=True, onerror=errors.append):
                real = os.path.realpath(folder)
                if real in seen_dirs:
                    dirs[:] = []
                    continue
                seen_dirs.add(real)
                keep = []
                for name in sorted(dirs):
                    full = os.path.join(folder, name)
                    if name.startswith("."):
                        problem(full, "skipped", "hidden folder", record=False)
                    elif os.path.islink(full) and outside(full, root):
                        unfollowed(full, f"link to outside the folder: {shown(os.path.realpath(full))}")
                    else:
                        keep.append(name)
                dirs[:] = keep
                for name in sorted(files):
                    file_path = Path(folder) / name
                    if name.startswith("."):
                        problem(file_path, "skipped", "hidden file", record=False)
                    elif file_path.is_symlink() and not file_path.exists():
                        problem(file_path, "failed", f"broken link (to {link_target(file_path)})")
                    elif file_path.is_symlink() and outside(str(file_path), root):
                        unfollowed(file_path, f"link to outside the folder: {shown(os.path.realpath(file_path))}")
                    elif file_path.is_symlink():
                        links.append(file_path)  # after the walk: the file itself, when found, keeps its own name
                    else:
                        add_file(file_path, explicit=False, via=reached(file_path, path, root))
            for link in links:
                add_file(link, explicit=False, via=reached(link, path, root))
            links.clear()
            for exc in errors:
                problem(exc.filename or path, "failed", f"cannot read folder ({exc.strerror or exc})")
            errors.clear()
        else:
            add_file(path, explicit=True)  # a FIFO or device named directly: load_file reports it
    return found


def load_paths(paths: Iterable[str | os.PathLike[str]], max_file_mb: float = MAX_FILE_MB,
               follow_links: bool = False) -> Iterator[LoadResult]:
    """Discover and load every supported file under ``paths``; problems are yielded as results."""
    found = discover(paths, follow_links=follow_links)
    yield from found.problems
    for file in found.files:
        yield load_file(file, max_file_mb, key=found.key(file))
