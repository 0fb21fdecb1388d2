"""Qasper (the original release's JSON, keyed by paper id): each paper's text is built from its title, abstract,
section names and paragraphs; each question's evidence paragraphs are located in it as references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.importers.shapes import obj, objects, text, texts
from workbench.core.evaluate.question_set import DatasetError


def paper_text(paper: dict[str, Any], where: str = "paper") -> str:
    """Title, abstract, then each section's name and paragraphs, separated by blank lines (a value of the wrong
    type is a ``DatasetError`` naming ``where`` in the file)."""
    parts = [text(paper.get("title"), f"{where}.title"), text(paper.get("abstract"), f"{where}.abstract")]
    for s, section in enumerate(objects(paper.get("full_text"), f"{where}.full_text")):
        at = f"{where}.full_text[{s}]"
        parts.append(text(section.get("section_name"), f"{at}.section_name"))
        parts += texts(section.get("paragraphs"), f"{at}.paragraphs")
    return "\n\n".join(p for p in parts if p.strip())


def read(source: Path) -> Parsed:
    """Every paper and its questions. A question every annotator marked unanswerable is skipped and counted;
    otherwise the evidence of the first answer that gives any is taken (annotators differ; the first is used)."""
    data = read_json(source)
    if not isinstance(data, dict):
        raise DatasetError(f"{source}: expected a JSON object keyed by paper id")
    parsed = Parsed()
    for key, raw in data.items():
        where = f"{source}: [{key!r}]"
        paper_id = text(key, f"{where} (the paper id)")  # a key is text too: an unpaired surrogate is refused
        paper = obj(raw, where)
        parsed.texts[paper_id] = paper_text(paper, where)
        for q, qa in enumerate(objects(paper.get("qas"), f"{where}.qas")):
            qat = f"{where}.qas[{q}]"
            answers = [obj(a.get("answer"), f"{qat}.answers[{n}].answer")
                       for n, a in enumerate(objects(qa.get("answers"), f"{qat}.answers"))]
            with_evidence = [a for a in answers if not a.get("unanswerable") and a.get("evidence")]
            if answers and all(a.get("unanswerable") for a in answers):
                parsed.skipped.append("unanswerable")
                continue
            if not with_evidence:
                parsed.skipped.append("no evidence paragraph")
                continue
            first = with_evidence[0]
            at = f"{qat}.answers[{answers.index(first)}].answer"
            evidence = [Evidence(paper_id, e) for e in texts(first["evidence"], f"{at}.evidence")]
            answer = text(first.get("free_form_answer"), f"{at}.free_form_answer") \
                or ", ".join(texts(first.get("extractive_spans"), f"{at}.extractive_spans"))
            parsed.items.append(Item(text(qa.get("question_id"), f"{qat}.question_id")
                                     or f"{paper_id}#{len(parsed.items)}",
                                     text(qa.get("question"), f"{qat}.question"), evidence, answer))
    return parsed
