"""Judging the answer panel's answers to a question-set question with the answering model: seed 000's labels
(covered: answered / partial / clean no; not covered: partial / clean no / padded) and the judge's reason.

The judge is ``workbench.core.evaluate.judge.judge_answer`` with the reference passages' text; an empty
reference means the corpus does not cover the question. The extractive backend cannot judge (no language
model): its answers say "not judged: needs a generative model".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from workbench.core.jobs import CancelToken
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.llm.base import Backend
    from workbench.core.workspace import Workspace
    from workbench.ui.answer.answer_backend import AnswerJob


NOT_GENERATIVE = "not judged: needs a generative model"
LABEL_WORDS = {"answered": "answered", "partial": "partial", "clean_no": "clean no", "padded": "padded",
               "unjudged": "unjudged"}


def reference_texts(ws: Workspace, spans: Iterable[Span]) -> list[str]:
    """The text of each reference span (what the judge compares the answer with)."""
    return [ws.corpus.doc_text(s.doc_id)[s.start:s.end] for s in spans]


def judge_job(job: AnswerJob, backend: Backend, references: list[str], cancel: CancelToken | None = None) -> None:
    """Label ``job`` (an ``AnswerJob``) in place: ``verdict`` and ``reason``; ``references`` empty = the corpus
    does not cover the question. The extractive backend leaves it unjudged with the reason why."""
    from workbench.core.evaluate.judge import judge_answer
    from workbench.core.llm.no_model import is_extractive

    job.covered = bool(references)
    if is_extractive(backend):
        job.verdict, job.reason = "", NOT_GENERATIVE
        return
    if cancel is not None:
        cancel.check()
    judgement = judge_answer(backend, job.question, job.text, references)
    job.verdict, job.reason = judgement.label, judgement.reason


def verdict_line(job: AnswerJob) -> str:
    """The line under a judged answer: ``judge: <label> — <reason>`` (or the reason it is not judged)."""
    if not job.verdict:
        return job.reason
    covered = "covered" if job.covered else "not covered"
    word = LABEL_WORDS.get(job.verdict, job.verdict)
    return f"judge ({covered}): {word} — {job.reason or 'no reason given'}"
