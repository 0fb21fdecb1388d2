"""Property tests (hypothesis) of the expansions over random documents and hits, without the model."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.index.vectors import VectorIndex
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.expansions.neighbours import neighbour_windows
from workbench.core.retrieve.expansions.parent import parent_windows
from workbench.core.retrieve.expansions.tokens import token_windows
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.search import Hit
from workbench.core.store import ChunkSetInfo, ChunkTable

CHUNK = 10  # characters per chunk in the synthetic documents (chunks touch: [0,10), [10,20), ...)


def make_runtime(chunks_per_doc: list[int]) -> LoadedSet:
    ids, docs, pos, starts, ends = [], [], [], [], []
    cid = 100
    for doc_id, n in enumerate(chunks_per_doc, start=1):
        for p in range(n):
            ids.append(cid)
            docs.append(doc_id)
            pos.append(p)
            starts.append(p * CHUNK)
            ends.append((p + 1) * CHUNK)
            cid += 7  # ids are not consecutive, like after re-indexing
    arr = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    n = len(ids)
    table = ChunkTable(arr(ids), arr(docs), arr(pos), arr(starts), arr(ends), arr([CHUNK] * n),
                       ["[]"] * n, [""] * n, [""] * n)
    vecs = np.random.default_rng(0).normal(size=(n, 8)).astype(np.float32)
    index = VectorIndex.build(arr(ids), vecs, 8)
    return LoadedSet(ChunkSetInfo("s", ChunkConfig(), "m", "ready", n), table, index)


@st.composite
def runtime_and_hits(draw):
    chunks_per_doc = draw(st.lists(st.integers(1, 12), min_size=1, max_size=4))
    rt = make_runtime(chunks_per_doc)
    rows = draw(st.lists(st.integers(0, len(rt) - 1), min_size=1, max_size=8, unique=True))
    hits = [Hit(rt.chunk_id(r), r, rt.span(r), rank, 1.0 - rank / 100) for rank, r in enumerate(rows, start=1)]
    return rt, hits


def check_passages(rt, hits, passages):
    # never overlap and never touch (touching windows merge)
    spans = sorted(p.span for p in passages)
    for a, b in zip(spans, spans[1:]):
        assert not a.touches(b)
    # never cross a document: each passage lies inside its document's chunks
    for p in passages:
        first, end = rt.doc_rows(p.span.doc_id)
        assert rt.span(first).start <= p.span.start and p.span.end <= rt.span(end - 1).end
    # cover every hit, each exactly once
    for h in hits:
        owners = [p for p in passages if p.span.contains(h.span)]
        assert len(owners) == 1 and h.chunk_id in owners[0].hit_chunk_ids
    # keep the best hit's rank, returned in that order, ranks renumbered 1..n
    assert [p.rank for p in passages] == list(range(1, len(passages) + 1))
    best = [min(h.rank for h in hits if h.chunk_id in p.hit_chunk_ids) for p in passages]
    assert best == sorted(best)
    for p in passages:
        assert p.score == max(h.score for h in hits if h.chunk_id in p.hit_chunk_ids)


@settings(max_examples=150, deadline=None)
@given(runtime_and_hits(), st.integers(1, 4))
def test_neighbour_windows_properties(data, w):
    rt, hits = data
    passages = neighbour_windows(rt, hits, w)
    check_passages(rt, hits, passages)
    for p in passages:  # contiguous: the passage is exactly its chunk range
        lo, hi = p.chunk_rows
        assert p.span.start == rt.span(lo).start and p.span.end == rt.span(hi).end
        for h in hits:
            if h.chunk_id in p.hit_chunk_ids:
                first, end = rt.doc_rows(h.span.doc_id)
                assert lo <= max(first, h.row - w) and min(end - 1, h.row + w) <= hi


@settings(max_examples=100, deadline=None)
@given(runtime_and_hits())
def test_window_zero_keeps_each_hit_as_its_chunk(data):
    rt, hits = data
    passages = neighbour_windows(rt, hits, 0)
    assert [p.span for p in passages] == [h.span for h in sorted(hits, key=lambda h: h.rank)]


def _pair_offsets(rt):
    """One "token" per character pair: offsets (0,2), (2,4), ..."""
    def offsets(doc_id):
        first, end = rt.doc_rows(doc_id)
        length = rt.span(end - 1).end
        return np.asarray([(i, i + 2) for i in range(0, length, 2)], dtype=np.int64)

    return offsets


@settings(max_examples=150, deadline=None)
@given(runtime_and_hits(), st.integers(1, 60))
def test_token_windows_are_symmetric_and_keep_their_size_at_document_ends(data, n_tokens):
    rt, hits = data
    offsets = _pair_offsets(rt)
    hits = hits[:1]
    passages = token_windows(rt, hits, n_tokens, offsets)
    check_passages(rt, hits, passages)
    (p,) = passages
    h = hits[0]
    doc_end = int(offsets(h.span.doc_id)[-1][1])
    before = (h.span.start - p.span.start) // 2
    after = (p.span.end - h.span.end) // 2
    hit_tokens = h.span.length // 2
    wanted = max(0, n_tokens - hit_tokens)
    if p.span.start > 0 and p.span.end < doc_end:
        assert before + after == wanted and abs(before - after) <= 1
    # the default shifts a window at a document edge inward: it keeps its size unless the document is shorter
    assert p.span.length // 2 == min(doc_end // 2, hit_tokens + wanted)


@settings(max_examples=100, deadline=None)
@given(runtime_and_hits(), st.integers(1, 60))
def test_clipped_token_windows_are_cut_at_document_ends(data, n_tokens):
    rt, hits = data
    offsets = _pair_offsets(rt)
    hits = hits[:1]
    (p,) = token_windows(rt, hits, n_tokens, offsets, edge="clip")
    h = hits[0]
    before = (h.span.start - p.span.start) // 2
    after = (p.span.end - h.span.end) // 2
    wanted = max(0, n_tokens - h.span.length // 2)
    assert before <= wanted // 2 and after <= wanted - wanted // 2
    assert before + after <= wanted


def test_token_windows_separated_only_by_whitespace_merge():
    rt = make_runtime([6])  # one 60-character document: "a a a ..."
    text = "a " * 30
    offsets = lambda doc_id: np.asarray([(i, i + 1) for i in range(0, 60, 2)], dtype=np.int64)  # noqa: E731
    hits = [Hit(rt.chunk_id(r), r, rt.span(r), rank, 1.0 - rank / 10) for rank, r in enumerate((1, 3), start=1)]
    apart = token_windows(rt, hits, 10, offsets)
    assert len(apart) == 2
    gap = sorted(p.span for p in apart)
    assert gap[0].end < gap[1].start and not text[gap[0].end : gap[1].start].strip(), "set-up: a blank gap"
    (merged,) = token_windows(rt, hits, 10, offsets, doc_text=lambda d: text)
    assert merged.span.start == gap[0].start and merged.span.end == gap[1].end
    assert merged.hit_chunk_ids == tuple(h.chunk_id for h in hits) and merged.rank == 1
    # a gap holding text keeps the windows apart
    farther = [Hit(rt.chunk_id(r), r, rt.span(r), rank, 1.0) for rank, r in enumerate((0, 5), start=1)]
    assert len(token_windows(rt, farther, 10, offsets, doc_text=lambda d: text)) == 2


@settings(max_examples=100, deadline=None)
@given(runtime_and_hits(), st.integers(1, 5), st.integers(1, 4))
def test_parent_windows_group_children(data, parent_chunks, top):
    rt, hits = data

    def parents(doc_id):
        first, end = rt.doc_rows(doc_id)
        length = rt.span(end - 1).end
        size = parent_chunks * CHUNK
        return [(s, min(length, s + size)) for s in range(0, length, size)]

    merged = parent_windows(rt, hits, parents, top, merge=True)
    assert len(merged) <= top
    # by default the parent count asked for is kept: one passage per parent, adjacent ones too
    separate = parent_windows(rt, hits, parents, top)
    hit_parents = {(h.span.doc_id, h.span.start // (parent_chunks * CHUNK)) for h in hits}
    assert len(separate) == min(top, len(hit_parents))
    assert sum(p.span.length for p in separate) == sum(p.span.length for p in merged)
    passages = merged
    spans = sorted(p.span for p in passages)
    for a, b in zip(spans, spans[1:]):
        assert not a.overlaps(b)
    for p in passages:  # a passage is one parent, or touching parents merged: whole parents only
        bounds = parents(p.span.doc_id)
        assert p.span.start in {a for a, _ in bounds} and p.span.end in {b for _, b in bounds}
        for h in hits:
            if h.chunk_id in p.hit_chunk_ids:
                assert p.span.contains(h.span)
