"""Strategies as composed values: registry, knob metadata, flat and composed JSON, the hit cache key."""

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT

from workbench.core.retrieve.expansions import (
    EXPANSION_TYPES,
    Expansion,
    Knob,
    Neighbours,
    TokenWindow,
    register,
)
from workbench.core.retrieve.expansions.base import FIELD_OWNER
from workbench.core.retrieve.inputs import SearchInputs
from workbench.core.retrieve.lru import LRU
from workbench.core.retrieve.pipeline import Retriever, hit_key
from workbench.core.retrieve.strategy.json_form import to_flat_dict
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy, from_dict, override, resolve
from workbench.core.retrieve.strategy.search_config import SearchConfig

# what `workbench strategies --json` and run records wrote before strategies were composed
OLD_FLAT = ('{"bm25_weight": 1.0, "budget": 0, "candidate_k": 0, "chunk": {"contextual": false, "heading_prefix": '
            'false, "overlap": 0, "size": 64, "structure_aware": false, "unit": "tokens"}, "dense_weight": 1.0, '
            '"expansion": "tokens", "margin": 0.05, "max_steps": 2, "merge_gap": 2, "name": "token-window", '
            '"parent_merge": false, "parent_size": 0, "parent_top_k": 3, "per_doc_cap": 0, "rerank": "none", '
            '"rerank_candidates": 20, "rerank_parents": false, "rrf_k": 60, "search": "dense", "summary": false, '
            '"summary_sections": 3, "top_k": 5, "whole_doc_tokens": 0, "window": 0, "window_edge": "shift", '
            '"window_tokens": 384}')


def test_lru_get_marks_an_entry_as_recently_used():
    cache = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent: "b" goes first
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    assert cache.get("missing", "default") == "default"


def test_every_search_field_is_in_the_hit_cache_key():
    base = SearchConfig(mode="hybrid")
    changed = {"mode": "bm25", "dense_weight": 0.5, "bm25_weight": 2.0, "rrf_k": 10, "coarse": ((200, 1),)}
    assert set(changed) == {f.name for f in dataclasses.fields(SearchConfig)}, "test every field"
    for name, value in changed.items():
        assert hit_key("set", "q", dataclasses.replace(base, **{name: value}), 5) != hit_key("set", "q", base, 5), name
    assert hit_key("set", "q", base, 5) == hit_key("set", "q", SearchConfig(mode="hybrid"), 5)
    assert hit_key("set", "q", base, 5) != hit_key("set", "other", base, 5)


def test_a_new_search_field_changes_the_key_without_touching_the_cache_code():
    @dataclass(frozen=True)
    class WithBoost(SearchConfig):
        title_boost: float = 0.0

    assert hit_key("set", "q", WithBoost(title_boost=1.0), 5) != hit_key("set", "q", WithBoost(), 5)


def test_the_search_part_decides_the_cache_and_the_rest_does_not(hash_sample_ws):
    question = "How do I restore a backup?"
    hash_sample_ws.search(question, PRESETS["hybrid"])
    keys = set(hash_sample_ws.retriever.hit_cache)
    hash_sample_ws.search(question, override(PRESETS["hybrid"], expansion="neighbours", window=2, budget=300))
    assert set(hash_sample_ws.retriever.hit_cache) == keys, "window and budget reuse the cached hits"
    hash_sample_ws.search(question, override(PRESETS["hybrid"], rrf_k=10))
    new = set(hash_sample_ws.retriever.hit_cache) - keys
    assert len(new) == 1 and next(iter(new))[3].rrf_k == 10


def test_the_pipeline_runs_on_a_context_with_its_own_caches(hash_sample_ws):
    question = "How do I restore a backup?"
    strategy = PRESETS["neighbours"]
    info = hash_sample_ws.sets.ensure_chunk_set(strategy.chunk)
    ws = hash_sample_ws
    ctx = SearchInputs(ws.sets.runtime(info.id), question, ws.corpus.query_vector(question), ws.corpus)
    retriever = Retriever()
    result = retriever.run(ctx, strategy, lambda: (None, "no LLM in this test"))
    assert result.passages and len(retriever.hit_cache) == 1
    assert result.spans() == hash_sample_ws.search(question, strategy).spans()


def test_old_flat_json_still_loads_and_records_are_still_written_flat():
    s = resolve(OLD_FLAT)
    assert s == PRESETS["token-window"]
    assert (s.expander == TokenWindow(window_tokens=384) and s.expander.kind == "tokens"
            and s.expander.window_tokens == 384)
    from workbench.core.retrieve.steps import STEP_TYPES

    step_defaults = {k: v for cls in STEP_TYPES.values() for k, v in cls().to_dict().items()}
    old = json.loads(OLD_FLAT)
    assert to_flat_dict(s) == {k: v for k, v in old.items() if k not in step_defaults}, \
        "records keep the flat form earlier versions read, less the later steps at their defaults"
    assert all(old[k] == step_defaults[k] for k in old if k in step_defaults)
    assert json.loads(s.to_json())["expansion"] == {"kind": "tokens", "window_tokens": 384, "window_edge": "shift"}


