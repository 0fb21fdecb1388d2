"""GutenQA and MTCB ("chunk must contain" text): each question's ``chunk_must_contain`` text is located exactly
in its document. Questions in ``questions.jsonl`` (or ``.parquet`` with pyarrow) with ``question``,
``chunk_must_contain`` and the document's name in ``book_name`` / ``book`` / ``document``; the documents are
``NAME.txt`` / ``NAME.md`` files in ``books/`` or ``documents/`` beside it, or a row's own ``text``."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.inputs import files_under


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
    files = {p.stem: p for sub in ("books", "documents")  # the read rules: no link out, no FIFO or device
             for p in files_under(folder / sub, folder, (".txt", ".md"), recursive=False)}
    parsed = Parsed()
    for n, row in read_rows(qfile):
        name = str(row.get("book_name") or row.get("book") or row.get("document") or "")
        if isinstance(row.get("text"), str) and row["text"].strip():
            parsed.texts.setdefault(name or f"row{n}", row["text"])
            name = name or f"row{n}"
        elif name in files:
            parsed.files[name] = files[name]
        else:
            parsed.skipped.append("its document is not in books/ or documents/")
            continue
        must = str(row.get("chunk_must_contain") or "")
        if not must.strip():
            parsed.skipped.append("no chunk_must_contain text")
            continue
        parsed.items.append(Item(str(row.get("id") or f"line {n}"), str(row.get("question") or ""),
                                 [Evidence(name, must)], str(row.get("answer") or "")))
    return parsed
