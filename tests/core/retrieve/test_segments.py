"""Relevant segment extraction: exact segments against brute force, and the selection's invariants."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.retrieve.expansions.segments import (
    RSE_PRESETS,
    DocumentCandidates,
    RseSettings,
    SegmentChunk,
    best_segment,
    chunk_value,
    extract_segments,
)

CHUNK = 10  # characters per synthetic chunk


def brute_best(values, tokens, max_chunks, max_tokens):
    """Best value over every run of at most ``max_chunks`` items within ``max_tokens`` (None: none fits)."""
    best = None
    for i in range(len(values)):
        for j in range(i, min(len(values), i + max_chunks)):
            if sum(tokens[i:j + 1]) <= max_tokens:
                total = sum(values[i:j + 1])
                best = total if best is None else max(best, total)
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.integers(0, 20)), max_size=9),
       st.integers(1, 6), st.integers(0, 60))
def test_best_segment_matches_brute_force(items, max_chunks, max_tokens):
    values = [v for v, _ in items]
    tokens = [t for _, t in items]
    found = best_segment(values, tokens, max_chunks, max_tokens)
    expected = brute_best(values, tokens, max_chunks, max_tokens)
    if expected is None:
        assert found is None
        return
    assert found is not None
    first, last, value = found
    assert 0 <= first <= last < len(values)
    assert last - first + 1 <= max_chunks
    assert sum(tokens[first:last + 1]) <= max_tokens
    assert value == pytest.approx(sum(values[first:last + 1]), abs=1e-9)
    assert value == pytest.approx(expected, abs=1e-9)


def doc(doc_id, positions, tokens=None, sims=None, first_id=None):
    base = first_id if first_id is not None else doc_id * 100
    chunks = tuple(SegmentChunk(base + p, p, p * CHUNK, (p + 1) * CHUNK, (tokens or {}).get(p, 10))
                   for p in positions)
    return DocumentCandidates(doc_id, chunks, {base + p: s for p, s in (sims or {}).items()})


@st.composite
def rse_inputs(draw):
    documents = []
    for doc_id in range(1, draw(st.integers(1, 4)) + 1):
        positions = sorted(draw(st.sets(st.integers(0, 14), min_size=1, max_size=10)))
        tokens = {p: draw(st.integers(0, 30)) for p in positions}
        sims = {p: draw(st.floats(-0.2, 1.0)) for p in positions if draw(st.booleans()) or p % 3}
        documents.append(doc(doc_id, positions, tokens, sims))
    ids = [c.chunk_id for d in documents for c in d.chunks] + [9999]  # 9999: a hit that is no candidate
    hit_ids = draw(st.lists(st.sampled_from(ids), unique=True, max_size=8))
    hits = {cid: rank for rank, cid in enumerate(hit_ids, start=1)}
    knobs = draw(st.sampled_from(sorted(RSE_PRESETS)))
    return documents, hits, draw(st.integers(0, 200)), RSE_PRESETS[knobs]


@settings(max_examples=200, deadline=None)
@given(rse_inputs())
def test_segments_never_overlap_stay_in_budget_and_account_for_every_hit(inputs):
    documents, hits, budget, knobs = inputs
    picked = extract_segments(documents, hits, budget, knobs)
    by_doc = {d.doc_id: {c.chunk_id: c for c in d.chunks} for d in documents}
    seen: set[int] = set()
    for seg in picked.segments:
        chunks = [by_doc[seg.doc_id][cid] for cid in seg.chunk_ids]  # KeyError: crossed a document
        assert [c.position for c in chunks] == list(range(seg.first_position, seg.last_position + 1))
        assert len(chunks) <= knobs.max_segment_chunks
        assert seg.span.doc_id == seg.doc_id
        assert (seg.span.start, seg.span.end) == (chunks[0].start, chunks[-1].end)
        assert seg.tokens == sum(c.tokens for c in chunks)
        assert seg.value == pytest.approx(sum(c.value for c in seg.chunks), abs=1e-9)
        assert seg.value > knobs.min_segment_value
        assert len(seg.reasons) == len(chunks) and all(seg.reasons)
        assert not seen & set(seg.chunk_ids)
        seen |= set(seg.chunk_ids)
    for a in picked.segments:
        for b in picked.segments:
            assert a is b or not a.span.overlaps(b.span)
    assert picked.tokens == sum(s.tokens for s in picked.segments) <= budget
    values = [s.value for s in picked.segments]
    assert values == sorted(values, reverse=True)
    dropped = {d.chunk_id for d in picked.dropped}
    for cid in hits:
        assert (cid in seen) != (cid in dropped)
    assert all(d.rank == hits[d.chunk_id] and d.reason for d in picked.dropped)


@settings(max_examples=150, deadline=None)
@given(rse_inputs())
def test_selection_stops_only_when_no_free_segment_is_worth_taking(inputs):
    documents, hits, budget, knobs = inputs
    picked = extract_segments(documents, hits, budget, knobs)
    taken = {cid for s in picked.segments for cid in s.chunk_ids}
    left = budget - picked.tokens
    last_rank = max(hits.values(), default=0) + 1
    for d in documents:
        run: list[SegmentChunk] = []
        for c in list(d.chunks) + [None]:
            free = c is not None and c.chunk_id not in taken
            if free and (not run or c.position == run[-1].position + 1):
                run.append(c)
                continue
            if run:
                values = [chunk_value(d.similarities.get(x.chunk_id), hits.get(x.chunk_id, last_rank), knobs)
                          for x in run]
                best = brute_best(values, [x.tokens for x in run], knobs.max_segment_chunks, left)
                assert best is None or best <= knobs.min_segment_value + 1e-9
            run = [c] if free else []


def test_chunk_value_discounts_rank_and_charges_the_penalty():
    knobs = RseSettings(penalty=0.2, decay=10.0)
    assert chunk_value(0.6, 1, knobs) == pytest.approx(0.4)
    assert chunk_value(0.6, 11, knobs) == pytest.approx(0.6 * math.exp(-1) - 0.2)
    assert chunk_value(None, 1, knobs) == pytest.approx(-0.2)


def test_a_weak_chunk_between_relevant_ones_is_bridged_and_says_so():
    d = doc(1, range(5), sims={0: 0.05, 1: 0.7, 2: 0.1, 3: 0.65, 4: 0.0})
    picked = extract_segments([d], {101: 1, 103: 2}, 1000, RseSettings(penalty=0.2, decay=20.0))
    [seg] = picked.segments
    assert (seg.first_position, seg.last_position) == (1, 3)
    assert seg.hit_ranks == (1, 2)
    assert seg.reasons[0].startswith("hit #1")
    assert "kept between relevant chunks" in seg.reasons[1] and "neighbour" in seg.reasons[1]
    assert not picked.dropped


def test_a_chunk_without_similarity_costs_the_penalty_and_is_bridged():
    d = doc(1, range(3), sims={0: 0.8, 2: 0.8})
    [seg] = extract_segments([d], {100: 1, 102: 2}, 1000, RseSettings(penalty=0.2)).segments
    assert seg.chunks[1].similarity is None and seg.chunks[1].value == pytest.approx(-0.2)
    assert "no similarity computed" in seg.reasons[1]


def test_higher_penalty_gives_shorter_segments():
    sims = {0: 0.3, 1: 0.35, 2: 0.8, 3: 0.35, 4: 0.3}
    lengths = []
    for penalty in (0.05, 0.32, 0.5):
        segs = extract_segments([doc(1, range(5), sims=sims)], {102: 1}, 1000,
                                RseSettings(penalty=penalty, decay=50.0)).segments
        lengths.append(sum(len(s.chunks) for s in segs))
    assert lengths == [5, 3, 1]


def test_segments_do_not_cross_a_gap_in_positions():
    d = doc(1, [0, 1, 5, 6], sims={0: 0.9, 1: 0.9, 5: 0.9, 6: 0.9})
    segs = extract_segments([d], {100: 1}, 1000, RseSettings(penalty=0.1, max_segment_chunks=10)).segments
    assert sorted((s.first_position, s.last_position) for s in segs) == [(0, 1), (5, 6)]


def test_the_length_cap_and_budget_bound_a_segment_and_dropped_hits_say_why():
    d1 = doc(1, range(6), sims=dict.fromkeys(range(6), 0.9))
    d2 = doc(2, [0], sims={0: 0.5})
    d3 = doc(3, [0], sims={0: 0.01})
    picked = extract_segments([d1, d2, d3], {100: 1, 105: 2, 200: 3, 300: 4}, 40,
                              RseSettings(penalty=0.2, decay=100.0, max_segment_chunks=3))
    assert [(s.doc_id, s.first_position, s.last_position) for s in picked.segments] == [(1, 0, 2), (1, 5, 5)]
    assert picked.tokens == 40
    reasons = {d.chunk_id: d.reason for d in picked.dropped}
    assert set(reasons) == {200, 300}
    assert reasons[200].startswith("budget") and reasons[300].startswith("low value")


def test_greedy_selection_is_not_the_knapsack_optimum():
    """The documented counter-example: greedy takes A (3) where B + C (2 + 2) would be worth more."""
    a = doc(1, [0], tokens={0: 6}, sims={0: 3.2})
    b = doc(2, [0], tokens={0: 5}, sims={0: 2.2})
    c = doc(3, [0], tokens={0: 5}, sims={0: 2.2})
    picked = extract_segments([a, b, c], {100: 1, 200: 2, 300: 3}, 10, RseSettings(penalty=0.2, decay=1e9))
    assert [s.doc_id for s in picked.segments] == [1]
    assert [d.chunk_id for d in picked.dropped] == [200, 300]


def test_unordered_chunks_and_bad_settings_are_refused():
    bad = DocumentCandidates(1, (SegmentChunk(1, 2, 0, 10, 5), SegmentChunk(2, 1, 10, 20, 5)))
    with pytest.raises(ValueError):
        extract_segments([bad], {1: 1}, 100)
    with pytest.raises(ValueError):
        RseSettings(decay=0)
    with pytest.raises(ValueError):
        RseSettings(max_segment_chunks=0)


def test_presets_order_from_precision_to_recall():
    p, b, r = RSE_PRESETS["precision"], RSE_PRESETS["balanced"], RSE_PRESETS["recall"]
    assert p.penalty > b.penalty > r.penalty
    assert p.max_segment_chunks < b.max_segment_chunks < r.max_segment_chunks
