"""Question sets shipped inside the package (``workbench/datasets/<name>/``), usable by name from any folder.

``workbench eval chroma-general`` and the Evaluation tab's *Bundled* menu resolve a bare name here; a path to
a folder of the user's own still works everywhere a question set is taken.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUNDLED_DIR = Path(__file__).resolve().parents[2] / "datasets"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class BundledSet:
    """One bundled question set: where it lives and what it holds."""

    name: str
    path: Path
    corpora: tuple[str, ...]
    questions: int
    licence: str
    title: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready description."""
        return {"name": self.name, "path": str(self.path), "corpora": list(self.corpora),
                "questions": self.questions, "licence": self.licence, "title": self.title}


def _licence(folder: Path) -> str:
    lic = folder / "LICENSE"
    if not lic.is_file():
        return "see README"
    first = lic.read_text(encoding="utf-8").strip().splitlines()[0]
    return first.replace(" License", "").strip() or "see LICENSE"


def _title(folder: Path) -> str:
    readme = folder / "README.md"
    if readme.is_file():
        for line in readme.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return folder.name


def _count_questions(qfile: Path) -> int:
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 24))
    with open(qfile, encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.DictReader(fh))


def bundled_sets() -> list[BundledSet]:
    """Every question set shipped with the package, by name."""
    out: list[BundledSet] = []
    if not BUNDLED_DIR.is_dir():
        return out
    for folder in sorted(p for p in BUNDLED_DIR.iterdir() if p.is_dir() and (p / "questions.csv").is_file()):
        corpora = tuple(sorted(p.stem for p in (folder / "corpora").glob("*.md")))
        out.append(BundledSet(folder.name, folder, corpora, _count_questions(folder / "questions.csv"),
                              _licence(folder), _title(folder)))
    return out


def bundled_path(name: str) -> Path | None:
    """The folder of the bundled set ``name``, or None."""
    if not _NAME.match(name):
        return None
    folder = BUNDLED_DIR / name
    return folder if (folder / "questions.csv").is_file() else None


def resolve_dataset(name_or_path: str | os.PathLike[str]) -> Path:
    """A question-set folder: an existing path as given, else a bundled set's folder by name.

    A path that exists always wins (a user's folder called ``chroma-general`` in the current directory is
    theirs); a bare name that is neither raises ``FileNotFoundError`` listing the bundled names.
    """
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path
    found = bundled_path(str(name_or_path))
    if found is not None:
        return found
    names = ", ".join(s.name for s in bundled_sets()) or "none"
    raise FileNotFoundError(f"no such question set: {name_or_path} (not a folder; bundled sets: {names})")
