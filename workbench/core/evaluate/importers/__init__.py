"""Importers of the field's benchmarks with span- or passage-level evidence into stored question sets (one module
per format; ``base.import_parsed`` indexes, checks and writes). The person supplies the files; nothing is
downloaded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from workbench.core.evaluate.importers import chroma, hicbench, legalbench, must_contain, qasper, ragbench, squad
from workbench.core.evaluate.importers.base import ImportReport, Parsed, import_parsed

READERS: dict[str, Callable[[Path], Parsed]] = {
    "chroma": chroma.read, "legalbench-rag": legalbench.read, "qasper": qasper.read, "ragbench": ragbench.read,
    "hicbench": hicbench.read, "gutenqa": must_contain.read, "mtcb": must_contain.read_mtcb, "squad": squad.read,
}

__all__ = ["READERS", "ImportReport", "Parsed", "import_parsed"]
