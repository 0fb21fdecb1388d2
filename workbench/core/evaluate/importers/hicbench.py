"""HiCBench (JSON Lines: ``input`` the question, ``answers``, ``facts``, ``evidences`` the evidence sentences):
each evidence sentence is located exactly in its document. The document is the row's ``context`` text, or the
file the row names in ``document`` / ``doc`` (relative to the JSON Lines file's folder, and inside it: an
absolute path, ``..`` or a link out is refused by the read rules, ``workbench.core.inputs``)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.inputs import file_exists, inside


def read(source: Path) -> Parsed:
    """Every row of the file. A row without evidence sentences, or without a document, is skipped."""
    parsed = Parsed()
    for n, row in read_rows(source):
        row_id = str(row.get("id") or row.get("_id") or f"line {n}")
        named = row.get("document") or row.get("doc")
        if isinstance(row.get("context"), str) and row["context"].strip():
            key = f"{row_id}-context"
            parsed.texts[key] = row["context"]
        elif isinstance(named, str) and named.strip() and file_exists(
                path := inside(source.parent, named, f"{source.name} line {n}: document")):
            key = named  # the read rules: never outside the benchmark's folder, a regular file only
            parsed.files[key] = path
        else:
            parsed.skipped.append("no document (neither context text nor a document file beside the JSON Lines)")
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
