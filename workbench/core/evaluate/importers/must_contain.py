"""GutenQA and MTCB ("chunk must contain" text): each question's ``chunk_must_contain`` text is located exactly
in its document. Questions in ``questions.jsonl`` (or ``.parquet`` with pyarrow) with ``question``,
``chunk_must_contain`` and the document's name in ``book_name`` / ``book`` / ``document``; the documents are
``NAME.txt`` / ``NAME.md`` files in ``books/`` or ``documents/`` beside it, or a row's own ``text``."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.importers.shapes import text
from workbench.core.evaluate.question_set import DatasetError


def _questions_file(source: Path) -> Path:
    if source.is_file():
        return source
    for name in ("questions.jsonl", "questions.parquet", "questions.json"):
        if (source / name).is_file():
            return source / name
    raise DatasetError(f"{source}: expected questions.jsonl (question, chunk_must_contain, book_name)")


def read(source: Path) -> Parsed:
    """Every question whose document is found; one without must-contain text or document is skipped."""
    qfile = _questions_file(source)
    folder = qfile.parent
    files = {p.stem: p for sub in ("books", "documents") for p in sorted((folder / sub).glob("*"))
             if p.suffix in (".txt", ".md")}
    parsed = Parsed()
    for n, row in read_rows(qfile):
        at = f"{qfile}, line {n}"
        name = text(row.get("book_name") or row.get("book") or row.get("document"), f"{at}: book_name")
        own = text(row.get("text"), f"{at}: text")
        if own.strip():
            parsed.texts.setdefault(name or f"row{n}", own)
            name = name or f"row{n}"
        elif name in files:
            parsed.files[name] = files[name]
        else:
            parsed.skipped.append("its document is not in books/ or documents/")
            continue
        must = text(row.get("chunk_must_contain"), f"{at}: chunk_must_contain")
        if not must.strip():
            parsed.skipped.append("no chunk_must_contain text")
            continue
        parsed.items.append(Item(text(row.get("id"), f"{at}: id") or f"line {n}",
                                 text(row.get("question"), f"{at}: question"), [Evidence(name, must)],
                                 text(row.get("answer"), f"{at}: answer")))
    return parsed
