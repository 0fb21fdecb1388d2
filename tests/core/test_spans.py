"""Span arithmetic: merge, intersect, subtract; properties checked with hypothesis."""

from hypothesis import given
from hypothesis import strategies as st

from workbench.core.spans import (
    Span,
    intersect_spans,
    merge_spans,
    overlap_length,
    subtract_spans,
    total_length,
)


def test_touching_spans_merge_and_gaps_do_not():
    merged = merge_spans([Span(1, 0, 5), Span(1, 5, 8), Span(1, 10, 12), Span(2, 0, 3)])
    assert merged == [Span(1, 0, 8), Span(1, 10, 12), Span(2, 0, 3)]


def test_spans_of_different_documents_never_merge():
    assert merge_spans([Span(1, 0, 5), Span(2, 0, 5)]) == [Span(1, 0, 5), Span(2, 0, 5)]


def test_intersection_and_subtraction():
    a = [Span(1, 0, 10), Span(1, 20, 30)]
    b = [Span(1, 5, 25)]
    assert intersect_spans(a, b) == [Span(1, 5, 10), Span(1, 20, 25)]
    assert subtract_spans(a, b) == [Span(1, 0, 5), Span(1, 25, 30)]
    assert overlap_length(a, b) == 10


def test_invalid_span_rejected():
    import pytest

    with pytest.raises(ValueError):
        Span(1, 5, 2)


span_lists = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 60), st.integers(0, 20)).map(lambda t: Span(t[0], t[1], t[1] + t[2])),
    max_size=15,
)


def _chars(spans):
    return {(s.doc_id, i) for s in spans for i in range(s.start, s.end)}


@given(span_lists)
def test_merge_is_disjoint_sorted_and_covers_the_same_characters(spans):
    merged = merge_spans(spans)
    assert _chars(merged) == _chars(spans)
    for a, b in zip(merged, merged[1:]):
        assert (a.doc_id, a.end) < (b.doc_id, b.start)  # disjoint and not touching
    assert total_length(spans) == len(_chars(spans))


@given(span_lists, span_lists)
def test_intersect_and_subtract_agree_with_character_sets(a, b):
    assert _chars(intersect_spans(a, b)) == _chars(a) & _chars(b)
    assert _chars(subtract_spans(a, b)) == _chars(a) - _chars(b)
    assert overlap_length(a, b) == len(_chars(a) & _chars(b))
