"""The advisor's cost model: what a configuration costs before it is tried.

Trying a configuration costs the chunk sets it needs that are not built yet (its own and, for
multi-granularity, the coarser cuts), estimated before they are built by ``ws.sets.estimate_chunk_set``, plus
searching the fit half (measured as trials run). The estimate is of the set scoped to the question set's corpora,
the one the advisor builds, from this machine's measured embedding rate. Configurations that share a chunk set
share its cost: once built, it is free.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.core.index.estimate import BuildEstimate
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import Scope

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.needs import AdviceWorkspace

FIRST_SEARCH_S = 0.05  # seconds per question-search before any has been measured


@dataclass
class Costs:
    """Build estimates of the chunk sets met so far (scoped to ``scope``) and the measured search rate."""

    ws: AdviceWorkspace
    scope: Scope
    estimates: dict[ChunkConfig, BuildEstimate] = field(default_factory=dict)
    built: set[ChunkConfig] = field(default_factory=set)
    searches: int = 0
    search_seconds: float = 0.0

    @classmethod
    def for_scope(cls, ws: AdviceWorkspace, scope: Scope) -> Costs:
        """The cost model of chunk sets over ``scope``."""
        return cls(ws, scope)

    def is_built(self, config: ChunkConfig) -> bool:
        """True when ``config``'s set over the scope is current (remembered once seen)."""
        if config not in self.built and self.ws.sets.find_chunk_set(config, scope=self.scope) is not None:
            self.built.add(config)
        return config in self.built

    def estimate(self, config: ChunkConfig) -> BuildEstimate:
        """What building ``config``'s set over the scope costs (nothing when it is built)."""
        if self.is_built(config):
            return BuildEstimate(0, 0, 0.0)
        if config not in self.estimates:
            self.estimates[config] = self.ws.sets.estimate_chunk_set(config, scope=self.scope)
        return self.estimates[config]

    def build_seconds(self, configs: Iterable[ChunkConfig]) -> float:
        """Expected seconds to build the sets of ``configs`` not built yet."""
        return sum(self.estimate(c).seconds for c in dict.fromkeys(configs) if not self.is_built(c))

    @property
    def per_search(self) -> float:
        """Seconds one question-search takes (measured; a first guess before any trial)."""
        return self.search_seconds / self.searches if self.searches else FIRST_SEARCH_S

    def searched(self, questions: int, seconds: float) -> None:
        """Record a trial's searches: ``questions`` searches in ``seconds``."""
        self.searches += questions
        self.search_seconds += seconds
