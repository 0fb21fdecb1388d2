"""A stored question set written out: Chroma's format (``questions.csv`` + ``corpora/``, what ``eval`` reads
from a folder) or JSON Lines with every question's spans, notes, tags and provenance (plus ``corpora/``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from workbench.core.evaluate.datasets import CORPORA_DIR, save_question_set
from workbench.core.evaluate.stored_question_sets import corpus_ids
from workbench.core.ingest.documents import Document
from workbench.core.outputs import JSONL_SET, claim_folder
from workbench.core.store.question_sets import StoredQuestion

FORMATS = ("chroma", "jsonl")


def export_chroma(out: Path, questions: Sequence[StoredQuestion], docs: Mapping[int, Document]) -> list[Path]:
    """Write Chroma's format into ``out`` (every document of the set a corpus, distractors included); questions
    whose reference needs review are written with the offsets they had. Returns the files written."""
    cids = corpus_ids(docs)
    rows = []
    for q in questions:
        refs = [{"corpus_id": cids[r.doc_id], "start_index": r.start, "end_index": r.end}
                for r in q.references if r.doc_id in cids]
        rows.append({"question": q.text, "corpus_id": refs[0]["corpus_id"] if refs else "", "references": refs,
                     "reference_answer": q.reference_answer})
    save_question_set(out, rows, {cids[d]: doc.text for d, doc in docs.items()})
    return [out / "questions.csv", out / CORPORA_DIR]


def export_jsonl(out: Path, questions: Sequence[StoredQuestion], docs: Mapping[int, Document]) -> list[Path]:
    """Write ``questions.jsonl`` (one question a line: text, references with corpus id, document path, offsets
    and text, notes, tags, provenance, review state) and the documents under ``corpora/``, by the output rules
    (``workbench.core.outputs``): the folder is new, empty or an earlier export of the workbench, nothing is
    written through a link, and the files appear all or nothing. ``OutputRefused`` says why a folder is not
    used."""
    cids = corpus_ids(docs)
    lines = []
    for q in questions:
        refs = [{"corpus_id": cids.get(r.doc_id, ""), "path": docs[r.doc_id].path if r.doc_id in docs else "",
                 "start": r.start, "end": r.end, "text": r.content, "status": r.status}
                for r in q.references]
        lines.append(json.dumps({"question": q.text, "references": refs, "notes": q.notes, "tags": list(q.tags),
                                 "reference_answer": q.reference_answer, "provenance": q.provenance.as_dict()},
                                ensure_ascii=False) + "\n")

    def text_writer(text: str) -> Callable[[Path], None]:
        def write(tmp: Path) -> None:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)

        return write

    folder = claim_folder(out, JSONL_SET)
    files = [(f"{CORPORA_DIR}/{cids[d]}.md", text_writer(doc.text)) for d, doc in docs.items()]
    try:
        folder.write([*files, ("questions.jsonl", text_writer("".join(lines)))])
    except BaseException:
        folder.abandon()
        raise
    return [folder.root / "questions.jsonl", folder.root / CORPORA_DIR]
