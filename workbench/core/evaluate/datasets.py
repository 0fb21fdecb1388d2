"""Question sets in Chroma's format: read, check against the corpus text, map to stored documents, write.

A question set is a folder with ``questions.csv`` (columns ``question,references,corpus_id``) and
``corpora/<corpus_id>.md``. ``references`` is a JSON list of ``{"content", "start_index", "end_index"}``:
Python character offsets into the corpus text read as UTF-8 (a reference may carry its own ``corpus_id``,
which overrides the row's). A question with an empty list is one the corpus does not cover. An optional
``reference_answer`` column holds a written answer the judge compares candidate answers with.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.question_rule import question_refusal
from workbench.core.evaluate.question_set import DatasetError, Question, QuestionSet, Reference
from workbench.core.ingest.documents import MAX_FILE_MB, LoadError, read_regular_file
from workbench.core.inputs import InputRefused, read_text
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.outputs import CHROMA_SET, OutputFolder, OutputRefused, check_folder, claim_folder
from workbench.core.spans import Span
from workbench.core.store import Scope

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace
    from workbench.core.ingest.values import ChunkConfig

__all__ = ["CORPORA_DIR", "QUESTIONS_FILE", "DatasetError", "Question", "QuestionSet", "Reference",
           "add_question_from_spans", "corpus_documents", "index_corpora", "load_question_set", "read_corpus",
           "save_question_set"]

QUESTIONS_FILE = "questions.csv"
PUBLISHED_QUESTIONS_FILE = "questions_df.csv"  # general_evaluation_data/ in Chroma's chunking_evaluation
CORPORA_DIR = "corpora"
_CORPUS_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_corpus(path: Path, max_file_mb: float = 0.0) -> str:
    """Corpus text exactly as Chroma's offsets see it: UTF-8, newlines untouched. A file over
    ``max_file_mb`` (0 = no limit) is refused before it is read (``LoadError`` naming its size and
    ``--max-file-mb``), as is anything but a regular file."""
    data, _ = read_regular_file(path, max_file_mb)
    return data.decode("utf-8")


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


CSV_FIELD_LIMIT = 64 * 1024 * 1024  # characters in one CSV field (a reference's content can be a long span)


def _raise_field_limit() -> None:
    """Raise the csv module's per-field limit (131,072 characters by default) to ``CSV_FIELD_LIMIT``."""
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)


