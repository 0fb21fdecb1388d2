"""What the advisor needs of a workspace beyond evaluation: chunk sets found and estimated before they are
built, run records updated as trials finish, and strategies saved by name.

A narrow protocol, so this stage never imports the workspace above it; ``core.workspace.Workspace`` has it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from workbench.core.evaluate.needs import EvalWorkspace
from workbench.core.index.estimate import BuildEstimate
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.store import ChunkSetInfo, Scope


class AdviceWorkspace(EvalWorkspace, Protocol):
    """The workspace as the advisor sees it."""

    def find_chunk_set(self, config: ChunkConfig, model: str | None = "",
                       scope: Scope | None = None) -> ChunkSetInfo | None:
        """The current chunk set for ``config`` over ``scope``, or None."""
        ...

    def estimate_chunk_set(self, config: ChunkConfig, model: str = "", scope: Scope | None = None) -> BuildEstimate:
        """What building (or bringing up to date) ``config``'s chunk set over ``scope`` costs."""
        ...

    def update_run(self, run_id: str, fields: dict[str, Any]) -> None:
        """Change some columns of a recorded run."""
        ...

    def replace_run(self, run: dict[str, Any], questions: Iterable[dict[str, Any]] = ()) -> None:
        """Store a run in place of the earlier record with its id."""
        ...

    def save_strategy(self, name: str, strategy: Strategy, source: str = "", note: str = "") -> Strategy:
        """Keep a strategy under ``name`` in the data folder."""
        ...
