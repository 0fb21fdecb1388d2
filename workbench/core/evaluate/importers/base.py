"""What every importer shares: the parsed form of a benchmark (documents, items with their evidence), and the one
step that indexes the documents into the data folder, checks every span against the stored text, and writes the
questions into a stored set, reporting what could not be located and what was skipped, and why.

An importer only reads the files the person supplies; nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.importers.matching import EXACT, HOW, HOW_SAID, Matcher
from workbench.core.evaluate.question_rule import skip_reason
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.ingest.filenames import path_key
from workbench.core.inputs import InputRefused, read_bytes, read_text
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.spans import Span
from workbench.core.store.question_sets import NewQuestion, Provenance

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace

SHOWN = 5  # unlocated references listed by name in a short report; the rest are counted
NAMED = 50  # questions left out named in the report for people (every one in its JSON form)


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence of an item: a span ``[start, end)`` of document ``doc`` holding ``text`` (offsets
    given by the format), or, with ``start`` None, ``text`` to be located exactly in ``doc``."""

    doc: str
    text: str
    start: int | None = None
    end: int | None = None


@dataclass
class Item:
    """One question of a benchmark with its evidence and its id in the benchmark."""

    item_id: str
    question: str
    evidence: list[Evidence]
    answer: str = ""


@dataclass
class Parsed:
    """A benchmark read: documents that are files to index (``files``) or text the importer built (``texts``,
    written under the data folder), the items, and the items skipped with the reason."""

    files: dict[str, Path] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one reason per skipped item
    missing: dict[str, str] = field(default_factory=dict)  # a document the benchmark names but lacks → why

    def add_text(self, key: str, text: str) -> str:
        """Keep an importer-built document and return the key to refer to it by. Rows that share an id never
        replace each other's documents: the same text under the same key is one document; a different text
        under a key already taken gets a key of its own (``key~2``, ``key~3`` …)."""
        n, unique = 1, key
        while unique in self.texts and self.texts[unique] != text:
            n += 1
            unique = f"{key}~{n}"
        self.texts[unique] = text
        return unique


