"""HiCBench (HiChunk's layout: ``dataset/qas/{dataset}.jsonl``, one row per question with ``input`` the question,
``answers``, ``facts``, ``evidences`` the evidence sentences and ``_id`` the document's id; the documents are
``dataset/doc/{dataset}/{_id}.txt``): each evidence sentence is located in its document. A row may instead carry
its document as ``context`` text, or name a file in ``document`` / ``doc`` (relative to the JSON Lines file's
folder, and inside it: an absolute path, ``..`` or a link out is refused by the read rules,
``workbench.core.inputs``; so is an ``_id`` that would name a file outside ``doc/{dataset}/``)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.importers.shapes import text, texts
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.inputs import file_exists, files_under, inside


def _qa_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    for folder in (source / "qas", source / "dataset" / "qas", source):
        found = files_under(folder, source, (".jsonl",), recursive=False)
        if found:
            return found
    raise DatasetError(f"{source}: expected qas/{{dataset}}.jsonl (HiChunk's dataset/ folder) or a .jsonl file")


def read(source: Path) -> Parsed:
    """Every row of the file (or of every ``qas/*.jsonl`` under the ``dataset`` folder). A row without
    evidence sentences, or without a document, is skipped."""
    parsed = Parsed()
    for qa_file in _qa_files(source):
        doc_folder = qa_file.parent.parent / "doc" / qa_file.stem  # dataset/qas/X.jsonl → dataset/doc/X/
        for n, row in read_rows(qa_file):
            at = f"{qa_file}, line {n}"
            doc_id = text(row.get("_id"), f"{at}: _id")
            row_id = text(row.get("id"), f"{at}: id") or doc_id or f"line {n}"
            named = text(row.get("document") or row.get("doc"), f"{at}: document")
            context = text(row.get("context"), f"{at}: context")
            if context.strip():
                key = parsed.add_text(f"{row_id}-context", context)
            elif named and file_exists(path := inside(qa_file.parent, named, f"{at}: document")):
                key = named  # the read rules: never outside the benchmark's folder, a regular file only
                parsed.files[key] = path
            elif doc_id and file_exists(path := inside(doc_folder, f"{doc_id}.txt", f"{at}: _id")):
                key = f"{qa_file.stem}/{doc_id}"
                parsed.files[key] = path
            else:
                where = f"doc/{qa_file.stem}/{doc_id}.txt" if doc_id else "no _id"
                parsed.skipped.append(f"no document (no context text, and {where} is missing)")
                continue
            evidences = [e for e in texts(row.get("evidences"), f"{at}: evidences") if e.strip()]
            if not evidences:
                parsed.skipped.append("no evidence sentence")
                continue
            answers = row.get("answers")
            answer = (texts(answers, f"{at}: answers")[:1] or [""])[0] if isinstance(answers, list) \
                else text(answers, f"{at}: answers")
            parsed.items.append(Item(row_id, text(row.get("input"), f"{at}: input"),
                                     [Evidence(key, e) for e in evidences], answer))
    return parsed
