"""Multi-granularity search (``"coarse"``): coarse hits join the fine ones as windows of fine chunks.

End to end on the sample corpus with hashed vectors (fast, no model): the assertions are about spans,
budgets, ranks and validation, not about which chunk means most.
"""

import pytest

from workbench.commands.search import add_strategy_options, strategy_from_args
from workbench.core.evaluate.sweep import expand_grid, parse_grid
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.coarse_hits import as_fine_hit, fuse_granularities
from workbench.core.retrieve.strategy.json_form import to_flat_dict
from workbench.core.retrieve.strategy.presets import PRESETS, from_dict, override, resolve
from workbench.core.retrieve.strategy.search_config import parse_coarse

QUESTIONS = ["How do I roll back a deployment?", "Which chemicals must be stored apart?",
             "What does the monthly pass cost?", "Who do I call after a spill?"]


def _strategy(budget: int = 300, coarse: str = "60:1+120:2"):
    return resolve({"preset": "multi-granularity", "size": 30, "coarse": coarse, "budget": budget, "top_k": 6})


def test_the_coarse_spec_is_parsed_and_checked():
    assert parse_coarse("100:1+200:2") == ((100, 1), (200, 2))
    assert parse_coarse(" ") == ()
    for bad, words in [("100", "must look like"), ("100:0", "hits 1–50"), ("a:b", "must look like"),
                       ("100:1+100:2", "twice"), ("1:1+2:1+3:1+4:1+5:1", "at most 4")]:
        with pytest.raises(ValueError, match=words):
            parse_coarse(bad)
    with pytest.raises(ValueError, match="coarse hits are windows"):
        from_dict({"size": 64, "coarse": "200:1", "expansion": "tokens", "window_tokens": 256})
    with pytest.raises(ValueError, match="must differ"):
        from_dict({"size": 200, "coarse": "200:1"})


def test_json_round_trips_and_strategies_without_it_write_what_they_wrote_before():
    assert "coarse" not in to_flat_dict(PRESETS["plain"]) and "coarse" not in PRESETS["plain"].to_dict()["search"]
    mg = PRESETS["multi-granularity"]
    assert to_flat_dict(mg)["coarse"] == "100:1+200:1" == mg.to_dict()["search"]["coarse"]
    assert from_dict(to_flat_dict(mg)) == mg == from_dict(mg.to_dict())
    assert "coarse 100-unit top-1, 200-unit top-1" in mg.describe()
    assert [c.size for c in mg.chunk_configs()] == [64, 100, 200]
    assert override(mg, coarse="").chunk_configs() == [mg.chunk]


def test_the_cli_and_the_grid_take_coarse_levels():
    import argparse

    parser = argparse.ArgumentParser()
    add_strategy_options(parser)
    args = parser.parse_args(["--strategy", "budgeted-neighbours", "--coarse", "100:1+200:1"])
    assert strategy_from_args(args).search_config.coarse == ((100, 1), (200, 1))
    grid = parse_grid("coarse=none,200:2")
    configs = expand_grid(["budgeted-neighbours"], grid)
    assert [c.strategy.search_config.coarse for c in configs] == [(), ((200, 2),)]
    with pytest.raises(ValueError, match="must look like"):
        parse_grid("coarse=200")


@pytest.mark.parametrize("budget", [0, 120, 300, 700])
def test_passages_are_fine_chunk_ranges_within_budget_with_coarse_windows(hash_sample_ws, budget):
    ws = hash_sample_ws
    strategy = _strategy(budget)
    for question in QUESTIONS:
        result = ws.search(question, strategy)
        rt = ws.sets.runtime(result.set_id)
        assert rt.info.config.size == 30
        assert {c.size for c in strategy.chunk_configs()} == {30, 60, 120}
        assert all(ws.sets.find_chunk_set(c) is not None for c in strategy.chunk_configs())
        assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
        assert len({h.chunk_id for h in result.hits}) == len(result.hits)
        for p in result.passages:
            assert p.chunk_rows is not None
            assert p.span == rt.range_span(*p.chunk_rows)  # exact spans of the fine set
        if budget:
            assert result.context.tokens <= budget
        spans = sorted(result.spans(), key=lambda s: (s.doc_id, s.start))
        assert all(a.doc_id != b.doc_id or a.end <= b.start for a, b in zip(spans, spans[1:]))
        covered = [h for h in result.hits if h.cover is not None]
        assert covered, "no coarse hit joined"
        if not budget:
            for h in covered:  # without a budget a coarse hit's whole window is sent
                assert any(p.span.doc_id == h.span.doc_id and p.span.start <= h.span.start
                           and h.span.end <= p.span.end for p in result.passages)


def test_a_coarse_hit_covers_its_own_chunk_and_fusion_interleaves_by_rank(hash_sample_ws):
    ws = hash_sample_ws
    question = QUESTIONS[0]
    fine = ws.search(question, resolve({"preset": "hybrid", "size": 30, "top_k": 4}))
    coarse = ws.search(question, resolve({"preset": "hybrid", "size": 120, "top_k": 2}))
    rt = ws.sets.runtime(fine.set_id)
    window = as_fine_hit(rt, coarse.hits[0])
    assert window is not None and window.cover is not None
    assert window.span.start <= coarse.hits[0].span.start and coarse.hits[0].span.end <= window.span.end
    assert window.cover[0] <= window.row <= window.cover[1]
    fused = fuse_granularities(fine.hits, [coarse.hits], rt)
    assert [h.cover is not None for h in fused[:4]] == [False, True, False, True]  # f1, c1, f2, c2
    assert [h.chunk_id for h in fused if h.cover is None] == [h.chunk_id for h in fine.hits]
    every_row = set(range(len(rt)))
    assert as_fine_hit(rt, coarse.hits[0], taken=every_row) is None  # nothing left to stand for it


def test_coarse_sets_are_built_by_the_first_search(hash_sample_ws):
    ws = hash_sample_ws
    assert ws.sets.find_chunk_set(ChunkConfig(size=120)) is None
    ws.search(QUESTIONS[1], _strategy(coarse="120:1"))
    assert ws.sets.find_chunk_set(ChunkConfig(size=120)) is not None


def test_search_json_marks_coarse_hits(hash_sample_ws):
    from workbench.commands.search import passage_records

    result = hash_sample_ws.search(QUESTIONS[0], override(_strategy(budget=0), top_k=2))
    records = passage_records(hash_sample_ws, result)
    marked = [h for r in records for h in r["hits"] if "coarse_rows" in h]
    assert marked and all(first <= last for first, last in (h["coarse_rows"] for h in marked))
    assert all(r["text"] == hash_sample_ws.corpus.doc_text(r["doc_id"])[r["start"]:r["end"]] for r in records)
