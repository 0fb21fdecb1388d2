"""Judged answers as reports: seed 000's table (covered: answered / partial / clean no; not covered: partial /
clean no / padded; median input tokens; the ``unjudged`` share), the judge's agreement with span coverage,
and seed 004's accounting for a pair of configurations (both correct, both wrong, fixed, broke).

Everything here reads ``QuestionResult`` rows, so a run record reproduces the tables of the run.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypedDict

from workbench.core.evaluate.judge import COVERED_LABELS, UNCOVERED_LABELS, UNJUDGED
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult

AGREE_RECALL = 0.8  # span coverage that counts as "answered" for the agreement figure


def is_covered(row: QuestionResult) -> bool:
    """True when the corpus answers the row's question (recorded with the answer, else: it has references)."""
    return bool(row.extra.get("covered", row.metrics.covered))


def label_of(row: QuestionResult) -> str | None:
    """The row's label, with an older run's plain ``no`` read as ``clean_no``."""
    return "clean_no" if row.label == "no" else row.label


class Agreement(TypedDict):
    """How often the judge agrees with span coverage: ``agree`` of ``of`` (``share``: None when ``of`` is 0)."""

    agree: int
    of: int
    share: float | None


class LabelSummary(TypedDict):
    """Seed 000's answer counts of one configuration (``label_summary``)."""

    covered: dict[str, int]
    not_covered: dict[str, int]
    covered_questions: int
    not_covered_questions: int
    unjudged: int
    unjudged_share: float | None
    median_input_tokens: float | None
    agreement: Agreement
    counts: dict[str, int]
    judged: int


class AnswerChange(TypedDict):
    """A question whose verdict changed from A to B (``answer_accounting``)."""

    q_index: int
    question: str
    before: str | None
    after: str | None
    reason_before: str
    reason_after: str


class Accounting(TypedDict):
    """Seed 004's accounting from A to B (``answer_accounting``)."""

    both_correct: int
    both_wrong: int
    fixed: list[AnswerChange]
    broke: list[AnswerChange]
    unjudged: int


class LabelChange(TypedDict):
    """A question whose label differs between two configurations (``label_changes``)."""

    q_index: int
    question: str
    before: str | None
    after: str | None
    reason: str


def judge_agreement(rows: Sequence[QuestionResult]) -> Agreement:
    """How often the judge agrees with span coverage on covered questions where coverage is decisive:
    ``answered`` where recall ≥ 0.8, ``clean_no`` where recall is 0 (``agree`` of ``of``; ``share`` or None)."""
    agree = total = 0
    for r in rows:
        recall = r.metrics.recall
        if not is_covered(r) or recall is None or label_of(r) not in COVERED_LABELS:
            continue
        if recall >= AGREE_RECALL:
            total, agree = total + 1, agree + (label_of(r) == "answered")
        elif recall == 0:
            total, agree = total + 1, agree + (label_of(r) == "clean_no")
    return Agreement(agree=agree, of=total, share=agree / total if total else None)


def label_summary(rows: Sequence[QuestionResult]) -> LabelSummary:
    """Seed 000's counts for one configuration: ``covered`` and ``not_covered`` label counts, ``unjudged``
    (count and share of the answered rows), the median answer-prompt input tokens (MiniLM tokenizer count),
    the judge's ``agreement`` with span coverage, ``counts`` per label over all rows and ``judged`` (rows
    with any label, ``unjudged`` included)."""
    labelled = [r for r in rows if r.label]
    covered = Counter(label_of(r) for r in labelled if is_covered(r))
    uncovered = Counter(label_of(r) for r in labelled if not is_covered(r))
    counts = Counter(label_of(r) for r in labelled)
    tokens = [r.extra["input_tokens"] for r in rows if "input_tokens" in r.extra]
    unjudged = counts.get(UNJUDGED, 0)
    return LabelSummary(
        covered={label: covered.get(label, 0) for label in COVERED_LABELS},
        not_covered={label: uncovered.get(label, 0) for label in UNCOVERED_LABELS},
        covered_questions=sum(covered.values()), not_covered_questions=sum(uncovered.values()),
        unjudged=unjudged, unjudged_share=unjudged / len(labelled) if labelled else None,
        median_input_tokens=statistics.median(tokens) if tokens else None,
        agreement=judge_agreement(rows),
        counts={label: counts.get(label, 0) for label in ("answered", "partial", "clean_no", "padded", UNJUDGED)},
        judged=len(labelled),
    )


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def format_answer_table(summaries: Mapping[str, LabelSummary]) -> str:
    """Seed 000's table, one row per configuration, with the unjudged share and the judge's agreement."""
    head = ["configuration", "answered", "partial", "clean no", "partial", "clean no", "padded", "unjudged",
            "median in-tokens", "judge agrees"]
    body = []
    for key, s in summaries.items():
        c, n, a = s["covered"], s["not_covered"], s["agreement"]
        tokens = s["median_input_tokens"]
        body.append([key, str(c["answered"]), str(c["partial"]), str(c["clean_no"]), str(n["partial"]),
                     str(n["clean_no"]), str(n["padded"]), _share(s["unjudged"], s["judged"]),
                     "-" if tokens is None else f"{tokens:.0f}", _share(a["agree"], a["of"])])
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]

    def fmt(cells: list[str]) -> str:
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(padded[:4]) + " | " + "  ".join(padded[4:7]) + " | " + "  ".join(padded[7:])

    first = next(iter(summaries.values()), None)
    title = (f"answers: covered ({first['covered_questions']} q): answered / partial / clean no | not covered "
             f"({first['not_covered_questions']} q): partial / clean no / padded" if first else "answers")
    note = (f"judge agrees = judge label matches span coverage (answered where recall ≥ {AGREE_RECALL:g}, "
            "clean no where recall = 0); unjudged = judge failures, share of the answers")
    return "\n".join([title, fmt(head), fmt(["-" * w for w in widths]), *map(fmt, body), note])