def _csv_rows(reader: csv.DictReader[str], path: Path) -> Iterator[dict[str, Any]]:
    """``reader``'s rows; a CSV syntax error (unterminated quote, a field over the limit) becomes a
    ``DatasetError`` naming the file and line."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DatasetError(f"{path}, line {reader.line_num}: not valid CSV ({exc})") from None
        yield row


_WHOLE = re.compile(r"^\s*[+-]?\d+\s*$")


def _offset(value: object, what: str) -> int:
    """A character offset: a whole number (``12``, also written ``12.0`` or ``"12"``); a ``DatasetError`` naming
    ``what`` (row, reference and field) for anything else, e.g. ``12.5`` (never cut silently to ``12``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE.match(value):
        return int(value)
    raise DatasetError(f"{what} must be a whole number of characters, not {json.dumps(value)[:40]}")


def _what_is_there(path: Path) -> str:
    """``is missing``, or what ``path`` is instead of a regular file (``is a FIFO, not a file``)."""
    from workbench.core.ingest.filenames import file_kind

    try:
        return f"is a {file_kind(path.stat().st_mode)}, not a file"
    except OSError:
        return "is missing"


def load_question_set(root: str | os.PathLike[str], strict: bool = True, follow_links: bool = False,
                      max_file_mb: float = MAX_FILE_MB) -> QuestionSet:
    """Read and check a question set. Every ``corpora/*.md`` file is a corpus of the set, whether a question
    refers to it or not (a distractor is searched like the others). Every reference must satisfy
    ``text[start:end] == content``;
    mismatches are collected in ``mismatches`` and, when ``strict``, raised as one ``DatasetError``. Offsets
    must be whole numbers; a UTF-8 byte-order mark at the start of ``questions.csv`` is accepted; questions
    asked twice are kept and reported by ``QuestionSet.duplicate_note``.

    ``root`` is a folder, or the name of a set bundled with the package (``chroma-general``, ``sample``).
    A corpus file that is a link to outside the set's folder is refused unless ``follow_links``; one larger
    than ``max_file_mb`` (0 = no limit; indexing the corpora later uses the same limit) is refused before
    it is read.
    """
    from workbench.core.evaluate.bundled import resolve_dataset

    try:
        root = resolve_dataset(root).resolve()
    except FileNotFoundError as exc:
        raise DatasetError(str(exc)) from None
    qfile = root / QUESTIONS_FILE
    if not qfile.is_file() and (root / PUBLISHED_QUESTIONS_FILE).is_file():
        qfile = root / PUBLISHED_QUESTIONS_FILE  # the name Chroma's repository publishes its questions under
    if not qfile.is_file():
        raise DatasetError(f"{root} is not a question set: {QUESTIONS_FILE} {_what_is_there(qfile)}")
    if not follow_links and not qfile.resolve().is_relative_to(root):
        raise DatasetError(f"{QUESTIONS_FILE} is a link to outside the question set's folder ({qfile.resolve()}); "
                           "copy the file into the set, or allow links (--follow-links)")
    try:  # the read rules: a regular file, read with a bound (not taken from stat), UTF-8
        questions_text = read_text(qfile, what=str(qfile))
    except InputRefused as exc:
        raise DatasetError(str(exc)) from None
    texts: dict[str, str] = {}
    corpora: dict[str, Path] = {}

    def corpus_text(cid: str, where: str) -> str:
        if cid not in texts:
            path = root / CORPORA_DIR / f"{cid}.md"
            if not _CORPUS_ID.match(cid) or not path.is_file():
                there = _what_is_there(path) if _CORPUS_ID.match(cid) else "is missing"
                raise DatasetError(f"{where}: corpus {cid!r} not found ({CORPORA_DIR}/{cid}.md {there})")
            target = path.resolve()
            if not follow_links and not target.is_relative_to(root):
                raise DatasetError(f"{CORPORA_DIR}/{cid}.md is a link to outside the question set's folder "
                                   f"({target}); copy the file into the set, or allow links (--follow-links)")
            try:
                texts[cid] = read_corpus(path, max_file_mb)
            except UnicodeDecodeError as exc:
                raise DatasetError(f"{path} is not UTF-8 text ({exc.reason})") from None
            except LoadError as exc:
                raise DatasetError(f"{CORPORA_DIR}/{cid}.md: {exc}") from None
            corpora[cid] = path
        return texts[cid]

    questions: list[Question] = []
    mismatches: list[str] = []
    _raise_field_limit()
    with io.StringIO(questions_text, newline="") as fh:  # a UTF-8 byte-order mark (Excel) was dropped
        reader = csv.DictReader(fh, strict=True)  # strict: an unterminated or stray quote is an error
        try:
            fieldnames = reader.fieldnames
        except csv.Error as exc:
            raise DatasetError(f"{qfile}, line 1: not valid CSV ({exc})") from None
        missing = {"question", "references", "corpus_id"} - set(fieldnames or [])
        if missing:
            raise DatasetError(f"{qfile}: missing column(s) {', '.join(sorted(missing))}")
        for index, row in enumerate(_csv_rows(reader, qfile)):
            where = f"{qfile.name} row {index + 2}"
            if any(row.get(k) is None for k in ("question", "references", "corpus_id")):
                raise DatasetError(f"{where} (line {reader.line_num}): has {len(row) - (None in row)} field(s), "
                                   "expected question, references and corpus_id")
            text = (row["question"] or "").strip()
            refused = question_refusal(text)  # the one rule every door shares
            if refused:
                raise DatasetError(f"{where}: {refused}")
            row_cid = (row["corpus_id"] or "").strip()
            try:
                raw = json.loads(row["references"] or "[]")
                if not isinstance(raw, list):
                    raise ValueError("not a JSON list")
            except ValueError as exc:
                raise DatasetError(f"{where}: references are not a JSON list ({exc})") from None
            except RecursionError:
                raise DatasetError(f"{where}: references are nested too deeply to read") from None
            refs = []
            for n, ref in enumerate(raw, start=1):
                try:
                    cid = str(ref.get("corpus_id") or row_cid)
                    raw_start, raw_end = ref["start_index"], ref["end_index"]
                    content = str(ref.get("content", ""))
                except (AttributeError, KeyError, TypeError, ValueError):
                    raise DatasetError(f"{where}, reference {n}: needs start_index and end_index") from None
                start = _offset(raw_start, f"{where}, reference {n}: start_index")
                end = _offset(raw_end, f"{where}, reference {n}: end_index")
                body = corpus_text(cid, where)
                found = body[start:end] if 0 <= start <= end <= len(body) else None
                if found != content:
                    got = "out of range" if found is None else repr(_short(found))
                    mismatches.append(
                        f"{where} ({_short(text, 50)!r}), reference {n}: {CORPORA_DIR}/{cid}.md[{start}:{end}] "
                        f"is {got} but the reference says {_short(content)!r}")
                refs.append(Reference(cid, start, end, content))
            if row_cid:
                corpus_text(row_cid, where)
            questions.append(Question(index, text, row_cid, tuple(refs),
                                      (row.get("reference_answer") or "").strip()))
    skipped: list[str] = []
    for path in sorted((root / CORPORA_DIR).glob("*.md")):  # corpora no question refers to: searched too
        if not _CORPUS_ID.match(path.stem):
            skipped.append(f"{CORPORA_DIR}/{path.name} is not a corpus of the set (a corpus id is letters, digits, "
                           "'_', '.' or '-'); it is not searched")
        elif path.stem not in texts:
            corpus_text(path.stem, f"{CORPORA_DIR}/{path.name}")
    if strict and mismatches:
        shown = "\n  ".join(mismatches[:5])
        more = f"\n  … and {len(mismatches) - 5} more" if len(mismatches) > 5 else ""
        raise DatasetError(f"{len(mismatches)} reference(s) do not match the corpus text:\n  {shown}{more}")
    hashes = {cid: _sha256_file(p) for cid, p in corpora.items()}
    return QuestionSet(root, questions, corpora, hashes, _sha256_file(qfile), mismatches, max_file_mb,
                       skipped=skipped)


# ----- stored documents ------------------------------------------------------------------------------
def corpus_documents(ws: EvalWorkspace, qset: QuestionSet) -> dict[str, int]:
    """Corpus id → id of the stored document holding that corpus's exact text (by path, else by hash), for
    every corpus the set searches (``QuestionSet.searched_corpora``).

    Raises ``DatasetError`` when such a corpus is not indexed, or is stored with other content.
    """
    docs = ws.records.documents()
    if qset.stored_docs:  # a set stored in the data folder names its documents
        shas = {int(d["id"]): d["sha256"] for d in docs}
        for cid in qset.searched_corpora():
            if shas.get(qset.stored_docs[cid]) != qset.corpus_hashes[cid]:
                raise DatasetError(f"document {qset.stored_docs[cid]} ({cid}) of the set was removed or changed "
                                   "since the set was read; read it again")
        return {cid: qset.stored_docs[cid] for cid in qset.searched_corpora()}
    by_path = {d["path"]: d for d in docs}
    by_sha = {d["sha256"]: d for d in docs}
    out: dict[str, int] = {}
    for cid in qset.searched_corpora():
        path = str(qset.corpora[cid].resolve())
        row = by_path.get(path)
        if row is None or row["sha256"] != qset.corpus_hashes[cid]:
            row = by_sha.get(qset.corpus_hashes[cid])
        if row is None:
            raise DatasetError(f"corpus {cid!r} ({path}) is not indexed in this workspace, or changed since")
        out[cid] = int(row["id"])
    return out


def index_corpora(ws: EvalWorkspace, qset: QuestionSet, config: ChunkConfig | None = None,
                  progress: ProgressSink | None = None,
                  cancel: CancelToken | None = None) -> dict[str, int]:
    """Store the corpora the set searches (unchanged files are skipped; no chunk set of the whole data folder
    is built or changed) and return their document ids. With ``config`` its chunk set scoped to those
    documents is brought up to date too."""
    try:
        doc_ids = corpus_documents(ws, qset)
    except DatasetError:
        doc_ids = _store_corpora(ws, qset, progress, cancel)
    if config is not None:
        ws.sets.ensure_chunk_set(config, progress, cancel, scope=Scope.of(doc_ids.values()))
    return doc_ids


def _store_corpora(ws: EvalWorkspace, qset: QuestionSet, progress: ProgressSink | None,
                   cancel: CancelToken | None) -> dict[str, int]:
    """Store the searched corpora's files (no chunk set built) and map them to their documents."""
    paths = [str(qset.corpora[cid]) for cid in qset.searched_corpora()]
    report = ws.add_documents(paths, progress, cancel, max_file_mb=qset.max_file_mb)
    if report.failed or report.skipped:
        bad = "; ".join(f"{r.path}: {r.reason}" for r in [*report.failed, *report.skipped])
        raise DatasetError(f"corpus files could not be indexed: {bad}")
    return corpus_documents(ws, qset)


# ----- writing ---------------------------------------------------------------------------------------
def _question_dict(q: Question | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(q, Question):
        refs = [{"corpus_id": r.corpus_id, "start_index": r.start, "end_index": r.end, "content": r.content}
                for r in q.references]
        return {"question": q.question, "corpus_id": q.corpus_id, "references": refs,
                "reference_answer": q.reference_answer}
    return {"question": q["question"], "corpus_id": q.get("corpus_id", ""), "references": list(q.get("references", [])),
            "reference_answer": str(q.get("reference_answer") or "")}


def save_question_set(
    root: str | os.PathLike[str], questions: Iterable[Question | Mapping[str, Any]], corpora: Mapping[str, str | Path],
    append: bool = False,
) -> QuestionSet:
    """Write a question set in Chroma's format and return it loaded (and checked).

    ``questions``: ``Question`` values or dicts ``{"question", "corpus_id", "references": [{"start_index",
    "end_index", "corpus_id"?, "content"?}]}`` (missing ``content`` is cut from the corpus text).
    ``corpora``: corpus id → its text or a file to copy. An existing corpus file may only be rewritten with
    the same text (other questions' offsets point into it). ``append`` keeps the questions already there.
    """
    root = Path(root).expanduser()
    where = "the question set's folder"
    try:  # the output rules: a new, empty or earlier output folder, nothing in it a link (nothing made yet)
        OutputFolder(check_folder(root, where, CHROMA_SET), False, False).check(
            [f"{CORPORA_DIR}/{cid}.md" for cid in corpora if _CORPUS_ID.match(cid)] + [QUESTIONS_FILE])
    except OutputRefused as exc:
        raise DatasetError(str(exc)) from None
    texts: dict[str, str] = {}
    for cid, value in corpora.items():
        if not _CORPUS_ID.match(cid):
            raise DatasetError(f"corpus id {cid!r} must be letters, digits, '_', '.' or '-'")
        texts[cid] = read_corpus(Path(value)) if isinstance(value, Path) else str(value)
        target = root / CORPORA_DIR / f"{cid}.md"
        if target.exists() and read_corpus(target) != texts[cid]:
            raise DatasetError(f"{target} exists with different text; choose another corpus id")
    rows: list[dict[str, Any]] = []
    if append and (root / QUESTIONS_FILE).exists():
        rows = [_question_dict(q) for q in load_question_set(root, strict=False).questions]
    for q in questions:
        d = _question_dict(q)
        refs = []
        for ref in d["references"]:
            cid = ref.get("corpus_id") or d["corpus_id"]
            d["corpus_id"] = d["corpus_id"] or cid
            if cid not in texts:
                path = root / CORPORA_DIR / f"{cid}.md"
                if not path.is_file():
                    raise DatasetError(f"no text for corpus {cid!r}: pass it in corpora")
                texts[cid] = read_corpus(path)
            start, end = int(ref["start_index"]), int(ref["end_index"])
            if not 0 <= start < end <= len(texts[cid]):
                raise DatasetError(f"reference {start}..{end} lies outside corpus {cid!r}")
            content = texts[cid][start:end]
            if ref.get("content") not in (None, content):
                raise DatasetError(f"reference {start}..{end} of {cid!r} does not match its content")
            refs.append({"content": content, "start_index": start, "end_index": end}
                        | ({"corpus_id": cid} if cid != d["corpus_id"] else {}))
        rows.append({"question": d["question"].strip(), "corpus_id": d["corpus_id"], "references": refs,
                     "reference_answer": d["reference_answer"].strip()})

    def corpus_writer(text: str) -> Callable[[Path], None]:
        def write(tmp: Path) -> None:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)

        return write

    def write_questions(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            with_answers = any(r["reference_answer"] for r in rows)  # the column only when some question has one
            writer.writerow(["question", "references", "corpus_id",
                             *(["reference_answer"] if with_answers else [])])
            for r in rows:
                writer.writerow([r["question"], json.dumps(r["references"]), r["corpus_id"],
                                 *([r["reference_answer"]] if with_answers else [])])

    try:  # all or nothing, never through a link (the output rules)
        folder = claim_folder(root, CHROMA_SET, where)
        folder.write([*((f"{CORPORA_DIR}/{cid}.md", corpus_writer(text)) for cid, text in texts.items()),
                      (QUESTIONS_FILE, write_questions)])
    except OutputRefused as exc:
        raise DatasetError(str(exc)) from None
    return load_question_set(root)


def add_question_from_spans(root: str | os.PathLike[str], ws: EvalWorkspace, question: str,
                            spans: Sequence[Span]) -> QuestionSet:
    """Append a question whose references are spans of stored documents ("make a question from a selection").

    Each document becomes a corpus named after its file (its stored text is written as the corpus, so the
    offsets stay valid); empty ``spans`` make a question the corpus does not cover.
    """
    root = Path(root).expanduser()
    corpora: dict[str, str] = {}
    refs = []
    for span in spans:
        doc = ws.corpus.document(span.doc_id)
        cid = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(doc.path).stem).lstrip(".") or f"doc{span.doc_id}"
        existing = root / CORPORA_DIR / f"{cid}.md"
        if existing.exists() and read_corpus(existing) != doc.text:
            cid = f"{cid}-{doc.sha256[:8]}"
        corpora[cid] = doc.text
        refs.append({"corpus_id": cid, "start_index": span.start, "end_index": span.end})
    row_cid = refs[0]["corpus_id"] if refs else ""
    return save_question_set(root, [{"question": question, "corpus_id": row_cid, "references": refs}], corpora,
                             append=True)
