"""Metrics agree with an independent character-mask implementation (eval_support.mask_metrics)."""

import math

import numpy as np
import pytest
from eval_support import first_touching_rank, mask_metrics
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.evaluate.metrics import QuestionMetrics, question_metrics, span_scores, summarize
from workbench.core.spans import Span


@st.composite
def spans(draw, max_size=8):
    out = []
    for _ in range(draw(st.integers(0, max_size))):
        doc = draw(st.integers(1, 3))
        start = draw(st.integers(0, 300))
        out.append(Span(doc, start, start + draw(st.integers(0, 80))))
    return out


def test_hand_computed_example():
    # reference 10..30 (20 chars); retrieved 0..20 and 15..25 overlap (25 chars once merged), cover 10..25.
    recall, precision, iou, covered, got, ref = span_scores([Span(1, 0, 20), Span(1, 15, 25)], [Span(1, 10, 30)])
    assert (covered, got, ref) == (15, 25, 20)
    assert recall == pytest.approx(15 / 20) and precision == pytest.approx(15 / 25)
    assert iou == pytest.approx(15 / (25 + 5))
    # same offsets in another document do not count
    assert span_scores([Span(2, 10, 30)], [Span(1, 10, 30)])[:3] == (0.0, 0.0, 0.0)


@settings(max_examples=300, deadline=None)
@given(spans(), spans())
def test_scores_match_character_masks(retrieved, references):
    recall, precision, iou, covered, got, ref = span_scores(retrieved, references)
    expect = mask_metrics(retrieved, references)
    assert (got, ref, covered) == (expect["retrieved"], expect["reference"], expect["covered"])
    assert round(recall, 4) == round(expect["recall"], 4) and abs(recall - expect["recall"]) < 1e-12
    assert abs(precision - expect["precision"]) < 1e-12
    assert abs(iou - expect["iou"]) < 1e-12, "Chroma's IoU denominator equals |R ∪ G|"


@settings(max_examples=200, deadline=None)
@given(spans(), spans(max_size=3))
def test_hit_and_reciprocal_rank_follow_rank_order(passages, references):
    m = question_metrics(passages, references, context_tokens=7)
    if not any(r.length for r in references):
        assert m.recall is None and m.hit is None and not m.covered and m.context_tokens == 7
        return
    rank = first_touching_rank(passages, references)
    assert m.first_rank == rank
    assert m.hit == (rank is not None)
    assert m.reciprocal_rank == (1 / rank if rank else 0.0)


def test_summary_means_and_population_std_match_numpy():
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(40):
        start = int(rng.integers(0, 200))
        passages = [Span(1, s, s + int(rng.integers(1, 60))) for s in rng.integers(0, 300, size=4)]
        refs = [Span(1, start, start + 40)] if rng.random() > 0.2 else []
        rows.append(question_metrics(passages, refs, context_tokens=int(rng.integers(50, 500))))
    s = summarize(rows)
    covered = [m for m in rows if m.covered]
    for name, values in [("recall", [m.recall for m in covered]), ("iou", [m.iou for m in covered]),
                         ("mrr", [m.reciprocal_rank for m in covered]),
                         ("hit_rate", [float(m.hit) for m in covered]),
                         ("context_tokens", [m.context_tokens for m in rows])]:
        assert s[name].n == len(values)
        assert s[name].mean == pytest.approx(np.mean(values), abs=1e-12)
        assert s[name].std == pytest.approx(np.std(values), abs=1e-12)
    assert len(covered) < len(rows), "uncovered questions count for context size only"
    assert math.isnan(summarize([])["recall"].mean)


def test_question_metrics_round_trip_dict():
    m = question_metrics([Span(1, 0, 10)], [Span(1, 5, 15)], 12, 10)
    assert QuestionMetrics.from_dict(m.to_dict() | {"other": 1}) == m
