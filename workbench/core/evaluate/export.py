"""Exports of evaluation results: summary and per-question rows as CSV / JSON, the trade-off plot as PNG / SVG.

An export is all or nothing, by the output rules (``workbench.core.outputs``): the folder is new, empty or an
earlier export; every file is written to a hidden temporary name in the folder (and flushed to disk), then all
are renamed into place; when a write fails (a full disk …) the temporary files are removed,
the files of an earlier export stay as they were, and ``ExportError`` says what happened in one line.

The plot shows recall and IoU against the mean context tokens sent, one line per strategy (and per value
of every grid parameter other than the one the line runs along), drawn with matplotlib's Agg backend.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.answer_report import LabelSummary, answer_summaries
from workbench.core.evaluate.metrics import METRICS, QuestionMetrics
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig
from workbench.core.outputs import RESULTS, OutputRefused, claim_folder, write_files

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PER_QUESTION_FIELDS = tuple(f.name for f in fields(QuestionMetrics))
"""The recorded per-question fields, in ``QuestionMetrics``' order (a field added there is exported)."""
_RECORDED = frozenset(PER_QUESTION_FIELDS) | {"hit_rate", "mrr"}  # as ``hit``, ``reciprocal_rank``


def per_question_values(m: QuestionMetrics) -> dict[str, float | int | bool | None]:
    """One question's exported values: the recorded fields (``PER_QUESTION_FIELDS``), then the value of every
    registered metric that is not one of them (``metrics.METRICS``)."""
    row = {f: getattr(m, f) for f in PER_QUESTION_FIELDS}
    return row | {name: metric.value(m) for name, metric in METRICS.items() if name not in _RECORDED}


def _clean(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def summary_rows(results: Sequence[ConfigResult]) -> list[dict[str, Any]]:
    """One dict per configuration: ``strategy``, each grid value as its own key, the metric means
    (rates in 0–1), their standard deviations (``*_std``), ``questions`` and ``key``."""
    out = []
    for cr in results:
        s = cr.summary
        row: dict[str, Any] = {"strategy": cr.config.base, **cr.config.params}
        row |= {name: _clean(s[name].mean) for name in METRICS}
        row |= {f"{name}_std": _clean(s[name].std) for name in METRICS}
        row |= {"questions": len(cr.rows), "covered": s["recall"].n, "key": cr.config.key,
                "description": cr.config.strategy.describe()}
        out.append(row)
    return out


def question_rows(results: Sequence[ConfigResult], doc_names: dict[int, str] | None = None) -> list[dict[str, object]]:
    """One dict per question per configuration (spans as ``doc:start-end`` joined by ``;``)."""
    names = doc_names or {}
    rows = []
    for cr in results:
        for r in cr.rows:
            row: dict[str, object] = {"key": cr.config.key, "strategy": cr.config.base, **cr.config.params,
                                      "q_index": r.q_index, "question": r.question, "corpus_id": r.corpus_id}
            row |= per_question_values(r.metrics)
            row["spans"] = ";".join(f"{names.get(s.doc_id, s.doc_id)}:{s.start}-{s.end}" for s in r.spans)
            row |= {"answer": r.answer, "label": r.label, **r.extra}
            rows.append(row)
    return rows


class ExportError(Exception):
    """An export that could not be written; the message says why and what was (not) written."""


def write_csv(rows: Sequence[Mapping[str, object]], path: str | Path) -> Path:
    """Write dict rows as CSV (columns: union of keys in first-seen order)."""
    path = Path(path)
    fields: dict[str, None] = {}
    for r in rows:
        fields.update(dict.fromkeys(r))
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_json(data: object, path: str | Path) -> Path:
    """Write JSON (UTF-8, indented)."""
    path = Path(path)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False))
    return path


def write_all(folder: str | Path, writers: dict[str, tuple[str, Callable[[Path], object]]]) -> dict[str, Path]:
    """Write a set of files into ``folder`` all or nothing, by the output rules (``workbench.core.outputs``):
    the folder is new, empty or an earlier output of the workbench (else refused before anything is written);
    ``writers`` maps a key to ``(file name, write)`` where ``write(path)`` writes the file at ``path``. Each is
    written to a hidden temporary name, synced, then all are renamed into place. Returns key → final path;
    raises ``ExportError`` (temporary files removed, nothing replaced) when the folder is refused or a write
    fails."""
    try:
        out = claim_folder(folder, RESULTS)
    except OutputRefused as exc:
        raise ExportError(str(exc)) from None
    try:
        out.write([(name, write) for name, write in writers.values()])
    except OutputRefused as exc:
        out.abandon()
        raise ExportError(f"{exc}; nothing was written there") from None
    except OSError as exc:
        out.abandon()
        raise ExportError(f"could not write the results into {out.root} ({exc.strerror or exc}); nothing was "
                          "written there") from None
    return {key: out.root / name for key, (name, _) in writers.items()}


def line_along(param_names: Sequence[str]) -> str | None:
    """The grid parameter a plot line runs along: ``budget`` in a run with budgets (one curve per
    configuration), else ``window`` when swept, else the last grid parameter (None without a grid)."""
    names = list(param_names)
    if "budget" in names:
        return "budget"
    if "window" in names:
        return "window"
    return names[-1] if names else None


