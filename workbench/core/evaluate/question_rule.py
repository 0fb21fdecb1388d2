"""The one rule for a question's text, checked the same way at every door: an importer, ``questions add``,
``questions edit --text``, ``questions review`` (and the Questions tab), and ``eval`` itself, which asks the stored
text as it is. ``questions check`` names every stored question the rule refuses (one kept by an older version).

Whitespace runs read as one space; what is left must not be empty and must be short enough to search
(``retrieve.search.question_problem``: at most ``MAX_QUESTION_CHARS`` characters)."""

from __future__ import annotations

from workbench.core.evaluate.question_set import DatasetError
from workbench.core.retrieve.search import MAX_QUESTION_CHARS, question_problem

__all__ = ["MAX_QUESTION_CHARS", "question_refusal", "question_text", "skip_reason"]


def question_refusal(text: str) -> str | None:
    """Why ``eval`` would refuse to ask ``text`` (as stored), else None."""
    return question_problem(text)


def question_text(text: str) -> str:
    """``text`` as a question is stored (whitespace runs read as one space); ``DatasetError`` saying why when the
    rule refuses it."""
    clean = " ".join(text.split())
    problem = question_refusal(clean)
    if problem:
        raise DatasetError(problem)
    return clean


def skip_reason(text: str) -> str | None:
    """Why an importer skips a question with this text (a reason shared by every such question, to be counted),
    else None."""
    clean = " ".join(text.split())
    if question_refusal(clean) is None:
        return None
    return "the question is empty" if not clean else f"the question is over {MAX_QUESTION_CHARS:,} characters long"
