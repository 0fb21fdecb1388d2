"""Answer evaluation with the local LLM: answer each question from each strategy's context, then label the
answer with a judge prompt.

Labels: ``answered`` / ``partial`` / ``no`` for questions the corpus covers, ``clean_no`` / ``padded`` for
questions it does not cover (a clean "the context does not say" versus an invented answer), each with a
one-line reason. Judge output that cannot be parsed is asked for once more, then recorded as ``unjudged``:
a bad reply never stops the run. The backend is any object with
``complete(messages, max_tokens=..., temperature=...) -> str`` (see ``workbench.core.llm``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.datasets import QuestionSet
from workbench.core.evaluate.sweep import QuestionResult, SweepResult
from workbench.core.jobs import Cancelled, CancelToken, ProgressSink, Reporter
from workbench.core.llm.base import Backend, Message, first_json_object

if TYPE_CHECKING:
    from workbench.core.retrieve.pipeline import SearchResult
    from workbench.core.workspace import Workspace

COVERED_LABELS = ("answered", "partial", "no")
UNCOVERED_LABELS = ("clean_no", "padded")
UNJUDGED = "unjudged"
LABELS = (*COVERED_LABELS, *UNCOVERED_LABELS, UNJUDGED)
NOT_IN_CONTEXT = "The context does not say."
_LABEL_LINE = re.compile(
    r"^[\s*#>\-\"'`]*(?:label\s*[:=]\s*)?[\s*\"'`]*(answered|partial|clean[\s_-]?no|padded|no)\b[\s*\"'`]*[:\-–—.,]?\s*(.*)$",
    re.IGNORECASE)


@dataclass(frozen=True)
class Judgement:
    """A label with its one-line reason, the number of judge calls made and the last raw reply."""

    label: str
    reason: str
    attempts: int
    raw: str = ""


def answer_messages(question: str, context: str) -> list[Message]:
    """Chat messages asking for an answer from the context only."""
    return [
        {"role": "system", "content": "Answer the question using only the context. Be brief. If the context "
                                      f"does not contain the answer, reply exactly: {NOT_IN_CONTEXT}"},
        {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {question}\nAnswer:"},
    ]


def judge_messages(question: str, answer: str, references: Sequence[str]) -> list[Message]:
    """Chat messages asking the judge for one label line; ``references`` empty = the corpus does not cover it."""
    if references:
        listing = "\n".join(f"- {' '.join(r.split())}" for r in references)
        task = (f"Reference passages that hold the answer:\n{listing}\n\n"
                "Label the candidate answer. ANSWERED: correct and complete by the references. PARTIAL: partly "
                "correct or incomplete. NO: wrong, unrelated, or says it does not know.")
        labels = "ANSWERED, PARTIAL or NO"
    else:
        task = ("The documents do NOT contain the answer to this question. Label the candidate answer. "
                "CLEAN_NO: it says the context does not give the answer. PADDED: it answers anyway or invents.")
        labels = "CLEAN_NO or PADDED"
    return [
        {"role": "system", "content": "You grade answers strictly and reply with one line only."},
        {"role": "user", "content": f"Question: {question}\n\n{task}\n\nCandidate answer: {answer.strip() or '(empty)'}"
                                    f"\n\nReply with one line: LABEL: reason, where LABEL is {labels}."},
    ]


def _norm(label: str) -> str:
    label = re.sub(r"[\s-]+", "_", label.strip().lower())
    return "clean_no" if label == "cleanno" else label


def parse_judgement(text: str, covered: bool) -> tuple[str, str] | None:
    """``(label, reason)`` from a judge reply (a ``LABEL: reason`` line or JSON), or None when unusable.

    Only the labels of the question's kind are accepted (``no`` is not a valid label for an uncovered one)."""
    allowed = COVERED_LABELS if covered else UNCOVERED_LABELS
    text = (text or "").strip()
    data = first_json_object(text)
    if data is not None:
        label = _norm(str(data.get("label", "")))
        if label in allowed:
            return label, " ".join(str(data.get("reason", "")).split())[:200]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        m = _LABEL_LINE.match(line)
        if not m:
            continue
        label = _norm(m.group(1))
        if label not in allowed:
            continue
        reason = m.group(2).strip() or (lines[i + 1].strip() if i + 1 < len(lines) else "")
        return label, " ".join(reason.split())[:200]
    return None


