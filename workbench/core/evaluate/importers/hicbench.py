"""HiCBench (HiChunk's layout: ``dataset/qas/{dataset}.jsonl``, one row per question with ``input`` the question,
``answers``, ``facts``, ``evidences`` the evidence sentences and ``_id`` the document's id; the documents are
``dataset/doc/{dataset}/{_id}.txt``): each evidence sentence is located in its document. A row may instead carry
its document as ``context`` text, or name a file in ``document`` / ``doc`` (relative to the JSON Lines file's
folder)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.question_set import DatasetError


def _qa_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    for folder in (source / "qas", source / "dataset" / "qas", source):
        found = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
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
            doc_id = str(row.get("_id") or "")
            row_id = str(row.get("id") or doc_id or f"line {n}")
            named = row.get("document") or row.get("doc")
            if isinstance(row.get("context"), str) and row["context"].strip():
                key = parsed.add_text(f"{row_id}-context", row["context"])
            elif isinstance(named, str) and (qa_file.parent / named).is_file():
                key = named
                parsed.files[key] = qa_file.parent / named
            elif doc_id and (doc_folder / f"{doc_id}.txt").is_file():
                key = f"{qa_file.stem}/{doc_id}"
                parsed.files[key] = doc_folder / f"{doc_id}.txt"
            else:
                where = f"doc/{qa_file.stem}/{doc_id}.txt" if doc_id else "no _id"
                parsed.skipped.append(f"no document (no context text, and {where} is missing)")
                continue
            evidences = [str(e) for e in row.get("evidences") or [] if str(e).strip()]
            if not evidences:
                parsed.skipped.append("no evidence sentence")
                continue
            answers = row.get("answers") or ""
            answer = str(answers[0]) if isinstance(answers, list) and answers else str(answers)
            parsed.items.append(Item(row_id, str(row.get("input") or ""), [Evidence(key, e) for e in evidences],
                                     answer))
    return parsed
