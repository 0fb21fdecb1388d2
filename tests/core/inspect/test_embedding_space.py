"""The chunk set in two dimensions: PCA of known data, a seeded sample that always holds the hits, and the
question projected by the same transform (hashed embedder for the chunk set)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLE
from fake_embedder import HashEmbedder

from workbench.core.inspect.embedding_space import (
    PCA,
    pca_axes,
    project_vectors,
    projection_methods,
    sample_rows,
    set_projection,
)
from workbench.core.jobs import Cancelled, CancelToken
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.workspace import Workspace


def _plane(n: int = 400, dim: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points spread mostly along ``a``, less along ``b``, barely elsewhere."""
    rng = np.random.default_rng(3)
    basis, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    a, b = basis[:, 0], basis[:, 1]
    t, s = rng.normal(0, 10, n), rng.normal(0, 2, n)
    t, s = t - t.mean(), s - s.mean()
    s -= (s @ t) / (t @ t) * t  # uncorrelated: the axes are exactly a and b
    noise = rng.normal(0, 0.01, (n, dim))
    return np.outer(t, a) + np.outer(s, b) + noise + 5.0, a, b


def test_pca_finds_the_axes_of_known_data():
    v, a, b = _plane()
    _mean, axes, explained = pca_axes(v)
    assert abs(axes[0] @ a) == pytest.approx(1.0, abs=1e-3)
    assert abs(axes[1] @ b) == pytest.approx(1.0, abs=1e-3)
    assert explained[0] == pytest.approx(100 / 104, abs=0.03) and explained[0] > explained[1] > 0
    points, _q, _e = project_vectors(v)
    centred = v - v.mean(axis=0)
    assert np.abs(points[:, 0]) == pytest.approx(np.abs(centred @ a), abs=0.05), "coordinates along the axis"


def test_the_picture_does_not_flip_between_runs():
    v, _a, _b = _plane()
    first, _q, _e = project_vectors(v)
    again, _q2, _e2 = project_vectors(v[::-1].copy())
    assert again[::-1] == pytest.approx(first), "same points, same signs, whatever their order"


def test_the_question_is_projected_by_the_same_transform():
    v, a, _b = _plane()
    points, q, _e = project_vectors(v, v[7])
    assert q == pytest.approx(points[7])
    far = v.mean(axis=0) + 30 * a
    _p, q_far, _e = project_vectors(v, far)
    assert abs(q_far[0]) == pytest.approx(30, abs=0.1) and abs(q_far[1]) < 0.1


def test_sampling_is_seeded_and_keeps_the_hits():
    rows = sample_rows(20_000, 5_000, seed=1, keep=[3, 19_999])
    assert len(rows) == 5_000 and np.all(np.diff(rows) > 0)
    assert {3, 19_999} <= set(rows.tolist())
    assert np.array_equal(rows, sample_rows(20_000, 5_000, seed=1, keep=[3, 19_999]))
    assert not np.array_equal(rows, sample_rows(20_000, 5_000, seed=2, keep=[3, 19_999]))
    assert np.array_equal(sample_rows(300, 5_000), np.arange(300)), "under the limit every row is shown"


def test_unknown_method_is_refused_in_one_line():
    with pytest.raises(ValueError, match="unknown projection 'tsne'"):
        project_vectors(np.eye(3), method="tsne")
    assert projection_methods()[0] == PCA


def test_a_chunk_set_is_projected_with_its_hits(tmp_path):
    ws = Workspace(tmp_path / "data", embedder=HashEmbedder())
    ws.add_paths([str(SAMPLE)])
    strategy = resolve({"chunk": {"size": 60}})
    result = ws.search("How are vectors stored?", strategy)
    rt = ws.sets.runtime(result.set_id)
    qvec = ws.corpus.query_vector(result.question, strategy.model)
    hits = [h.row for h in result.hits]
    whole = set_projection(rt, qvec, hits)
    assert whole.total == len(rt) and not whole.sampled and whole.describe() == f"all {len(rt):,} chunks shown"
    some = set_projection(rt, qvec, hits, limit=10, seed=4)
    assert some.sampled and len(some.rows) == 10 and set(hits) <= set(some.rows.tolist())
    assert some.describe() == f"10 of {len(rt):,} chunks shown, sampled"
    row = int(some.rows[2])
    assert some.nearest(*some.points[2]) == row
    vector = rt.index.vectors_for(rt.table.ids[[row]])[0]
    assert project_vectors(rt.index.vectors_for(rt.table.ids[some.rows]), vector)[1] == pytest.approx(some.points[2])
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        set_projection(rt, qvec, hits, cancel=cancel)
    ws.close()
