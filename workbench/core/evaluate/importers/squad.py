"""SQuAD-style JSON (``data[].paragraphs[].{context, qas[].{id, question, answers[].{text, answer_start},
is_impossible}}``): each article is one document, its paragraphs joined by blank lines; each question's first
answer is its reference, at ``answer_start`` shifted into the article."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.importers.shapes import obj, objects, offset, text
from workbench.core.evaluate.question_set import DatasetError


def read(source: Path) -> Parsed:
    """Every article and question; an impossible question (no answer) is skipped and counted."""
    data = read_json(source)
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise DatasetError(f"{source}: expected {{\"data\": [articles]}}")
    parsed = Parsed()
    for a, raw in enumerate(articles):
        at = f"{source}: data[{a}]"
        article = obj(raw, at)
        key = text(article.get("title"), f"{at}.title") or f"article{a}"
        while key in parsed.texts:
            key += "_"
        body = ""
        for p, paragraph in enumerate(objects(article.get("paragraphs"), f"{at}.paragraphs")):
            pat = f"{at}.paragraphs[{p}]"
            shift = len(body) + (2 if body else 0)
            context = text(paragraph.get("context"), f"{pat}.context")
            body = f"{body}\n\n{context}" if body else context
            for q, qa in enumerate(objects(paragraph.get("qas"), f"{pat}.qas")):
                qat = f"{pat}.qas[{q}]"
                answers = objects(qa.get("answers"), f"{qat}.answers")
                if qa.get("is_impossible") or not answers:
                    parsed.skipped.append("impossible (no answer)")
                    continue
                first = answers[0]
                if first.get("answer_start") is None or first.get("text") is None:
                    parsed.skipped.append("an answer without text and answer_start")
                    continue
                start = shift + offset(first["answer_start"], f"{qat}.answers[0].answer_start")
                answer = text(first["text"], f"{qat}.answers[0].text")
                parsed.items.append(Item(text(qa.get("id"), f"{qat}.id") or f"{key}#{len(parsed.items)}",
                                         text(qa.get("question"), f"{qat}.question"),
                                         [Evidence(key, answer, start, start + len(answer))], answer))
        parsed.texts[key] = body
    return parsed
