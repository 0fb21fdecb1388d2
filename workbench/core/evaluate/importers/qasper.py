"""Qasper (the original release's JSON, keyed by paper id): each paper's text is built from its title, abstract,
section names and paragraphs; each question's evidence paragraphs are located in it as references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.question_set import DatasetError


def paper_text(paper: dict[str, Any]) -> str:
    """Title, abstract, then each section's name and paragraphs, separated by blank lines."""
    parts = [str(paper.get("title") or ""), str(paper.get("abstract") or "")]
    for section in paper.get("full_text") or []:
        parts.append(str(section.get("section_name") or ""))
        parts += [str(p) for p in section.get("paragraphs") or []]
    return "\n\n".join(p for p in parts if p.strip())


def read(source: Path) -> Parsed:
    """Every paper and its questions. A question every annotator marked unanswerable is skipped and counted;
    otherwise the evidence of the first answer that gives any is taken (annotators differ; the first is used)."""
    data = read_json(source)
    if not isinstance(data, dict):
        raise DatasetError(f"{source}: expected a JSON object keyed by paper id")
    parsed = Parsed()
    for paper_id, paper in data.items():
        if not isinstance(paper, dict):
            continue
        parsed.texts[str(paper_id)] = paper_text(paper)
        for qa in paper.get("qas") or []:
            answers = [a.get("answer") or {} for a in qa.get("answers") or []]
            with_evidence = [a for a in answers if not a.get("unanswerable") and a.get("evidence")]
            if answers and all(a.get("unanswerable") for a in answers):
                parsed.skipped.append("unanswerable")
                continue
            if not with_evidence:
                parsed.skipped.append("no evidence paragraph")
                continue
            evidence = [Evidence(str(paper_id), str(e)) for e in with_evidence[0]["evidence"]]
            answer = with_evidence[0].get("free_form_answer") or ", ".join(with_evidence[0].get("extractive_spans")
                                                                           or [])
            parsed.items.append(Item(str(qa.get("question_id") or f"{paper_id}#{len(parsed.items)}"),
                                     str(qa.get("question") or ""), evidence, str(answer or "")))
    return parsed