def judge_answer(backend: Backend, question: str, answer: str, references: Sequence[str],
                 max_tokens: int = 96) -> Judgement:
    """Label one answer; an unparseable reply is asked for once more, then recorded as ``unjudged``."""
    messages = judge_messages(question, answer, references)
    raw = ""
    for attempt in (1, 2):
        try:
            raw = backend.complete(messages, max_tokens=max_tokens, temperature=0.0)
        except Cancelled:
            raise
        except Exception as exc:  # a backend failure is recorded, never fatal for the run
            return Judgement(UNJUDGED, f"judge failed: {type(exc).__name__}: {exc}"[:200], attempt)
        parsed = parse_judgement(raw, bool(references))
        if parsed:
            return Judgement(parsed[0], parsed[1], attempt, raw)
        allowed = COVERED_LABELS if references else UNCOVERED_LABELS
        messages = [*messages, {"role": "assistant", "content": raw},
                    {"role": "user", "content": f"Reply again with exactly one line that starts with one of "
                                                f"{', '.join(a.upper() for a in allowed)}, then a colon and a reason."}]
    return Judgement(UNJUDGED, f"judge reply could not be parsed: {' '.join(raw.split())[:120]!r}", 2, raw)


def context_text(ws: Workspace, result: SearchResult) -> str:
    """The prompt context of a search result: every passage with its title and heading path."""
    from workbench.core.retrieve.assemble import passage_display

    return "\n\n---\n\n".join(f"[{p.rank}] " + passage_display(ws.document(p.span.doc_id), p)
                              for p in result.passages)


def backend_name(backend: object) -> str:
    """The model name recorded with a run."""
    for attr in ("label", "model", "name"):
        value = getattr(backend, attr, None)
        if value:
            return str(value)
    return type(backend).__name__


def answer_and_judge(ws: Workspace, backend: Backend, qset: QuestionSet, sweep: SweepResult,
                     progress: ProgressSink | None = None, cancel: CancelToken | None = None, max_answer_tokens: int = 256) -> None:
    """Answer every question from every configuration's context and label it; fills ``answer``, ``label``
    and ``extra`` (``reason``, ``input_tokens``, ``judge_attempts``) of the sweep's rows in place.

    The extractive backend is refused (``NotGenerative``): it cannot write the answers or the verdicts."""
    from workbench.core.llm.extractive import JUDGE_REFUSAL, NotGenerative, is_extractive

    if is_extractive(backend):
        raise NotGenerative(JUDGE_REFUSAL)
    questions = {q.index: q for q in qset.questions}
    report = Reporter(progress, "answering", sum(len(cr.rows) for cr in sweep.results))
    done = 0
    for cr in sweep.results:
        for row in cr.rows:
            if cancel is not None:
                cancel.check()
            q = questions[row.q_index]
            result = ws.search(q.question, cr.config.strategy, cancel=cancel)
            messages = answer_messages(q.question, context_text(ws, result))
            tokens = sum(ws.count_tokens(m["content"]) for m in messages)
            try:
                row.answer = backend.complete(messages, max_tokens=max_answer_tokens, temperature=0.0).strip()
                verdict = judge_answer(backend, q.question, row.answer, [r.content for r in q.references])
            except Cancelled:
                raise
            except Exception as exc:  # no answer: recorded, the run goes on
                row.answer = ""
                verdict = Judgement(UNJUDGED, f"answer failed: {type(exc).__name__}: {exc}"[:200], 0)
            row.label = verdict.label
            row.extra.update(reason=verdict.reason, input_tokens=tokens, judge_attempts=verdict.attempts)
            done += 1
            report(done, cr.config.key)


def label_summary(rows: Sequence[QuestionResult]) -> dict[str, Any]:
    """Counts per label and the median answer-prompt input tokens (MiniLM tokenizer count)."""
    counts = Counter(r.label for r in rows if r.label)
    tokens = [r.extra["input_tokens"] for r in rows if "input_tokens" in r.extra]
    return {"counts": {label: counts.get(label, 0) for label in LABELS},
            "median_input_tokens": statistics.median(tokens) if tokens else None, "judged": sum(counts.values())}


def label_changes(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]) -> list[dict[str, Any]]:
    """Questions whose label differs between two configurations (matched by question index)."""
    b = {r.q_index: r for r in rows_b}
    return [{"q_index": a.q_index, "question": a.question, "before": a.label, "after": b[a.q_index].label,
             "reason": b[a.q_index].extra.get("reason", "")}
            for a in rows_a if a.q_index in b and a.label != b[a.q_index].label]
