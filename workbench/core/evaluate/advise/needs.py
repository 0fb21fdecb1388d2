"""What the advisor needs of a workspace beyond evaluation: chunk sets found and estimated before they are
built, run records updated as trials finish, and strategies saved by name.

Narrow protocols, so this stage never imports the workspace above it; ``core.workspace.Workspace`` has them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from workbench.core.evaluate.needs import EvalRecords, EvalSets, EvalWorkspace
from workbench.core.index.estimate import BuildEstimate
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.store import ChunkSetInfo, Scope
from workbench.core.store.rows import RunQuestionRow, RunRow


class AdviceRecords(EvalRecords, Protocol):
    """The workspace's records as the advisor sees them."""

    def stored_value_warnings(self) -> list[str]:
        """The unreadable stored values met so far (named; read as safe defaults or left out)."""
        ...

    def update_run(self, run_id: str, fields: dict[str, Any]) -> None:
        """Change some columns of a recorded run."""
        ...

    def replace_run(self, run: RunRow, questions: Iterable[RunQuestionRow] = ()) -> None:
        """Store a run in place of the earlier record with its id."""
        ...

    def save_strategy(self, name: str, strategy: Strategy, source: str = "", note: str = "") -> Strategy:
        """Keep a strategy under ``name`` in the data folder."""
        ...


class AdviceSets(EvalSets, Protocol):
    """The workspace's chunk sets as the advisor sees them."""

    def find_chunk_set(self, config: ChunkConfig, model: str | None = "",
                       scope: Scope | None = None) -> ChunkSetInfo | None:
        """The current chunk set for ``config`` over ``scope``, or None."""
        ...

    def estimate_chunk_set(self, config: ChunkConfig, model: str = "", scope: Scope | None = None) -> BuildEstimate:
        """What building (or bringing up to date) ``config``'s chunk set over ``scope`` costs."""
        ...


class AdviceWorkspace(EvalWorkspace, Protocol):
    """The workspace as the advisor sees it."""

    @property
    def records(self) -> AdviceRecords:
        """Documents, cached LLM outputs, runs and saved strategies."""
        ...

    @property
    def sets(self) -> AdviceSets:
        """Chunk sets, found and estimated before they are built."""
        ...
