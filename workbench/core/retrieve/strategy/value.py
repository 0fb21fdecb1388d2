"""A strategy as one composed value: the chunking, the search part, one expansion and the later steps.

A strategy can be named, saved, compared, recorded with an experiment and run from the CLI, the GUI and the
evaluation lab alike. Its JSON (flat or composed) is read and written at the edge, by ``json_form``;
named ones live in ``presets.PRESETS``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from workbench.core.index.embedder_pool import model_label, normalise_model_spec
from workbench.core.ingest.chunkers.choice import chunk_size, chunk_unit, with_chunk_size
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.coarse_hits import check_coarse, coarse_configs
from workbench.core.retrieve.expansions import Expansion, NoExpansion
from workbench.core.retrieve.expansions.base import ParamValue, with_changes
from workbench.core.retrieve.steps import Step
from workbench.core.retrieve.steps.base import S, normal_steps, setting, step_of, with_step_changes
from workbench.core.retrieve.steps.llm_rerank import Rerank
from workbench.core.retrieve.strategy.search_config import SearchConfig

StrategyJson = dict[str, object]  # a JSON-ready strategy (``to_dict``)


@dataclass(frozen=True)
class Strategy:
    """One retrieval strategy, composed of values: the chunking (``chunk``), the search part
    (``search_config``, the hit cache's key), one expansion value (``expander``), top-k and the budget, and the
    value of every later step not at its defaults (``steps``: rerank, summaries, the per-document cap, whole
    documents …; ``steps.base``). Defaults give plain dense top-5 over 200-token chunks. ``model`` is the
    embedding model of its chunk set (``""``: the workspace's default; else ``ollama:NAME`` or a local
    sentence-transformers folder).
    """

    name: str = "custom"
    chunk: ChunkConfig = field(default_factory=ChunkConfig)
    search_config: SearchConfig = field(default_factory=SearchConfig)
    expander: Expansion = field(default_factory=NoExpansion)
    top_k: int = 5
    candidate_k: int = 0
    budget: int = 0
    model: str = ""
    steps: tuple[Step, ...] = ()  # the later steps not at their defaults, in step order (``steps.base.normal_steps``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", normal_steps(self.steps))
        if self.top_k < 1:
            raise ValueError("top_k must be at least 1")
        for name in ("candidate_k", "budget"):
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
        return max(step.candidates(self.top_k) for step in self.steps) if self.steps else self.top_k

    @property
    def reranks_parents(self) -> bool:
        """True when the LLM reranks expanded parents (child → parent → rerank) rather than the hits."""
        return self.step(Rerank).reranks_parents(self.expander)

    def step(self, cls: type[S]) -> S:
        """The strategy's value of step kind ``cls``."""
        return step_of(self.steps, cls)

    def setting(self, name: str) -> ParamValue:
        """The value of later-step field ``name`` (``per_doc_cap`` …; ``KeyError`` when no step has it)."""
        return setting(self.steps, name)

    def llm_steps(self) -> list[str]:
        """What its active steps ask a generative LLM for while it searches (``LLM rerank`` …)."""
        return [step.llm_use for step in self.steps if step.needs_llm()]

    # ----- changed copies -------------------------------------------------------------------
    def with_size(self, size: int | None = None, overlap: int | None = None) -> Strategy:
        """A copy cut at ``size`` (and ``overlap``), wherever its chunking keeps them: the one way a size from
        the command line, a grid, the window or JSON reaches a strategy."""
        return replace(self, chunk=with_chunk_size(self.chunk, size, overlap))

    def with_steps(self, **changes: ParamValue) -> Strategy:
        """A copy with later-step fields changed by name (``per_doc_cap=2``; ``KeyError`` for a field no step
        has)."""
        return replace(self, steps=with_step_changes(self.steps, changes))

    def with_expansion(self, **changes: ParamValue) -> Strategy:
        """A copy with expansion fields changed by name (``window=2``; ``expansions.base.with_changes``: a
        window on no expansion means neighbour windows; a field of another kind is refused)."""
        return replace(self, expander=with_changes(self.expander, changes))

    # ----- for people and JSON ----------------------------------------------------------------
    def describe(self) -> str:
        """One line for people."""
        parts = [self.search_config.describe(self.top_k), chunking_label(self.chunk)]
        if self.model:
            parts.append(f"embedded by {model_label(self.model)}")
        expansion = self.expander.describe(chunk_unit(self.chunk))
        if expansion:
            parts.append(expansion)
        for step in sorted(self.steps, key=lambda s: s.phrase_order):
            words = step.describe(self)
            if words:
                parts.append(words)
        if self.budget:
            parts.append(f"budget {self.budget} tokens")
        return ", ".join(parts)

    def to_dict(self) -> StrategyJson:
        """JSON-ready, composed: ``chunk``, ``search`` (mode and fusion settings) and ``expansion`` (``kind``
        and its own fields) as objects, top-k, the budget, and beside them the fields of the later steps the
        strategy holds (those that differ from their defaults: registering a new step changes no stored JSON;
        ``model`` only when set). ``json_form.from_dict`` reads it back, as it reads the flat form of earlier
        versions, which wrote every step's defaults."""
        general: StrategyJson = {"top_k": self.top_k, "candidate_k": self.candidate_k, "budget": self.budget}
        for step in self.steps:
            general.update(step.to_dict())
        if self.model:
            general["model"] = self.model
        return {"name": self.name, "chunk": self.chunk.as_dict(), "search": dict(self.search_config.to_dict()),
                "expansion": dict(self.expander.to_dict()), **general}

    def to_json(self) -> str:
        """Canonical JSON of ``to_dict`` (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True)
