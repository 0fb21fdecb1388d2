"""Budget-aware trimming: shrink the weakest windows before dropping any hit, within the budget."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.retrieve.budget import RankedWindow, WindowChunk, trim_to_budget, union_tokens
from workbench.core.spans import Span

CHUNK = 10  # characters per synthetic chunk


def chunk(doc_id, position, tokens=10):
    return WindowChunk(Span(doc_id, position * CHUNK, (position + 1) * CHUNK), tokens)


def window(hit_id, rank, token_counts, hit_index, doc_id=1, first_position=0):
    chunks = tuple(chunk(doc_id, first_position + k, t) for k, t in enumerate(token_counts))
    return RankedWindow(hit_id, rank, chunks, hit_index)


@st.composite
def windows_and_budget(draw):
    docs = {d: [draw(st.integers(0, 30)) for _ in range(draw(st.integers(1, 10)))]
            for d in range(1, draw(st.integers(1, 3)) + 1)}
    places = [(d, p) for d, tokens in docs.items() for p in range(len(tokens))]
    hits = draw(st.lists(st.sampled_from(places), unique=True, min_size=1, max_size=6))
    ranks = draw(st.permutations(range(1, len(hits) + 1)))
    out = []
    for (d, p), rank in zip(hits, ranks):
        lo = max(0, p - draw(st.integers(0, 3)))
        hi = min(len(docs[d]) - 1, p + draw(st.integers(0, 3)))
        chunks = tuple(chunk(d, q, docs[d][q]) for q in range(lo, hi + 1))
        out.append(RankedWindow(d * 100 + p, rank, chunks, p - lo))
    return out, draw(st.integers(0, 150))


def far_side_shape(before, after, cuts):
    """(before, after) chunks left around the hit after ``cuts`` far-side-first cuts."""
    for _ in range(cuts):
        if after >= before:
            after -= 1
        else:
            before -= 1
    return before, after


@settings(max_examples=300, deadline=None)
@given(windows_and_budget())
def test_trimming_stays_in_budget_and_shrinks_before_dropping(inputs):
    windows, budget = inputs
    result = trim_to_budget(windows, budget)
    kept = {w.hit_chunk_id: w for w in result.windows}
    dropped = {d.hit_chunk_id: d for d in result.dropped}
    assert result.tokens == union_tokens([w.chunks for w in result.windows]) <= budget
    by_id = {w.hit_chunk_id: w for w in windows}
    for w in windows:
        assert (w.hit_chunk_id in kept) != (w.hit_chunk_id in dropped)
    for hit_id, t in kept.items():
        original = by_id[hit_id]
        lo = t.trimmed_before
        assert t.chunks == original.chunks[lo:lo + len(t.chunks)]
        assert lo + len(t.chunks) + t.trimmed_after == len(original.chunks)
        assert t.chunks[t.hit_index] == original.chunks[original.hit_index]
        cuts = t.trimmed_before + t.trimmed_after
        shape = far_side_shape(original.hit_index, len(original.chunks) - 1 - original.hit_index, cuts)
        assert shape == (t.hit_index, len(t.chunks) - 1 - t.hit_index)  # cut from the far side first
        if cuts:  # a window loses chunks only once every lower-ranked kept window is down to its hit
            assert all(len(o.chunks) == 1 for o in result.windows if o.rank > t.rank)
    kept_hits = [[t.chunks[t.hit_index]] for t in result.windows]
    for d in result.dropped:
        own = by_id[d.hit_chunk_id]
        assert union_tokens([*kept_hits, [own.chunks[own.hit_index]]]) > budget
        assert d.reason.startswith("budget")
    assert [d.rank for d in result.dropped] == sorted(d.rank for d in result.dropped)


@settings(max_examples=100, deadline=None)
@given(windows_and_budget())
def test_windows_that_fit_are_returned_whole(inputs):
    windows, _ = inputs
    budget = union_tokens([w.chunks for w in windows])
    result = trim_to_budget(windows, budget)
    assert not result.dropped
    assert [t.chunks for t in result.windows] == [w.chunks for w in windows]
    assert all(t.reason == "whole window" for t in result.windows)


def test_the_lowest_ranked_window_shrinks_first_from_its_far_side():
    best = window(1, 1, [10, 10, 10], 1, doc_id=1)
    worst = window(2, 2, [10, 10, 10, 10], 1, doc_id=2)  # one chunk before the hit, two after
    result = trim_to_budget([best, worst], 50)
    t_best, t_worst = result.windows
    assert t_best.chunks == best.chunks and t_best.reason == "whole window"
    assert (t_worst.trimmed_before, t_worst.trimmed_after) == (0, 2)
    assert "trimmed 0 chunk(s) before and 2 after" in t_worst.reason
    result = trim_to_budget([best, worst], 30)
    assert [len(t.chunks) for t in result.windows] == [2, 1]
    assert not result.dropped


def test_a_hit_is_dropped_only_when_every_window_is_at_its_hit_chunk():
    a = window(1, 1, [5, 10, 5], 1, doc_id=1)
    b = window(2, 2, [5, 15, 5], 1, doc_id=2)
    result = trim_to_budget([a, b], 22)  # the hit chunks alone need 25
    assert [t.hit_chunk_id for t in result.windows] == [1]
    [gone] = result.dropped
    assert (gone.hit_chunk_id, gone.rank) == (2, 2)
    assert "15-token hit chunk does not fit" in gone.reason
    # once the lower hit is gone, the trims no longer needed are undone: the best window is whole again
    assert result.windows[0].chunks == a.chunks and result.tokens == 20


def test_a_large_hit_chunk_does_not_push_out_a_smaller_one_ranked_below_it():
    a = window(1, 1, [10], 0, doc_id=1)
    b = window(2, 2, [80], 0, doc_id=2)
    c = window(3, 3, [10], 0, doc_id=3)
    result = trim_to_budget([a, b, c], 40)
    assert [t.hit_chunk_id for t in result.windows] == [1, 3]
    assert [d.hit_chunk_id for d in result.dropped] == [2]


def test_a_chunk_shared_by_two_windows_costs_its_tokens_once():
    a = window(1, 1, [10, 10, 10], 1, first_position=0)  # positions 0-2
    b = window(2, 2, [10, 10, 10], 1, first_position=1)  # positions 1-3
    result = trim_to_budget([a, b], 40)
    assert result.tokens == 40 and not result.dropped
    assert all(t.reason == "whole window" for t in result.windows)


def test_a_zero_budget_drops_every_hit_and_bad_windows_are_refused():
    result = trim_to_budget([window(1, 1, [5, 5], 0)], 0)
    assert not result.windows and result.tokens == 0 and len(result.dropped) == 1
    with pytest.raises(ValueError):
        window(1, 1, [5], 1)
    with pytest.raises(ValueError):
        RankedWindow(1, 1, (chunk(1, 0), chunk(2, 1)), 0)
