"""The lab's sweep job: run a sweep and record it, on a pool thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.records import save_run
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, run_sweep

if TYPE_CHECKING:
    from workbench.core.evaluate.datasets import QuestionSet
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace


def sweep_and_record(ws: Workspace, qset: QuestionSet, configs: Sequence[SweepConfig], progress: ProgressSink,
                     cancel: CancelToken, selection: dict[str, Any] | None = None) -> tuple[str, list[ConfigResult]]:
    """Run a sweep and record it (``selection``: e.g. the budgets asked for, as ``eval --budgets`` records
    them), on a pool thread (the store connection is per thread)."""
    try:
        sweep = run_sweep(ws, qset, configs, progress, cancel)
        return save_run(ws, qset, sweep, label=qset.name, selection=selection), sweep.results
    finally:
        ws.close()
