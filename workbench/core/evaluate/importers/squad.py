"""SQuAD-style JSON (``data[].paragraphs[].{context, qas[].{id, question, answers[].{text, answer_start},
is_impossible}}``): each article is one document, its paragraphs joined by blank lines; each question's first
answer is its reference, at ``answer_start`` shifted into the article."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.question_set import DatasetError


def read(source: Path) -> Parsed:
    """Every article and question; an impossible question (no answer) is skipped and counted."""
    data = read_json(source)
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise DatasetError(f"{source}: expected {{\"data\": [articles]}}")
    parsed = Parsed()
    for a, article in enumerate(articles):
        key = str(article.get("title") or f"article{a}")
        while key in parsed.texts:
            key += "_"
        text = ""
        for paragraph in article.get("paragraphs") or []:
            offset = len(text) + (2 if text else 0)
            text = f"{text}\n\n{paragraph.get('context', '')}" if text else str(paragraph.get("context", ""))
            for qa in paragraph.get("qas") or []:
                answers = qa.get("answers") or []
                if qa.get("is_impossible") or not answers:
                    parsed.skipped.append("impossible (no answer)")
                    continue
                first = answers[0]
                try:
                    start = offset + int(first["answer_start"])
                    answer = str(first["text"])
                except (KeyError, TypeError, ValueError):
                    parsed.skipped.append("an answer without text and answer_start")
                    continue
                parsed.items.append(Item(str(qa.get("id") or f"{key}#{len(parsed.items)}"),
                                         str(qa.get("question") or ""),
                                         [Evidence(key, answer, start, start + len(answer))], answer))
        parsed.texts[key] = text
    return parsed
