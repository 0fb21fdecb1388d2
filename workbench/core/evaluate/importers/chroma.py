"""Chroma's format (``questions.csv`` + ``corpora/*.md``; the repository publishes the questions as
``general_evaluation_data/questions_df.csv``): each reference's offsets and content as given."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.importers.base import Evidence, Item, Parsed


def read(source: Path) -> Parsed:
    """Every corpus file (those no question refers to included) and every question; a question with no reference
    (the corpus does not answer it) is skipped and counted."""
    if source.is_file() and source.suffix.lower() == ".csv" and source.name in ("questions.csv", "questions_df.csv"):
        source = source.parent
    qset = load_question_set(source, strict=False)
    parsed = Parsed(files=dict(qset.corpora))
    for q in qset.questions:
        if not q.references:
            parsed.skipped.append("no reference (a question the corpus does not answer)")
            continue
        parsed.items.append(Item(f"row {q.index + 2}", q.question,
                                 [Evidence(r.corpus_id, r.content, r.start, r.end) for r in q.references],
                                 q.reference_answer))
    return parsed