@pytest.mark.parametrize("name", list(PRESETS))
def test_composed_and_flat_json_round_trip(name):
    s = override(PRESETS[name], search="hybrid", rrf_k=30, per_doc_cap=2)
    composed = json.loads(s.to_json())
    assert from_dict(composed) == s
    assert set(composed["expansion"]) == {"kind"} | {f.name for f in dataclasses.fields(s.expander)}
    assert set(composed["search"]) >= {"mode", "dense_weight", "bm25_weight", "rrf_k"}
    assert from_dict(json.loads(json.dumps(to_flat_dict(s)))) == s


def test_composed_json_names_bad_fields():
    with pytest.raises(ValueError, match="unknown field.*expansion 'tokens': window"):
        from_dict({"expansion": {"kind": "tokens", "window": 2}})
    with pytest.raises(ValueError, match="unknown field.*'search': boost"):
        from_dict({"search": {"mode": "dense", "boost": 2}})
    with pytest.raises(ValueError, match="window must not be negative"):
        from_dict({"expansion": {"kind": "neighbours", "window": -1}})


def test_flat_names_build_composed_values_at_the_edge():
    s = from_dict({"expansion": "neighbours", "window": 2, "search": "hybrid", "top_k": 3})
    assert s.expander == Neighbours(window=2) and s.search_config == SearchConfig(mode="hybrid") and s.top_k == 3
    assert s == Strategy(expander=Neighbours(2), search_config=SearchConfig(mode="hybrid"), top_k=3)
    assert override(Strategy(expander=Neighbours(1)), window=3).expander == Neighbours(3)
    assert override(s, expansion="parent").expander.parent_top_k == 3
    assert override(Strategy(), window=2).expander == Neighbours(2), "a window on no expansion means neighbours"
    with pytest.raises(ValueError, match="window must not be negative"):
        from_dict({"expansion": "tokens", "window": -1})  # checked even where the field is not used
    with pytest.raises(ValueError, match="window belongs to the neighbours expansion.*would not apply"):
        override(PRESETS["token-window"], window=2)  # a knob that would silently not apply is refused


def test_the_chunk_size_has_one_home_whichever_chunker_cuts():
    recursive = from_dict({"chunker": {"name": "recursive", "max_tokens": 256}})
    assert recursive.chunk_size == 256 and recursive.with_size(128).chunk_size == 128
    assert override(recursive, size=96).chunk_size == 96 == from_dict({"size": 96}, recursive).chunk_size
    assert PRESETS["plain"].with_size(150).chunk.size == 150 == PRESETS["plain"].with_size(150).chunk_size
    late = from_dict({"chunker": {"name": "late", "base": "recursive", "base_params": '{"max_tokens": 300}'}})
    assert late.chunk_size == 300 and late.with_size(120).chunk_size == 120
    # the coarse-level check reads the strategy's own size from its chunker (issue #27)
    assert from_dict({"chunker": {"name": "recursive", "max_tokens": 256}, "coarse": "200:1"}).search_config.coarse
    with pytest.raises(ValueError, match="must differ from the strategy's own \\(256\\)"):
        from_dict({"chunker": {"name": "recursive", "max_tokens": 256}, "coarse": "256:1"})


def test_knob_metadata_for_every_registered_expansion():
    for kind, cls in EXPANSION_TYPES.items():
        names = {f.name for f in dataclasses.fields(cls)}
        assert cls.kind == kind and cls.label
        assert names <= set(FIELD_OWNER) and all(FIELD_OWNER[n] == kind for n in names)
        if names:
            assert cls.knobs, f"{kind} has fields but no knob"
        for knob in cls.knobs:
            assert knob.field in names and knob.label and knob.tooltip
            assert knob.minimum < knob.maximum and knob.step > 0
        if cls.extent:
            assert cls.extent_knob() is not None and cls.extent_knob().field == cls.extent


@pytest.fixture
def halo_expansion():
    """A new expansion kind, registered as a module would register it (and removed afterwards)."""
    from workbench.core.retrieve.expansions.neighbours import neighbour_windows

    @register
    @dataclass(frozen=True)
    class Halo(Expansion):
        halo: int = 1

        kind = "halo"
        label = "halo"
        order = 99
        knobs = (Knob("halo", "Halo", 0, 3, 1, "Chunks on each side of the hit, added to its window."),)
        extent = "halo"

        def expand(self, ctx, hits):
            return neighbour_windows(ctx.runtime, hits, self.halo, ctx.corpus.doc_text)

        def describe(self, unit):
            return f"halo {self.halo}"

    yield Halo
    EXPANSION_TYPES.pop("halo")
    FIELD_OWNER.pop("halo")


def test_a_new_expansion_is_one_class_and_its_registration(halo_expansion, hash_sample_ws):
    s = from_dict({"size": 100, "expansion": "halo", "halo": 1})
    assert s.expander == halo_expansion(halo=1) and "halo 1" in s.describe()
    assert from_dict(s.to_dict()) == s and from_dict(to_flat_dict(s)) == s
    question = "How do I restore a backup?"
    assert hash_sample_ws.search(question, s).spans() == hash_sample_ws.search(question, PRESETS["neighbours"]).spans()


def test_core_code_assigns_no_workspace_attributes():
    pattern = re.compile(r"\bws\.\w+\s*=[^=]")
    for path in Path(ROOT, "workbench", "core", "retrieve").rglob("*.py"):
        assert not pattern.search(path.read_text(encoding="utf-8")), path
