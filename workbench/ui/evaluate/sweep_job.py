"""The lab's jobs: run a sweep and record it, on a pool thread; export a run's results."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.evaluate.export import ExportError
from workbench.core.evaluate.records import Selection, save_run
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, run_sweep

if TYPE_CHECKING:
    from workbench.core.evaluate.datasets import QuestionSet
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace


def sweep_and_record(ws: Workspace, qset: QuestionSet, configs: Sequence[SweepConfig], progress: ProgressSink,
                     cancel: CancelToken, selection: Selection | None = None) -> tuple[str, list[ConfigResult]]:
    """Run a sweep and record it (``selection``: e.g. the budgets asked for, as ``eval --budgets`` records
    them), on a pool thread (the store connection is per thread)."""
    try:
        sweep = run_sweep(ws, qset, configs, progress, cancel)
        try:
            return save_run(ws, qset, sweep, label=qset.name, selection=selection), sweep.results
        except (sqlite3.Error, OSError) as exc:  # the store's own errors (StoreError) are worded already
            raise RunNotRecorded(f"the run finished but could not be recorded ({exc})") from exc
    finally:
        ws.close()


class RunNotRecorded(RuntimeError):
    """A finished sweep the store refused to record; the message says so in one line."""


def export_line(export: Callable[[], dict[str, Path]]) -> str:
    """Run ``export`` (``EvalView.export_to``) and say in one line what it wrote, or why nothing was written
    (a full disk …: the export is all or nothing)."""
    try:
        files = export()
    except ExportError as exc:
        return str(exc)
    return "wrote " + ", ".join(p.name for p in files.values())
