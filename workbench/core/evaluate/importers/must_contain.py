"""GutenQA and MTCB ("chunk must contain" text): each question's must-contain text is located in its document
(exactly, or after normalising spaces, quotes and dashes: the books and the question files were published apart).

GutenQA (LumberChunker) as published: the Hub's ``GutenQA.parquet`` (or its ``questions`` / ``gutenqa_chunks``
Parquet files), one row per chunk of a book with ``Book Name``, ``Chunk ID``, ``Chapter``, ``Chunk`` and, on the
30 rows per book that have one, ``Question``, ``Answer`` and ``Chunk Must Contain``; the repository's per-book
``Questions_-_BOOK.xlsx`` with the book's paragraphs in ``BOOK_Paragraph.xlsx`` beside it. A book is the file
``books/BOOK.txt`` (or ``documents/``) where there is one, else its chunks joined by blank lines in their order.
Column names are compared loosely (``Book Name`` = ``book_name``).

MTCB (chonkie) as published: a ``questions`` config (``question``, ``answer``, ``chunk-must-contain``) and a
``corpus`` config (``text``, sometimes ``title``) with no document named per question: a question's document is
the corpus text whose ``title`` it shares, else the one corpus text that holds its passage."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from workbench.core.evaluate.importers.base import TABLES, Evidence, Item, Parsed, column, read_table
from workbench.core.evaluate.importers.matching import Matcher
from workbench.core.evaluate.importers.shapes import text as text_of
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.inputs import files_under


def _row(raw: dict[str, Any]) -> dict[str, Any]:
    return {column(str(k)): v for k, v in raw.items()}


def _text(value: Any, where: str) -> str:
    """A cell as text (``shapes.text``: a string or a number; ``null`` or an empty cell reads as ``''``); a list
    or an object where text belongs is refused, naming the file, the row and the column."""
    return text_of(value, where)


def _book_key(name: str) -> str:
    return re.sub(r"[\s_]+", " ", name).strip().casefold()


def _tables(folder: Path) -> list[Path]:
    return [p for p in files_under(folder, folder, recursive=False) if p.suffix.lower() in TABLES]


def _book_of_file(path: Path) -> str:
    """The book a per-book file of LumberChunker's repository is about: ``Questions_-_Emma_-_Jane_Austen.xlsx``
    and ``Emma_-_Jane_Austen_Paragraph.xlsx`` are both about ``Emma_-_Jane_Austen``."""
    stem = path.stem
    stem = re.sub(r"^questions_-_", "", stem, flags=re.IGNORECASE)
    return re.sub(r"_(paragraph|paragraphs)$", "", stem, flags=re.IGNORECASE)


def read(source: Path) -> Parsed:
    """GutenQA: every question whose book is found; one without must-contain text or book is skipped."""
    if source.is_file():
        question_files = chunk_files = [source]
        folder = source.parent
    else:
        folder = source
        tables = _tables(folder)
        question_files = [p for p in tables if re.match(r"(questions|gutenqa)", p.stem, re.IGNORECASE)
                          and "chunks" not in p.stem.lower()]
        chunk_files = [p for p in tables if re.search(r"(paragraph|gutenqa)", p.stem, re.IGNORECASE)]
        if not question_files:
            raise DatasetError(f"{source}: expected a questions table (GutenQA.parquet, questions.parquet / .jsonl, "
                               "or Questions_-_BOOK.xlsx) with Question, Chunk Must Contain and Book Name")
    files = {_book_key(p.stem): p for sub in ("books", "documents")  # the read rules: no link out, no FIFO or device
             for p in files_under(folder / sub, folder, (".txt", ".md"), recursive=False)}
    chunks: dict[str, list[tuple[float, int, str]]] = {}
    names: dict[str, str] = {}
    rows: list[tuple[str, str, dict[str, Any]]] = []
    seen = 0
    for path in dict.fromkeys([*question_files, *chunk_files]):
        for n, raw in read_table(path):
            row = _row(raw)
            at = f"{path}, row {n}"
            book = (_text(row.get("book_name") or row.get("book") or row.get("document"), f"{at}: Book Name")
                    or _book_of_file(path))
            key = _book_key(book)
            names.setdefault(key, book)
            text = _text(row.get("chunk") or row.get("paragraph"), f"{path}, row {n}: Chunk")
            if path in chunk_files and text.strip():
                seen += 1
                order = row.get("chunk_id")
                chunks.setdefault(key, []).append((float(order) if isinstance(order, (int, float)) else seen,
                                                   seen, text))
            if path in question_files and _text(row.get("question"), f"{path}, row {n}: Question").strip():
                rows.append((f"{path.stem}:{n}", book, row))
    parsed = Parsed()
    doc_of: dict[str, str] = {}
    for where, book, row in rows:
        key = _book_key(book)
        if key not in doc_of:
            if key in files:
                parsed.files[names.get(key, book)] = files[key]
                doc_of[key] = names.get(key, book)
            elif key in chunks:
                text = "\n\n".join(t for _, _, t in sorted(chunks[key]))
                doc_of[key] = parsed.add_text(names.get(key, book), text)
            else:
                parsed.skipped.append("its book is neither in books/ nor among the chunk rows")
                continue
        must = _text(row.get("chunk_must_contain"), f"{where}: Chunk Must Contain")
        if not must.strip():
            parsed.skipped.append("no Chunk Must Contain text")
            continue
        parsed.items.append(Item(_text(row.get("id"), f"{where}: id") or where, _text(row.get("question"), where),
                                 [Evidence(doc_of[key], must)], _text(row.get("answer"), f"{where}: Answer")))
    return parsed


def _pick(folder: Path, name: str) -> list[Path]:
    """The table files of one MTCB config: ``NAME/…`` (the Hub's ``NAME/train-*.parquet``) or ``NAME.*``."""
    sub = folder / name
    if sub.is_dir():
        return [p for p in files_under(sub, folder) if p.suffix.lower() in TABLES]
    return [p for p in _tables(folder) if p.stem.lower().startswith(name)]


def read_mtcb(source: Path) -> Parsed:
    """MTCB: ``source`` is the folder holding the ``questions`` and ``corpus`` configs (``questions/`` and
    ``corpus/`` folders of Parquet files as the Hub has them, or ``questions.jsonl`` / ``corpus.jsonl`` …), or a
    questions file with the corpus beside it. A question whose passage no corpus text holds is left out by the
    import and reported; one without passage is skipped."""
    folder = source.parent if source.is_file() else source
    question_files = [source] if source.is_file() else _pick(folder, "questions")
    corpus_files = _pick(folder, "corpus")
    if not question_files:
        raise DatasetError(f"{source}: expected the questions config (questions/*.parquet or questions.jsonl) "
                           "with question and chunk-must-contain")
    if not corpus_files:
        # the older layout: documents as files in documents/ or books/, named per question
        return read(source)
    parsed = Parsed()
    titles: dict[str, str] = {}
    docs: list[tuple[str, Matcher]] = []
    for path in corpus_files:
        for n, raw in read_table(path):
            row = _row(raw)
            text = _text(row.get("text") or row.get("content"), f"{path}, row {n}: text")
            if not text.strip():
                continue
            title = _text(row.get("title") or row.get("id") or row.get("repo"), f"{path}, row {n}: title")
            key = parsed.add_text(title or f"{path.stem}:{n}", text)
            if title:
                titles.setdefault(title, key)
            docs.append((key, Matcher(text)))
    for path in question_files:
        for n, raw in read_table(path):
            row = _row(raw)
            must = _text(row.get("chunk_must_contain") or row.get("supporting_passage"),
                         f"{path}, row {n}: chunk-must-contain")
            if not must.strip():
                parsed.skipped.append("no chunk-must-contain text")
                continue
            title = _text(row.get("title") or row.get("repo"), f"{path}, row {n}: title")
            doc = titles.get(title) if title else None
            if doc is None:
                holding = [k for k, m in docs if m.find(must) is not None]
                doc = holding[0] if len(holding) == 1 else None
                if doc is None:
                    why = "in no corpus text" if not holding else f"in {len(holding)} corpus texts"
                    doc = f"(the corpus: the passage is {why})"
                    parsed.missing[doc] = f"no one corpus text holds the passage (it is {why})"
            parsed.items.append(Item(_text(row.get("id"), f"{path}, row {n}: id") or f"{path.stem}:{n}",
                                     _text(row.get("question"), f"{path}, row {n}: question"),
                                     [Evidence(doc, must)], _text(row.get("answer"), f"{path}, row {n}: answer")))
    return parsed
