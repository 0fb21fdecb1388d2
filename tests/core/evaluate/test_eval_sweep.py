"""Sweeps on the real state-of-the-union questions: metrics, chunk-set and query-embedding reuse, comparison
(on the hashed embedder: the bookkeeping, not the ranking, is the point)."""

import pytest
from eval_support import SOTU, copy_workspace, mask_metrics, sotu_workspace

from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.metrics import question_metrics
from workbench.core.evaluate.sweep import (
    QuestionResult,
    compare_rows,
    expand_grid,
    parse_grid,
    run_sweep,
)
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import Cancelled, CancelToken
from workbench.core.spans import Span


@pytest.fixture
def sotu(tmp_path_factory, tmp_path, hash_embedder):
    root, data = sotu_workspace(tmp_path_factory, hash_embedder)
    ws = copy_workspace(data, tmp_path, hash_embedder)
    yield load_question_set(root), ws
    ws.close()


def test_parse_and_expand_grid():
    assert parse_grid("window=0,1,2 chunk-size=100,200; k=3") == {
        "window": [0, 1, 2], "chunk_size": [100, 200], "top_k": [3]}
    assert parse_grid("") == {}
    for bad, msg in [("window", "name=1,2,3"), ("colour=1", "unknown grid parameter"), ("window=a", "whole")]:
        with pytest.raises(ValueError, match=msg):
            parse_grid(bad)
    warnings = []
    configs = expand_grid(["plain", "neighbours"], "chunk_size=50,100 overlap=0,60", warnings)
    keys = [c.key for c in configs]
    assert "plain chunk_size=100 overlap=60" in keys and "plain chunk_size=50 overlap=60" not in keys
    assert len(configs) == 6 and len(warnings) == 2 and "overlap" in warnings[0]
    plain_w = expand_grid(["plain"], {"window": [0, 2]})
    assert [c.strategy.expander.kind for c in plain_w] == ["none", "neighbours"], "window > 0 means neighbours"
    assert plain_w[1].strategy.expander.window == 2 and plain_w[1].params == {"window": 2}
    assert expand_grid(["plain"], None)[0].key == "plain"


def test_sweep_metrics_match_masks_and_reuse_embeddings(sotu, hash_embedder):
    qset, ws = sotu
    qset = qset.subset(limit=30)
    configs = expand_grid(["plain"], "chunk_size=100,200 window=0,1")
    events = []
    sets_before = {s.id for s in ws.store.sets.chunk_sets()}
    texts_before, calls_before = hash_embedder.texts_encoded, hash_embedder.calls
    result = run_sweep(ws, qset, configs, progress=events.append)
    assert hash_embedder.texts_encoded - texts_before == 30, "each question embedded once, no chunk re-embedded"
    assert hash_embedder.calls - calls_before == 1, "the questions are embedded in one batch"
    assert {s.id for s in ws.store.sets.chunk_sets()} == sets_before, "existing chunk sets reused"
    assert events[-1].stage == "evaluating" and events[-1].done == events[-1].total == 120
    doc = result.doc_ids[SOTU]
    by_q = {}
    for cr in result.results:
        assert len(cr.rows) == 30
        for row in cr.rows:
            q = next(q for q in qset.questions if q.index == row.q_index)
            refs = q.spans(result.doc_ids)
            expect = mask_metrics(row.spans, refs)
            assert row.metrics.recall == pytest.approx(expect["recall"], abs=1e-4)
            assert row.metrics.precision == pytest.approx(expect["precision"], abs=1e-4)
            assert row.metrics.iou == pytest.approx(expect["iou"], abs=1e-4)
            assert all(s.doc_id == doc for s in row.spans) and row.metrics.context_tokens > 0
            by_q.setdefault(row.q_index, {})[cr.config.key] = row
    for rows in by_q.values():  # a ±1 window contains the hit chunks, so recall never drops
        for size in (100, 200):
            r0, r1 = rows[f"plain chunk_size={size} window=0"], rows[f"plain chunk_size={size} window=1"]
            assert r1.metrics.recall >= r0.metrics.recall - 1e-12
            assert r1.metrics.context_tokens >= r0.metrics.context_tokens
    s100 = result.by_key("plain chunk_size=100 window=0").summary
    s200 = result.by_key("plain chunk_size=200 window=0").summary
    assert s200["context_tokens"].mean > s100["context_tokens"].mean
    assert 0.3 < s100["recall"].mean <= 1 and 0 < s100["precision"].mean < 0.5

    # A second sweep in the same workspace embeds nothing at all.
    texts = hash_embedder.texts_encoded
    again = run_sweep(ws, qset, configs)
    assert hash_embedder.texts_encoded == texts
    assert [r.metrics for r in again.results[0].rows] == [r.metrics for r in result.results[0].rows]


def test_sweep_builds_missing_chunk_sets_and_can_be_cancelled(sotu):
    qset, ws = sotu
    configs = expand_grid(["plain"], "chunk_size=150")
    assert ws.sets.find_chunk_set(ChunkConfig(size=150)) is None
    token = CancelToken()

    def cancel_after_five(event):
        if event.stage == "evaluating" and event.done >= 5:
            token.cancel()

    with pytest.raises(Cancelled):
        run_sweep(ws, qset, configs, progress=cancel_after_five, cancel=token)
    assert ws.sets.find_chunk_set(ChunkConfig(size=150)) is not None


def _row(i, recall):
    m = question_metrics([Span(1, 0, int(recall * 100))], [Span(1, 0, 100)])
    return QuestionResult(i, f"q{i}", "c", [], m)


def test_compare_rows_lists_fixed_and_broken_questions(sotu):
    a = [_row(0, 0.2), _row(1, 0.9), _row(2, 0.5), _row(3, 0.5)]
    b = [_row(0, 0.8), _row(1, 0.3), _row(2, 0.55), _row(4, 1.0)]
    c = compare_rows(a, b, threshold=0.1)
    assert [(x.q_index, round(x.delta, 2)) for x in c.fixed] == [(0, 0.6)]
    assert [(x.q_index, round(x.delta, 2)) for x in c.broke] == [(1, -0.6)]
    assert c.unchanged == 1 and c.only_in_one == 2

    qset, ws = sotu
    qset = qset.subset(limit=40)
    res = run_sweep(ws, qset, expand_grid(["plain"], "chunk_size=100 window=0,2"))
    w0, w2 = res.results[0].rows, res.results[1].rows
    comp = compare_rows(w0, w2, threshold=0.05)
    expect_fixed = {r0.q_index for r0, r2 in zip(w0, w2) if r2.metrics.recall - r0.metrics.recall > 0.05}
    assert {x.q_index for x in comp.fixed} == expect_fixed and expect_fixed, "a wider window fixes some questions"
    assert not comp.broke
