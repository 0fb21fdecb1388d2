"""Real samples of the field's benchmarks for the importer tests.

Chroma's ``general_evaluation_data`` is rebuilt from the copy of Chroma's benchmark the workbench ships
(``workbench/datasets/chroma-general``: its ``questions.csv`` is the published ``questions_df.csv``, byte for byte,
and its corpora are the published files): the header and the first six ``state_of_the_union`` rows, written as the
published file writes them, beside that corpus. The other samples (GutenQA, SQuAD, Qasper) were taken from public
repositories with the session's snapshot tool, whose terms let a developer commit none of what it brings: they are
not in the repository. tests/data/benchmarks/README.md names each file's repository, path, commit and licence;
put a file there and its test runs, else it is skipped saying so.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from workbench.core.evaluate.bundled import bundled_path

REAL = Path(__file__).parent / "data" / "benchmarks"


def chroma_published(folder: Path, corpus: str = "state_of_the_union", rows: int = 6) -> Path:
    """``folder/general_evaluation_data`` in Chroma's published layout: ``questions_df.csv`` (its header and the
    first ``rows`` rows of ``corpus``, as the published file writes them) and ``corpora/CORPUS.md``."""
    shipped = bundled_path("chroma-general")
    assert shipped is not None
    records = list(csv.reader(io.StringIO((shipped / "questions.csv").read_text(encoding="utf-8"))))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(records[0])
    writer.writerows([r for r in records[1:] if r[2] == corpus][:rows])
    root = folder / "general_evaluation_data"
    (root / "corpora").mkdir(parents=True)
    (root / "questions_df.csv").write_text(out.getvalue(), encoding="utf-8", newline="")
    shutil.copyfile(shipped / "corpora" / f"{corpus}.md", root / "corpora" / f"{corpus}.md")
    return root


def real_sample(*parts: str) -> Path:
    """A real sample under tests/data/benchmarks/, or the test is skipped (see the module doc)."""
    path = REAL.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"the real sample {path.relative_to(REAL)} is not in this checkout "
                    "(tests/data/benchmarks/README.md says where it is published)")
    return path
