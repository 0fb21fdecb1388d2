"""The text tables of ``workbench eval`` and ``workbench runs --show``: the summary table (configurations marked
``[!]`` when their searches warned, with the warnings under it), seed 000's answer table and the comparison
with the baseline configuration."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from workbench.commands.common import UserError
from workbench.core.evaluate.answer_report import answer_summaries, format_answer_table
from workbench.core.evaluate.baseline import compare_to_baseline, resolve_baseline
from workbench.core.evaluate.metrics import Metric, table_metrics
from workbench.core.evaluate.power import TARGET_POINTS
from workbench.core.evaluate.sweep_checks import note_lines

if TYPE_CHECKING:
    from workbench.core.evaluate.sweep import ConfigResult

SD_NOTE = "± sd: the standard deviation over the questions (not an interval; see --baseline for intervals)"


def _cell(metric: Metric, row: dict[str, Any]) -> str:
    """A summary row's value of ``metric`` in its unit, with ``± sd`` when the metric shows its spread."""
    text = metric.cell(row[metric.name])
    std = row.get(f"{metric.name}_std")
    if metric.spread and text != "-" and std is not None:
        text += f" ± {metric.cell(std)}"
    return text


def format_table(rows: list[dict[str, Any]]) -> str:
    """The summary as a text table, one row per configuration (``[!]`` after the key: its searches warned,
    e.g. an LLM step failed; ``_report`` lists the warnings under the table); rates in percent, ``± sd`` the
    standard deviation over the questions (``SD_NOTE`` under the table says so). The columns are the registered
    metrics shown in tables (``metrics.table_metrics``)."""
    metrics = table_metrics()
    head = ["configuration", *(m.column + (" ± sd" if m.spread else "") for m in metrics), "questions"]
    body = [[r["key"] + (" [!]" if r.get("warnings") else ""), *(_cell(m, r) for m in metrics), str(r["questions"])]
            for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=True)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    return "\n".join([fmt(head), fmt(["-" * w for w in widths]), *map(fmt, body), SD_NOTE])


def baseline_index(results: Sequence[ConfigResult], ref: str | None) -> int:
    """The position of the baseline configuration ``ref`` (``--baseline``: a number from 1 or a key; None: the
    first); a ``UserError`` when it names none."""
    try:
        return resolve_baseline([cr.config.key for cr in results], ref)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def detect_points(text: str) -> float:
    """An argparse ``type`` for ``--detect``: a difference in points, above 0 and at most 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not 0 < value <= 100:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"must be a difference in points above 0 and at most 100, not {text[:40]}")
    return value


def add_detect_option(p: argparse.ArgumentParser) -> None:
    """``--detect POINTS``: the difference whose questions-needed figure the paired comparisons give."""
    p.add_argument("--detect", type=detect_points, default=TARGET_POINTS, metavar="POINTS",
                   help="with --compare or --baseline: how many questions like these a difference of POINTS in "
                        f"recall / IoU would need (80%% power, α 0.05; default {TARGET_POINTS:g})")


def against_baseline(results: Sequence[ConfigResult], rows: list[dict[str, Any]], ref: str | None,
                     target_points: float = TARGET_POINTS) -> list[str]:
    """With two or more configurations: each one's recall / IoU / context-token differences against the
    baseline (intervals, Holm-adjusted p) and what the questions can detect (``target_points``: the difference
    whose questions-needed figure is given) as text lines, and as ``vs_baseline`` in its JSON row."""
    if len(results) < 2:
        return []
    base = baseline_index(results, ref)
    comp = compare_to_baseline(results, base, target_points=target_points)
    for row in rows:
        if row["key"] == comp.baseline:
            row["baseline"] = True
        else:
            row["vs_baseline"] = comp.to_dict(row["key"])
    return ["", *comp.lines()]


def note_table_lines(results: Sequence[ConfigResult], rows: list[dict[str, Any]]) -> list[str]:
    """For each configuration whose searches warned (an LLM step that failed or was skipped …): its JSON row
    gets ``warnings`` (the table marks it ``[!]``), and the text one ``[!] key: warning (N of M questions)``
    line per warning, to go right under the table."""
    for row, cr in zip(rows, results, strict=True):
        if cr.notes:  # never shown as if every step ran
            row["warnings"] = note_lines([cr])
    return [f"[!] {w}" for row in rows for w in row.get("warnings", [])]


def answers_table(results: Sequence[ConfigResult], rows: list[dict[str, Any]]) -> list[str]:
    """Seed 000's answer table when the rows were judged (text lines); each JSON row gets its ``answers``
    summary and, per question, the answer, label and judge reason."""
    answers = answer_summaries(results)
    if not answers:
        return []
    for row, cr in zip(rows, results, strict=True):
        if row["key"] in answers:
            row["answers"] = answers[row["key"]]
            row["judged_answers"] = [{"q_index": r.q_index, "question": r.question, "answer": r.answer,
                                      "label": r.label, "reason": r.extra.get("reason", "")} for r in cr.rows]
    return ["", format_answer_table(answers)]
