"""A strategy as one composed value: the chunking, the search part, one expansion and the later steps.

A strategy can be named, saved, compared, recorded with an experiment and run from the CLI, the GUI and the
evaluation lab alike. Its JSON (flat or composed) is read and written at the edge, by ``strategy_json``;
named ones live in ``strategies.PRESETS``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from workbench.core.index.embedder_pool import model_label, normalise_model_spec
from workbench.core.ingest.chunkers.choice import chunk_size, with_chunk_size
from workbench.core.ingest.chunking import ChunkConfig
from workbench.core.retrieve.coarse_hits import check_coarse, coarse_configs
from workbench.core.retrieve.expansions import Expansion, NoExpansion
from workbench.core.retrieve.expansions.base import ParamValue, with_changes
from workbench.core.retrieve.strategy.search_config import SearchConfig

RERANKS = ("none", "llm")
StrategyJson = dict[str, object]  # a JSON-ready strategy (``to_dict``)


@dataclass(frozen=True)
class Strategy:
    """One retrieval strategy, composed of values: the chunking (``chunk``), the search part
    (``search_config``, the hit cache's key), one expansion value (``expander``) and the settings of the
    later steps (top-k, rerank, summaries, budget, caps). Defaults give plain dense top-5 over 200-token
    chunks. ``model`` is the embedding model of its chunk set (``""``: the workspace's default; else
    ``ollama:NAME`` or a local sentence-transformers folder).
    """

    name: str = "custom"
    chunk: ChunkConfig = field(default_factory=ChunkConfig)
    search_config: SearchConfig = field(default_factory=SearchConfig)
    expander: Expansion = field(default_factory=NoExpansion)
    top_k: int = 5
    candidate_k: int = 0
    rerank: str = "none"
    rerank_candidates: int = 20
    rerank_parents: bool = False  # parent expansion: rerank the expanded parents, not the child hits
    summary: bool = False
    summary_sections: int = 3
    budget: int = 0
    per_doc_cap: int = 0
    whole_doc_tokens: int = 0  # hits in documents of at most this many tokens return the whole document
    model: str = ""

    def __post_init__(self) -> None:
        if self.rerank not in RERANKS:
            raise ValueError("rerank must be 'none' or 'llm'")
        if self.top_k < 1:
            raise ValueError("top_k must be at least 1")
        for name in ("candidate_k", "budget", "per_doc_cap", "whole_doc_tokens"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if not isinstance(self.model, str):
            raise ValueError("model must be a string: ollama:NAME, a local model folder, or \"\" (the default)")
        object.__setattr__(self, "model", normalise_model_spec(self.model))
        check_coarse(self.search_config.coarse, self.expander.kind, self.chunk_size)

    # ----- derived ------------------------------------------------------------------------
    @property
    def chunk_size(self) -> int:
        """The size its chunks are cut at, wherever the chunking keeps it (``chunkers.choice.chunk_size``)."""
        return chunk_size(self.chunk)

    def chunk_configs(self) -> list[ChunkConfig]:
        """The chunk sets the strategy searches: its own, then one per coarse level (the same chunking at
        that size)."""
        return [self.chunk, *coarse_configs(self.chunk, self.search_config.coarse)]

    @property
    def candidates(self) -> int:
        """How many chunks the first-stage search returns."""
        if self.candidate_k:
            return max(self.candidate_k, self.top_k)
        wanted = self.expander.candidates(self.top_k)
        if wanted > self.top_k:
            return wanted
        if self.rerank == "llm":
            return max(self.rerank_candidates, self.top_k)
        return self.top_k

    @property
    def reranks_parents(self) -> bool:
        """True when the LLM reranks expanded parents (child → parent → rerank) rather than the hits."""
        return self.rerank == "llm" and self.rerank_parents and self.expander.groups_hits

    # ----- changed copies -------------------------------------------------------------------
    def with_size(self, size: int | None = None, overlap: int | None = None) -> Strategy:
        """A copy cut at ``size`` (and ``overlap``), wherever its chunking keeps them: the one way a size from
        the command line, a grid, the window or JSON reaches a strategy."""
        return replace(self, chunk=with_chunk_size(self.chunk, size, overlap))

    def with_expansion(self, **changes: ParamValue) -> Strategy:
        """A copy with expansion fields changed by name (``window=2``; ``expansions.base.with_changes``: a
        window on no expansion means neighbour windows; a field of another kind is refused)."""
        return replace(self, expander=with_changes(self.expander, changes))

    # ----- for people and JSON ----------------------------------------------------------------
    def describe(self) -> str:
        """One line for people."""
        parts = [self.search_config.describe(self.top_k), self.chunk.label()]
        if self.model:
            parts.append(f"embedded by {model_label(self.model)}")
        expansion = self.expander.describe(self.chunk.unit)
        if expansion:
            parts.append(expansion)
        if self.whole_doc_tokens:
            parts.append(f"whole documents up to {self.whole_doc_tokens} tokens")
        if self.rerank == "llm" and self.reranks_parents:
            parts.append(f"LLM rerank of up to {self.rerank_candidates} parents")
        elif self.rerank == "llm":
            parts.append(f"LLM rerank of {self.candidates}")
        if self.summary:
            parts.append(f"summary → top {self.summary_sections} sections")
        if self.budget:
            parts.append(f"budget {self.budget} tokens")
        return ", ".join(parts)

    def to_dict(self) -> StrategyJson:
        """JSON-ready, composed: ``chunk``, ``search`` (mode and fusion settings) and ``expansion`` (``kind``
        and its own fields) as objects, the later steps' settings beside them (``model`` only when set).
        ``strategy_json.from_dict`` reads it back, as it reads the flat form of earlier versions."""
        general: StrategyJson = {
            "top_k": self.top_k, "candidate_k": self.candidate_k, "rerank": self.rerank,
            "rerank_candidates": self.rerank_candidates, "rerank_parents": self.rerank_parents,
            "summary": self.summary, "summary_sections": self.summary_sections, "budget": self.budget,
            "per_doc_cap": self.per_doc_cap, "whole_doc_tokens": self.whole_doc_tokens}
        if self.model:
            general["model"] = self.model
        return {"name": self.name, "chunk": self.chunk.as_dict(), "search": dict(self.search_config.to_dict()),
                "expansion": dict(self.expander.to_dict()), **general}

    def to_json(self) -> str:
        """Canonical JSON of ``to_dict`` (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True)