def same_question(a: str, b: str) -> bool:
    """Whether two question texts are the same question (whitespace runs and case aside)."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def merge_repeats(items: list[Item]) -> tuple[list[Item], int, int]:
    """The items with every repeated question made one: rows that share an id and ask the same question
    (``same_question``) are one question whose evidence is the union of the rows' evidence (in first-seen order,
    a piece given twice kept once) and whose answer is the first row's. Rows that share an id but ask different
    questions stay apart; the later ones get ids of their own (``id#2`` …). Returns (items, rows merged into an
    earlier one, ids made unique)."""
    out: list[Item] = []
    by_id: dict[str, list[Item]] = {}
    merged = renamed = 0
    for item in items:
        same_id = by_id.setdefault(item.item_id, [])
        first = next((i for i in same_id if same_question(i.question, item.question)), None)
        if first is not None:
            first.evidence += [e for e in item.evidence if e not in first.evidence]
            first.answer = first.answer or item.answer
            merged += 1
            continue
        kept = Item(item.item_id, item.question, list(dict.fromkeys(item.evidence)), item.answer)
        if same_id:
            renamed += 1
            n = len(same_id) + 1
            while f"{item.item_id}#{n}" in by_id:
                n += 1
            kept.item_id = f"{item.item_id}#{n}"
        same_id.append(kept)
        out.append(kept)
    return out, merged, renamed


@dataclass
class ImportReport:
    """What an import did: questions written, documents indexed, evidence not located (count and the first
    few), items skipped by reason."""

    set_name: str
    questions: int = 0
    documents: int = 0
    relocated: int = 0
    unlocated: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    located: Counter[str] = field(default_factory=Counter)  # references by how they were found (matching.HOW)
    not_found: int = 0  # references not located (their questions are in ``unlocated``)
    merged: int = 0  # rows that repeated a question (same id, same question) merged into it
    renamed: int = 0  # rows that share an id with another but ask another question: given ids of their own

    def lines(self) -> list[str]:
        """The report for people."""
        out = [f"{self.questions} question(s) imported into {self.set_name!r} over {self.documents} document(s)"]
        if self.merged:
            out.append(f"{self.merged} row(s) repeated a question (same id, same question) and were merged into it: "
                       "its evidence is the union of theirs")
        if self.renamed:
            out.append(f"{self.renamed} row(s) share an id with another row but ask another question: kept as "
                       "questions of their own (id#2 …)")
        located = ", ".join(f"{self.located[h]} {HOW_SAID[h]}" for h in HOW if self.located[h])
        out.append(f"references located: {located or 'none'}; not found: {self.not_found}")
        if self.relocated:
            out.append(f"{self.relocated} span(s) found at other offsets than the benchmark gives (the text matched "
                       "once, or nearest the given offset): taken from the stored text")
        if self.unlocated:
            out.append(f"{len(self.unlocated)} question(s) left out, their evidence not located in the text:")
            out += [f"  {u}" for u in self.unlocated[:NAMED]]
            if len(self.unlocated) > NAMED:
                out.append(f"  … and {len(self.unlocated) - NAMED} more (every one is named with --json)")
        for reason, n in self.skipped.most_common():
            out.append(f"skipped {n}: {reason}")
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"set": self.set_name, "questions": self.questions, "documents": self.documents,
                "relocated": self.relocated, "unlocated": len(self.unlocated),
                "unlocated_first": self.unlocated[:SHOWN], "left_out": list(self.unlocated),
                "located": {h: self.located[h] for h in HOW}, "not_found": self.not_found,
                "merged": self.merged, "renamed": self.renamed, "skipped": dict(self.skipped)}


def _text(path: Path) -> str:
    """A benchmark file's text by the read rules (``workbench.core.inputs``: a regular file, at most
    ``MAX_DATA_BYTES``, UTF-8); ``DatasetError`` naming it otherwise."""
    try:
        return read_text(path)
    except InputRefused as exc:
        raise DatasetError(str(exc)) from None


def read_json(path: Path) -> Any:
    """A JSON file; ``DatasetError`` naming it when it is not JSON."""
    text = _text(path)
    try:
        return json.loads(text)
    except (RecursionError, ValueError) as exc:
        raise DatasetError(f"{path}: not readable JSON ({exc})") from None


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of a JSON Lines file (a ``.json`` list works too); Parquet when pyarrow is
    installed. A line that is not a JSON object raises ``DatasetError`` naming it."""
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise DatasetError(f"{path}: reading Parquet needs pyarrow, a dependency of the workbench that is "
                               "missing here; reinstall the workbench (or convert the file to JSON Lines)") from None
        import pyarrow as pa

        try:
            data = read_bytes(path)  # the read rules: a regular file, read with a bound
        except InputRefused as exc:
            raise DatasetError(str(exc)) from None
        try:
            rows = pq.read_table(pa.BufferReader(data)).to_pylist()
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise DatasetError(f"{path}: not readable Parquet ({' '.join(str(exc).split())[:200]})") from None
        for n, row in enumerate(rows, start=1):
            if not isinstance(row, dict):
                raise DatasetError(f"{path}, row {n}: not a record")
            yield n, row
        return
    if path.suffix.lower() == ".json":
        data = read_json(path)
        rows = data if isinstance(data, list) else data.get("data", []) if isinstance(data, dict) else []
        for n, row in enumerate(rows, start=1):
            if isinstance(row, dict):
                yield n, row
        return
    for n, line in enumerate(io.StringIO(_text(path), newline=None), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (RecursionError, ValueError) as exc:
            raise DatasetError(f"{path}, line {n}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise DatasetError(f"{path}, line {n}: not a JSON object")
        yield n, row


TABLES = (".parquet", ".jsonl", ".json", ".csv", ".xlsx")  # the table files ``read_table`` reads


def column(name: str) -> str:
    """A column name as compared: ``Book Name``, ``book-name`` and ``book_name`` are ``book_name``."""
    return re.sub(r"[\s-]+", "_", name.strip()).casefold()


def read_table(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, row)`` of a table: JSON Lines, a JSON list, Parquet (``read_rows``), CSV with a header
    row, or the first sheet of an Excel ``.xlsx`` workbook with a header row (read with the standard library).
    Column names are as published; compare them with ``column``."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        yield from _csv_rows(path)
    elif suffix == ".xlsx":
        yield from _xlsx_rows(path)
    else:
        yield from read_rows(path)


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import csv

    csv.field_size_limit(2**31 - 1)
    text = _text(path)  # the read rules: a regular file, read with a bound
    try:
        for n, row in enumerate(csv.DictReader(io.StringIO(text, newline=""), strict=True), start=2):
            yield n, {k: v for k, v in row.items() if isinstance(k, str)}
    except csv.Error as exc:
        raise DatasetError(f"{path}: not readable CSV ({exc})") from None


_XL = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
MAX_UNZIPPED = 1 << 30  # bytes an .xlsx may unpack to: a workbook that claims more is refused before unpacking


def _xlsx_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import zipfile
    from xml.etree import ElementTree

    def cell_text(c: ElementTree.Element, shared: list[str]) -> str:
        kind = c.get("t")
        if kind == "inlineStr":
            return "".join(t.text or "" for t in c.iter(f"{_XL}t"))
        v = c.find(f"{_XL}v")
        raw = v.text or "" if v is not None else ""
        return shared[int(raw)] if kind == "s" and raw.isdigit() and int(raw) < len(shared) else raw

    def col_of(ref: str) -> int:
        n = 0
        for ch in ref:
            if not ch.isalpha():
                break
            n = n * 26 + ord(ch.upper()) - 64
        return n - 1

    try:
        data = read_bytes(path)  # the read rules: a regular file, read with a bound
    except InputRefused as exc:
        raise DatasetError(str(exc)) from None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if sum(i.file_size for i in z.infolist()) > MAX_UNZIPPED:  # zipfile reads no more than it declares
                raise DatasetError(f"{path}: the workbook unpacks to more than {MAX_UNZIPPED // 2**20} MB")
            names = set(z.namelist())
            shared: list[str] = []
            if "xl/sharedStrings.xml" in names:
                root = ElementTree.fromstring(z.read("xl/sharedStrings.xml"))
                shared = ["".join(t.text or "" for t in si.iter(f"{_XL}t")) for si in root.iter(f"{_XL}si")]
            sheets = sorted(n for n in names if n.startswith("xl/worksheets/sheet") and n.endswith(".xml"))
            if not sheets:
                raise DatasetError(f"{path}: no worksheet in the workbook")
            sheet = ElementTree.fromstring(z.read(sheets[0]))
    except (OSError, zipfile.BadZipFile, ElementTree.ParseError, KeyError) as exc:
        raise DatasetError(f"{path}: not a readable .xlsx workbook ({exc})") from None
    header: list[str] = []
    for row in sheet.iter(f"{_XL}row"):
        cells: dict[int, str] = {}
        for i, c in enumerate(row.iter(f"{_XL}c")):
            cells[col_of(c.get("r") or "") if c.get("r") else i] = cell_text(c, shared)
        if not header:
            header = [cells.get(i, "") for i in range(max(cells, default=-1) + 1)]
            continue
        yield int(row.get("r") or 0), {h: cells.get(i, "") for i, h in enumerate(header) if h}


def _file_name(key: str) -> str:
    return (re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("._") or "doc")[:120] + ".txt"


def write_texts(parsed: Parsed, folder: Path) -> dict[str, Path]:
    """The importer-built documents written as text files under ``folder`` (kept: the store reads them)."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    used: set[str] = set()
    for key, text in parsed.texts.items():
        name = _file_name(key)
        while name in used:
            name = f"x{name}"
        used.add(name)
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        out[key] = path
    return out


def _locate(ev: Evidence, doc: Matcher) -> tuple[Span | None, str, bool, str]:
    """(span in the document or None, how it was found (``matching.HOW``), whether it moved from the offsets
    the benchmark gives, why not located). At the given offsets when the text there is the evidence (or the
    evidence has no text); else the evidence's one occurrence (or the one nearest the given offsets) exactly,
    then after normalising spaces, then quotes and dashes."""
    text = doc.text
    if ev.start is not None and ev.end is not None and 0 <= ev.start < ev.end <= len(text) \
            and (not ev.text or text[ev.start:ev.end] == ev.text):
        return Span(0, ev.start, ev.end), EXACT, False, ""
    if not ev.text.strip():
        return None, "", False, "the evidence is empty" if ev.start is None else "its offsets are outside the text"
    found = doc.find(ev.text, ev.start)
    if found is None:
        return None, "", False, "not in the text"
    if found.count > 1 and ev.start is None:
        return None, "", False, "found more than once"
    moved = ev.start is not None and (found.start, found.end) != (ev.start, ev.end)
    return Span(0, found.start, found.end), found.how, moved, ""


def check_items(parsed: Parsed, text_of: Callable[[str], str | None]
                ) -> tuple[list[tuple[Item, list[tuple[str, Span]]]], ImportReport]:
    """Locate every item's evidence in the documents (``text_of``: a document key → its text as stored, None
    when the key names no document) without writing anything:
    the items kept with their spans (document key, span with doc_id 0), and a report (no set name, no counts of
    questions written) saying how each reference was found, which questions are left out and why, and how many
    rows were merged. Repeated questions are merged first (``merge_repeats``)."""
    items, merged, renamed = merge_repeats(parsed.items)
    out = ImportReport("", skipped=Counter(parsed.skipped), merged=merged, renamed=renamed)
    docs: dict[str, Matcher] = {}
    kept: list[tuple[Item, list[tuple[str, Span]]]] = []
    for item in items:
        refused = skip_reason(item.question)  # the question rule every door shares (``question_rule``)
        if refused:
            out.skipped[refused] += 1
            continue
        spans: list[tuple[str, Span]] = []
        how_found: Counter[str] = Counter()
        moves = 0
        why = ""
        for ev in item.evidence:
            if ev.doc not in docs:
                text = text_of(ev.doc)
                if text is None:
                    why = parsed.missing.get(ev.doc) or f"document {ev.doc!r} is not part of the benchmark's corpus"
                    break
                docs[ev.doc] = Matcher(text)
            span, how, moved, why = _locate(ev, docs[ev.doc])
            if span is None:
                short = " ".join(ev.text.split())[:50]
                why = f"{why}: {short!r} ({ev.doc})"
                break
            how_found[how] += 1
            moves += moved
            spans.append((ev.doc, span))
        if why or not spans:
            out.not_found += 1
            out.unlocated.append(f"{item.item_id}: {why or 'no evidence'}")
            continue
        out.located.update(how_found)
        out.relocated += moves
        kept.append((item, spans))
    return kept, out


def folder_name(set_name: str) -> str:
    """The folder (under ``DATA_DIR/imported/``) of a set's importer-built documents, named by the set's exact
    name: a readable part and a digest of the name, so names that differ only in characters a file name cannot
    hold (``x y``, ``x_y``) never share a folder."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", set_name).strip("._")[:40] or "set"
    digest = hashlib.sha256(set_name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{slug}-{digest}"


def _new_folder(root: Path, set_name: str, stored: set[str]) -> Path:
    """A folder for this import that no earlier one uses (a set deleted or renamed since keeps its files and its
    stored documents). A folder of this name that no stored document lies in (``stored``: the stored documents'
    paths) is what an import killed midway left: it is cleared and used."""
    base = root / folder_name(set_name)
    folder, n = base, 1
    while folder.exists() or folder.is_symlink():
        inside = os.path.realpath(folder) + os.sep
        if folder.is_dir() and not folder.is_symlink() and not any(p.startswith(inside) for p in stored):
            shutil.rmtree(folder)
            break
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def import_parsed(ws: EvalWorkspace, parsed: Parsed, set_name: str, fmt: str,
                  progress: ProgressSink | None = None, cancel: CancelToken | None = None) -> ImportReport:
    """Index the documents, check every piece of evidence against the stored text (``check_items``: at the
    offsets given, else its one occurrence, exactly or after normalising spaces, quotes and dashes), and write
    the located questions into the set ``set_name`` (created; it must not exist), a repeated question once. A
    question with evidence that cannot be located is left out and reported.

    All or nothing: the documents, the set and its questions are written in one store transaction under the
    writer lock, and the text files the importer wrote go with them; an import that fails (nothing could be
    imported, a document could not be indexed, cancelled) leaves no document, folder or set behind (documents
    stored before stay as they were)."""
    if set_name in ws.questions.names():
        raise DatasetError(f"a question set called {set_name!r} exists already; choose another --set")
    if not parsed.items:
        raise DatasetError("no question to import" + (f" ({parsed.skipped[0]}, …)" if parsed.skipped else ""))
    with ws.all_or_nothing(progress):
        if set_name in ws.questions.names():  # made by another process meanwhile
            raise DatasetError(f"a question set called {set_name!r} exists already; choose another --set")
        root = ws.data_dir / "imported"
        made_root = not root.exists()
        folder = _new_folder(root, set_name, {str(r["path"]) for r in ws.records.documents()})
        try:
            report = _import(ws, parsed, set_name, fmt, folder, progress, cancel)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            if made_root:
                with contextlib.suppress(OSError):
                    root.rmdir()
            raise
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty: every document was a file of the benchmark's own
    return report


def _import(ws: EvalWorkspace, parsed: Parsed, set_name: str, fmt: str, folder: Path,
            progress: ProgressSink | None, cancel: CancelToken | None) -> ImportReport:
    """``import_parsed``'s steps, inside its transaction."""
    written = write_texts(parsed, folder)
    paths = {**{k: p for k, p in parsed.files.items()}, **written}
    report = ws.add_documents([str(p) for p in paths.values()], progress, cancel, keep_earlier=True)
    problems = [*report.failed, *report.skipped]
    if problems:
        raise DatasetError("documents could not be indexed: " + "; ".join(f"{r.path}: {r.reason}"
                                                                          for r in problems[:3]))
    ids = {row["path"]: int(row["id"]) for row in ws.records.documents()}
    doc_ids = {k: ids[path_key(p)] for k, p in paths.items()}
    kept, out = check_items(parsed, lambda key: ws.corpus.doc_text(doc_ids[key]) if key in doc_ids else None)
    out.set_name, out.documents = set_name, len(set(doc_ids.values()))
    questions: list[NewQuestion] = []
    for item, spans in kept:
        located = {Span(doc_ids[k], s.start, s.end) for k, s in spans}
        refs = ws.questions.references(sorted(located, key=lambda s: (s.doc_id, s.start)))
        questions.append(NewQuestion(" ".join(item.question.split()), refs, reference_answer=item.answer,
                                     provenance=Provenance("imported", format=fmt, item=item.item_id)))
    if not questions:
        first = out.unlocated[0] if out.unlocated else \
            f"skipped: {out.skipped.most_common(1)[0][0]}" if out.skipped else "none read"
        raise DatasetError(f"no question could be imported: {first}"
                           f"{f' (and {len(out.unlocated) - 1} more)' if len(out.unlocated) > 1 else ''}")
    if cancel is not None:
        cancel.check()  # the last moment a cancel undoes everything: the set is written next
    ws.questions.create(set_name, f"imported from {fmt}")
    ws.questions.add_documents(set_name, sorted(set(doc_ids.values())))
    ws.questions.add_many(set_name, questions)
    out.questions = len(questions)
    return out


@dataclass
class Preview:
    """What an import would do, before anything is written: the report ``check_items`` gives (no set name) and
    the first questions with the text of their located references."""

    report: ImportReport
    first: list[tuple[str, str, list[str]]]  # (item id, question, reference texts) of the first questions kept
    questions: int  # questions the import would write

    def lines(self, width: int = 160) -> list[str]:
        """The preview for people: the counts, then each of the first questions with its references."""
        head = [f"{self.questions} question(s) would be imported"]
        body = [line for line in self.report.lines()[1:] if line]
        shown: list[str] = []
        for item_id, question, refs in self.first:
            shown.append(f"{item_id}: {' '.join(question.split())[:width]}")
            shown += [f"    “{' '.join(r.split())[:width]}”" for r in refs]
        return head + body + (["the first questions, with their references as located:", *shown] if shown else [])


def preview(parsed: Parsed, shown: int = 5) -> Preview:
    """Locate every item's evidence in the documents as read from their files (or as the importer built them),
    writing nothing: the counts the import would report and the first ``shown`` questions with their references.
    A document file that cannot be read as UTF-8 text counts as missing (the import would refuse it)."""
    cache: dict[str, str | None] = {}

    def text_of(key: str) -> str | None:
        if key not in cache:
            if key in parsed.texts:
                cache[key] = parsed.texts[key]
            elif key in parsed.files:
                try:  # the read rules; newlines as stored
                    cache[key] = read_text(parsed.files[key])
                except InputRefused:
                    cache[key] = None
            else:
                cache[key] = None
        return cache[key]

    kept, report = check_items(parsed, text_of)
    first = []
    for item, spans in kept[:shown]:
        first.append((item.item_id, item.question,
                      [(text_of(k) or "")[s.start:s.end] for k, s in spans]))
    return Preview(report, first, len(kept))
