"""HiCBench (JSON Lines: ``input`` the question, ``answers``, ``facts``, ``evidences`` the evidence sentences):
each evidence sentence is located exactly in its document. The document is the row's ``context`` text, or the
file the row names in ``document`` / ``doc`` (relative to the JSON Lines file's folder)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.importers.shapes import text, texts


def read(source: Path) -> Parsed:
    """Every row of the file. A row without evidence sentences, or without a document, is skipped."""
    parsed = Parsed()
    for n, row in read_rows(source):
        at = f"{source}, line {n}"
        row_id = text(row.get("id") or row.get("_id"), f"{at}: id") or f"line {n}"
        named = text(row.get("document") or row.get("doc"), f"{at}: document")
        context = text(row.get("context"), f"{at}: context")
        if context.strip():
            key = f"{row_id}-context"
            parsed.texts[key] = context
        elif named and (source.parent / named).is_file():
            key = named
            parsed.files[key] = source.parent / named
        else:
            parsed.skipped.append("no document (neither context text nor a document file beside the JSON Lines)")
            continue
        evidences = [e for e in texts(row.get("evidences"), f"{at}: evidences") if e.strip()]
        if not evidences:
            parsed.skipped.append("no evidence sentence")
            continue
        answers = row.get("answers")
        answer = (texts(answers, f"{at}: answers")[:1] or [""])[0] if isinstance(answers, list) \
            else text(answers, f"{at}: answers")
        parsed.items.append(Item(row_id, text(row.get("input"), f"{at}: input"), [Evidence(key, e) for e in evidences],
                                 answer))
    return parsed