def line_label(strategy: str, params: dict[str, Any], along: str | None) -> str:
    """The label of the plot line a configuration lies on: its strategy and every grid value but ``along``."""
    return " ".join([strategy, *(f"{k}={v}" for k, v in params.items() if k != along)])


def configuration_lines(configs: Sequence[SweepConfig]) -> dict[str, str]:
    """Configuration key → the label of the plot line it lies on (``plot_lines`` draws the same lines), in
    the run's order: the one grouping the table, both plots and their colours share."""
    along = line_along(list(configs[0].params)) if configs else None
    return {c.key: line_label(c.base, c.params, along) for c in configs}


def plot_lines(rows: Sequence[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Group summary rows into plot lines: per strategy and per value of every grid key except the one the
    line runs along (``line_along``); points sorted by context tokens."""
    meta = {"strategy", "questions", "covered", "key", "description"}
    grid_keys = [k for k in (rows[0] if rows else {}) if k not in meta and k not in METRICS
                 and not k.endswith("_std")]
    along = line_along(grid_keys)
    lines: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        label = line_label(r["strategy"], {k: r[k] for k in grid_keys}, along)
        lines.setdefault(label, []).append(r)
    return [(label, sorted(pts, key=lambda r: r["context_tokens"] or 0)) for label, pts in lines.items()]


def plot_tradeoff(rows: Sequence[dict[str, Any]], paths: Sequence[str | Path], title: str = "") -> list[Path]:
    """Recall and IoU against mean context tokens, one line per strategy; saved to every path (PNG/SVG)."""
    fig = tradeoff_figure(rows, title)
    out: list[Path] = []
    for target in paths:
        path = Path(target)
        write_files([(path, _figure_writer(fig, path.suffix.lstrip(".").lower() or "png"))],
                    replace=True)  # the output rules

        out.append(path)
    return out


def _figure_writer(fig: Figure, fmt: str) -> Callable[[Path], None]:
    return lambda tmp: save_figure(fig, tmp, fmt)


def save_figure(fig: Figure, path: Path, fmt: str | None = None) -> None:
    """Save ``fig`` at ``path`` in ``fmt`` (default: the path's suffix, else PNG)."""
    with open(path, "wb") as fh:
        fig.savefig(fh, format=fmt or path.suffix.lstrip(".").lower() or "png")


def tradeoff_figure(rows: Sequence[dict[str, Any]], title: str = "") -> Figure:
    """The trade-off plot of ``plot_tradeoff`` as a matplotlib ``Figure`` (Agg, not saved)."""
    from matplotlib.figure import Figure  # a bare Figure renders with Agg, whatever pyplot's backend is

    fig = Figure(figsize=(10, 4.2), dpi=100)
    axes = fig.subplots(1, 2)
    lines = plot_lines(rows)
    along = next((k for k in ("window",) if rows and k in rows[0]), None)
    for metric, ax in zip(("recall", "iou"), axes, strict=True):
        for label, pts in lines:
            xs = [p["context_tokens"] for p in pts]
            ys = [100 * (p[metric] or 0.0) for p in pts]
            ax.plot(xs, ys, marker="o", label=label)
            if along:
                for p, x, y in zip(pts, xs, ys, strict=True):
                    ax.annotate(f"w{p[along]}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.set_xlabel("mean context tokens sent")
        ax.set_ylabel(f"{'recall' if metric == 'recall' else 'IoU'} (%)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def answer_table_row(key: str, a: LabelSummary) -> dict[str, object]:
    """One configuration's row of seed 000's answer table, flat for CSV."""
    return {"key": key, **{f"covered_{k}": v for k, v in a["covered"].items()},
            **{f"not_covered_{k}": v for k, v in a["not_covered"].items()}, "unjudged": a["unjudged"],
            "unjudged_share": a["unjudged_share"], "median_input_tokens": a["median_input_tokens"],
            "judge_agrees": a["agreement"]["agree"], "judge_agreement_of": a["agreement"]["of"]}


def export_results(folder: str | Path, results: Sequence[ConfigResult], doc_names: dict[int, str] | None = None,
                   title: str = "", extra: dict[str, Any] | None = None) -> dict[str, Path]:
    """Write ``summary.csv/json``, ``questions.csv/json`` (``answers.csv`` for judged runs) and
    ``tradeoff.png/svg`` into ``folder``, all or nothing (``write_all``; ``ExportError`` when a write fails)."""
    summary = summary_rows(results)
    questions = question_rows(results, doc_names)
    answers = answer_summaries(results)
    summary_data = {**(extra or {}), "configs": summary, **({"answers": answers} if answers else {})}
    writers: dict[str, tuple[str, Callable[[Path], object]]] = {
        "summary_csv": ("summary.csv", lambda p: write_csv(summary, p)),
        "summary_json": ("summary.json", lambda p: write_json(summary_data, p)),
        "questions_csv": ("questions.csv", lambda p: write_csv(questions, p)),
        "questions_json": ("questions.json", lambda p: write_json(questions, p)),
    }
    if answers:
        table = [answer_table_row(key, a) for key, a in answers.items()]
        writers["answers_csv"] = ("answers.csv", lambda p: write_csv(table, p))
    fig = tradeoff_figure(summary, title)
    writers["plot_png"] = ("tradeoff.png", lambda p: save_figure(fig, p, "png"))
    writers["plot_svg"] = ("tradeoff.svg", lambda p: save_figure(fig, p, "svg"))
    return write_all(folder, writers)