def answer_summaries(results: Sequence[ConfigResult]) -> dict[str, LabelSummary]:
    """``label_summary`` of every configuration (``ConfigResult``) whose rows hold labels, by key."""
    return {cr.config.key: label_summary(cr.rows) for cr in results if any(r.label for r in cr.rows)}


def correct(row: QuestionResult) -> bool | None:
    """Seed 004's verdict: ``answered`` on a covered question, ``clean_no`` on an uncovered one; None when
    unjudged or not answered."""
    label = label_of(row)
    if not label or label == UNJUDGED:
        return None
    return label == ("answered" if is_covered(row) else "clean_no")


def answer_accounting(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]) -> Accounting:
    """Seed 004's accounting from A to B by answer label (questions matched by index): ``both_correct``,
    ``both_wrong``, ``fixed`` and ``broke`` (lists with both labels and the judge's reasons), ``unjudged``
    (either side has no verdict)."""
    b = {r.q_index: r for r in rows_b}
    out = Accounting(both_correct=0, both_wrong=0, fixed=[], broke=[], unjudged=0)
    for ra in rows_a:
        rb = b.get(ra.q_index)
        if rb is None:
            continue
        ca, cb = correct(ra), correct(rb)
        if ca is None or cb is None:
            out["unjudged"] += 1
        elif ca and cb:
            out["both_correct"] += 1
        elif not ca and not cb:
            out["both_wrong"] += 1
        else:
            out["fixed" if cb else "broke"].append(AnswerChange(
                q_index=ra.q_index, question=ra.question, before=label_of(ra), after=label_of(rb),
                reason_before=ra.extra.get("reason", ""), reason_after=rb.extra.get("reason", "")))
    return out


def accounting_lines(acc: Accounting) -> list[str]:
    """The accounting as text: one count line, then each fixed / broke question with the judge's reasons."""
    lines = [f"answers: {acc['both_correct']} both correct, {acc['both_wrong']} both wrong, {len(acc['fixed'])} "
             f"fixed, {len(acc['broke'])} broke, {acc['unjudged']} unjudged on either side"]
    for tag in ("fixed", "broke"):
        for x in acc[tag]:
            lines.append(f"  {tag:<5} #{x['q_index']:<4} {x['before']} → {x['after']}  {x['question']}")
            lines.append(f"        A: {x['reason_before'] or '-'}")
            lines.append(f"        B: {x['reason_after'] or '-'}")
    return lines


def judge_lines(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]) -> list[str]:
    """Beside a judged comparison: each side's judge agreement with span coverage and its unjudged share."""
    a, b = label_summary(rows_a), label_summary(rows_b)
    return [f"judge agrees with span coverage: A {_share(a['agreement']['agree'], a['agreement']['of'])}, "
            f"B {_share(b['agreement']['agree'], b['agreement']['of'])} (answered where recall ≥ {AGREE_RECALL:g}, "
            f"clean no where recall = 0); unjudged: A {_share(a['unjudged'], a['judged'])}, "
            f"B {_share(b['unjudged'], b['judged'])}"]


def label_changes(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]) -> list[LabelChange]:
    """Questions whose label differs between two configurations (matched by question index)."""
    b = {r.q_index: r for r in rows_b}
    return [LabelChange(q_index=a.q_index, question=a.question, before=label_of(a), after=label_of(b[a.q_index]),
                        reason=b[a.q_index].extra.get("reason", ""))
            for a in rows_a if a.q_index in b and label_of(a) != label_of(b[a.q_index])]
