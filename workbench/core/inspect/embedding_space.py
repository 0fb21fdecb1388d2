"""The chunk set's vectors in two dimensions, with the question projected by the same transform.

PCA (the top eigenvectors of the centred vectors' covariance) by default; UMAP when the optional
``umap-learn`` package is installed and asked for. Beyond ``limit`` chunks a seeded random sample is drawn
(so the same set, limit and seed always show the same points), and the rows a caller must see (the hits) are
always in it; a ``Projection`` says how many of how many chunks it shows. Only the sampled rows' vectors are
read.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from workbench.core.jobs import CancelToken
from workbench.core.retrieve.loaded_set import LoadedSet

DEFAULT_LIMIT = 5_000
PCA = "PCA"
UMAP = "UMAP"


def umap_available() -> bool:
    """True when the optional ``umap-learn`` package can be imported (``pip install .[umap]``)."""
    return importlib.util.find_spec("umap") is not None


def projection_methods() -> list[str]:
    """The projections offered here: PCA always, UMAP when installed."""
    return [PCA, UMAP] if umap_available() else [PCA]


@dataclass(frozen=True)
class Projection:
    """Points of some rows of a chunk set (``rows``, ascending; ``points[i]`` is row ``rows[i]``) and the
    question's point (None without a question). ``total``: the set's chunks; ``explained``: the share of
    the variance each PCA axis holds (empty for UMAP)."""

    method: str
    rows: np.ndarray
    points: np.ndarray
    query: np.ndarray | None
    total: int
    explained: tuple[float, ...] = ()

    @property
    def sampled(self) -> bool:
        """True when fewer chunks are shown than the set holds."""
        return len(self.rows) < self.total

    def describe(self) -> str:
        """How many chunks are shown, e.g. ``5,000 of 20,000 chunks shown, sampled``."""
        if self.sampled:
            return f"{len(self.rows):,} of {self.total:,} chunks shown, sampled"
        return f"all {self.total:,} chunks shown"

    def nearest(self, x: float, y: float) -> int | None:
        """The row whose point lies nearest ``(x, y)`` (None when nothing is shown)."""
        if not len(self.rows):
            return None
        d = np.sum((self.points - np.asarray([x, y])) ** 2, axis=1)
        return int(self.rows[int(np.argmin(d))])


def sample_rows(total: int, limit: int | None, seed: int = 0, keep: Iterable[int] = ()) -> np.ndarray:
    """Ascending rows ``0 … total - 1`` to show: all when ``limit`` is None or not exceeded, else ``limit``
    of them drawn with ``seed`` (the same every time), always including the rows in ``keep``."""
    if limit is None or total <= limit:
        return np.arange(total, dtype=np.int64)
    must = np.unique(np.asarray([r for r in keep if 0 <= r < total], dtype=np.int64))
    rng = np.random.default_rng(seed)
    drawn = rng.choice(total, size=min(total, limit), replace=False)
    rest = np.setdiff1d(drawn, must, assume_unique=False)[: max(0, limit - len(must))]
    return np.union1d(must, rest).astype(np.int64)


def pca_axes(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[float, ...]]:
    """``(mean, axes, explained)``: the mean row, the two principal axes (rows, each signed so its largest
    entry is positive: the same data always gives the same picture) and their shares of the variance."""
    v = np.asarray(vectors, dtype=np.float64)
    mean = v.mean(axis=0)
    centred = v - mean
    power, vecs = np.linalg.eigh(centred.T @ centred)  # the covariance's eigenvectors: cheaper than an SVD
    order = np.argsort(power)[::-1]
    power, axes = np.clip(power[order], 0.0, None), vecs[:, order].T[:2]
    if len(axes) < 2:  # vectors of one dimension: pad with a zero axis
        axes = np.vstack([axes, np.zeros((2 - len(axes), v.shape[1]))])
    signs = np.sign(axes[np.arange(2), np.argmax(np.abs(axes), axis=1)])
    axes = axes * np.where(signs == 0, 1.0, signs)[:, None]
    whole = float(power.sum())
    explained = tuple(float(p / whole) if whole else 0.0 for p in (list(power[:2]) + [0.0, 0.0])[:2])
    return mean, axes, explained


def project_vectors(vectors: np.ndarray, query: np.ndarray | None = None, method: str = PCA,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray | None, tuple[float, ...]]:
    """``(points, query point, explained)``: ``vectors`` in 2-D by ``method`` and ``query`` by the same
    transform (fitted on ``vectors`` only)."""
    v = np.asarray(vectors, dtype=np.float64)
    if len(v) == 0:
        return np.zeros((0, 2)), None, ()
    if method == UMAP:
        import umap

        reducer = umap.UMAP(n_components=2, random_state=seed, n_neighbors=min(15, max(2, len(v) - 1)))
        points = np.asarray(reducer.fit_transform(v), dtype=np.float64)
        q = None if query is None else np.asarray(reducer.transform(np.asarray(query, dtype=np.float64)
                                                                    .reshape(1, -1)), dtype=np.float64)[0]
        return points, q, ()
    if method != PCA:
        raise ValueError(f"unknown projection {method!r} (choose {' or '.join(projection_methods())})")
    mean, axes, explained = pca_axes(v)
    points = (v - mean) @ axes.T
    q = None if query is None else (np.asarray(query, dtype=np.float64).reshape(-1) - mean) @ axes.T
    return points, q, explained


def set_projection(rt: LoadedSet, query: np.ndarray | None = None, keep: Iterable[int] = (), method: str = PCA,
                   limit: int | None = DEFAULT_LIMIT, seed: int = 0, cancel: CancelToken | None = None) -> Projection:
    """The chunk set ``rt`` in 2-D: a seeded sample of at most ``limit`` rows (always with ``keep``, e.g. the
    hits' rows), their stored vectors projected by ``method``, and ``query`` (the question's vector) by the
    same transform."""
    rows = sample_rows(len(rt), limit, seed, keep)
    vectors = np.zeros((0, 0), dtype=np.float32)
    if len(rows):
        ids = rt.table.ids[rows]
        parts = []
        for first in range(0, len(ids), 1000):
            if cancel is not None:
                cancel.check()
            parts.append(rt.index.vectors_for(ids[first:first + 1000]))
        vectors = np.concatenate(parts)
    if cancel is not None:
        cancel.check()
    points, q, explained = project_vectors(vectors, query, method, seed)
    return Projection(method, rows, points, q, len(rt), explained)
