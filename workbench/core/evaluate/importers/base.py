"""What every importer shares: the parsed form of a benchmark (documents, items with their evidence), and the one
step that indexes the documents into the data folder, checks every span against the stored text, and writes the
questions into a stored set, reporting what could not be located and what was skipped, and why.

An importer only reads the files the person supplies; nothing is downloaded.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.question_set import DatasetError
from workbench.core.evaluate.stored_sets import occurrences
from workbench.core.ingest.filenames import path_key
from workbench.core.inputs import InputRefused, read_bytes, read_text
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.spans import Span
from workbench.core.store.question_sets import NewQuestion, Provenance

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace

SHOWN = 5  # unlocated references listed by name; the rest are counted


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

    def lines(self) -> list[str]:
        """The report for people."""
        out = [f"{self.questions} question(s) imported into {self.set_name!r} over {self.documents} document(s)"]
        if self.relocated:
            out.append(f"{self.relocated} span(s) found at other offsets than the benchmark gives (the text matched "
                       "exactly once): taken from the stored text")
        if self.unlocated:
            out.append(f"{len(self.unlocated)} question(s) left out, their evidence not located in the text:")
            out += [f"  {u}" for u in self.unlocated[:SHOWN]]
            if len(self.unlocated) > SHOWN:
                out.append(f"  … and {len(self.unlocated) - SHOWN} more")
        for reason, n in self.skipped.most_common():
            out.append(f"skipped {n}: {reason}")
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"set": self.set_name, "questions": self.questions, "documents": self.documents,
                "relocated": self.relocated, "unlocated": len(self.unlocated),
                "unlocated_first": self.unlocated[:SHOWN], "skipped": dict(self.skipped)}


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
            import pyarrow.parquet as pq
        except ImportError:
            raise DatasetError(f"{path}: reading Parquet needs pyarrow, which is not installed; convert the file "
                               "to JSON Lines") from None
        import pyarrow as pa

        try:
            data = read_bytes(path)
        except InputRefused as exc:
            raise DatasetError(str(exc)) from None
        for n, row in enumerate(pq.read_table(pa.BufferReader(data)).to_pylist(), start=1):
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


def _locate(ev: Evidence, text: str) -> tuple[Span | None, bool, str]:
    """(span in ``text`` or None, whether it moved, why not located)."""
    if ev.start is not None and ev.end is not None and 0 <= ev.start < ev.end <= len(text) \
            and (not ev.text or text[ev.start:ev.end] == ev.text):
        return Span(0, ev.start, ev.end), False, ""
    needle = ev.text
    if not needle.strip():
        return None, False, "the evidence is empty"
    found = occurrences(text, needle, 2)
    if len(found) == 1:
        return Span(0, found[0], found[0] + len(needle)), ev.start is not None, ""
    return None, False, "not in the text" if not found else "found more than once"


def import_parsed(ws: EvalWorkspace, parsed: Parsed, set_name: str, fmt: str,
                  progress: ProgressSink | None = None, cancel: CancelToken | None = None) -> ImportReport:
    """Index the documents, check every piece of evidence against the stored text (at the offsets given, else
    its one exact occurrence), and write the located questions into the set ``set_name`` (created; it must not
    exist). A question with evidence that cannot be located is left out and reported."""
    if set_name in ws.questions.names():
        raise DatasetError(f"a question set called {set_name!r} exists already; choose another --set")
    if not parsed.items:
        raise DatasetError("no question to import" + (f" ({parsed.skipped[0]}, …)" if parsed.skipped else ""))
    written = write_texts(parsed, ws.data_dir / "imported" / re.sub(r"[^A-Za-z0-9_.-]+", "_", set_name))
    paths = {**{k: p for k, p in parsed.files.items()}, **written}
    report = ws.add_documents([str(p) for p in paths.values()], progress, cancel)
    problems = [*report.failed, *report.skipped]
    if problems:
        raise DatasetError("documents could not be indexed: " + "; ".join(f"{r.path}: {r.reason}"
                                                                          for r in problems[:3]))
    ids = {row["path"]: int(row["id"]) for row in ws.records.documents()}
    doc_ids = {k: ids[path_key(p)] for k, p in paths.items()}
    texts: dict[int, str] = {}
    out = ImportReport(set_name, skipped=Counter(parsed.skipped), documents=len(set(doc_ids.values())))
    questions: list[NewQuestion] = []
    for item in parsed.items:
        spans: list[Span] = []
        why = ""
        for ev in item.evidence:
            if ev.doc not in doc_ids:
                why = f"document {ev.doc!r} is not part of the benchmark's corpus"
                break
            d = doc_ids[ev.doc]
            if d not in texts:
                texts[d] = ws.corpus.doc_text(d)
            span, moved, why = _locate(ev, texts[d])
            if span is None:
                short = " ".join(ev.text.split())[:50]
                why = f"{why}: {short!r} ({ev.doc})"
                break
            out.relocated += moved
            spans.append(Span(d, span.start, span.end))
        if why or not spans:
            out.unlocated.append(f"{item.item_id}: {why or 'no evidence'}")
            continue
        refs = ws.questions.references(sorted(set(spans), key=lambda s: (s.doc_id, s.start)))
        questions.append(NewQuestion(" ".join(item.question.split()), refs, reference_answer=item.answer,
                                     provenance=Provenance("imported", format=fmt, item=item.item_id)))
    if not questions:
        raise DatasetError(f"no question could be imported: {out.unlocated[0] if out.unlocated else 'none read'}"
                           f"{f' (and {len(out.unlocated) - 1} more)' if len(out.unlocated) > 1 else ''}")
    ws.questions.create(set_name, f"imported from {fmt}")
    ws.questions.add_documents(set_name, sorted(set(doc_ids.values())))
    ws.questions.add_many(set_name, questions)
    out.questions = len(questions)
    return out
