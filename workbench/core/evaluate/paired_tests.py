"""The numerical routines behind paired comparisons (numpy and the standard library only; no scipy).

For per-question differences ``d = B − A`` (the questions where both sides have a value), one test tells the
whole story, so an interval and a p-value can never contradict each other:

* **the paired sign-flip (randomisation) test**: under "no difference" each question's ``d`` is as likely to
  be ``+d`` as ``−d``; the two-sided p is the share of sign patterns whose ``|sum|`` is at least the observed
  one. It is **exact** — all ``2^k`` patterns enumerated — when ``k``, the number of non-zero differences, is at
  most ``EXACT_FLIPS``; otherwise it is ``(1 + hits) / (1 + RESAMPLES)`` over ``RESAMPLES`` random patterns
  drawn from ``numpy.random.default_rng([seed, 1])``, and its Monte Carlo standard error
  ``sqrt(p (1 − p) / RESAMPLES)`` is reported (0.0015 at p = 0.05 with 20,000 patterns).
* **the interval is that test inverted**: the shifts ``δ`` for which the same test on ``d − δ`` (the same
  patterns) is not rejected at ``α`` — the convex hull of that set, found on a grid over ``[min d, max d]``
  and refined by bisection. It therefore excludes 0 exactly when ``p < α`` (checked, and enforced at the
  one place the exact and the Monte Carlo test could disagree: a p computed exactly from few non-zero
  differences beside an interval over many). For a binary outcome (hit) the test on ``d ∈ {−1, 0, 1}`` is the
  exact sign test / McNemar test.
* **the minimum detectable difference** ``MDD = (z₁₋α/₂ + z₀.₈₀) · sd(d) / √(n − z₁₋α/₂² / 2)``: the true mean
  difference a two-sided test at ``α`` would detect with 80% power given this spread and this many questions
  (``sd`` with ``n − 1``; the power arithmetic, and the questions a chosen difference needs, are in
  ``workbench.core.evaluate.power``).
* for the binary outcomes (hit, answered) **an exact sign test / McNemar test** on the discordant pairs
  ``b`` (A yes, B no) and ``c`` (A no, B yes): ``p = min(1, 2 · P(X ≤ min(b, c)))``, ``X ~ Bin(b + c, ½)``,
  computed with integer arithmetic (``exact_sign_test``).
* **Holm's step-down adjustment** over several comparisons (``holm``), and intervals adjusted the same way
  (``holm_levels``): each comparison's interval at the level of its Holm step, so an adjusted interval
  excludes 0 exactly when the adjusted p is below α.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.evaluate.power import detectable_difference

RESAMPLES = 20_000  # random sign patterns when not enumerated: Monte Carlo error ≤ 0.0016 at p = 0.05
ALPHA = 0.05
BLOCK_CELLS = 4_000_000  # pattern rows × questions handled at once (≈ 32 MB per array)
EXACT_FLIPS = 16  # at most 2**16 sign patterns are enumerated exactly
GRID = 200  # shifts tried between the smallest and largest difference before the bounds are refined
BISECTIONS = 40


def binomial_cdf_half(k: int, n: int) -> float:
    """``P(X ≤ k)`` for ``X ~ Bin(n, ½)``, exact (integer sums, one correctly rounded division)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)


def exact_sign_test(b: int, c: int) -> float:
    """Two-sided exact sign test / McNemar p on ``b`` and ``c`` discordant pairs: ``min(1, 2·P(X ≤ min(b, c)))``,
    ``X ~ Bin(b + c, ½)`` (1.0 when there is no discordant pair)."""
    if b < 0 or c < 0:
        raise ValueError("counts must be non-negative")
    n = b + c
    return 1.0 if n == 0 else min(1.0, 2.0 * binomial_cdf_half(min(b, c), n))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order: sorted ascending, the i-th smallest (0-based)
    becomes ``max over j ≤ i of min(1, (m − j) · p_(j))``. NaN stays NaN and does not count in ``m``."""
    order = sorted((i for i, p in enumerate(p_values) if not math.isnan(p)), key=lambda i: p_values[i])
    m = len(order)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def holm_levels(p_values: Sequence[float], alpha: float = ALPHA) -> list[float]:
    """The α each comparison's interval is computed at so that it agrees with Holm's adjusted p: the i-th
    smallest p (0-based) gets ``α / (m − i)`` while the step-down still rejects, and every later one the level
    of the step where it stopped. An interval at that level excludes 0 exactly when the Holm-adjusted p is
    below ``alpha``. NaN p-values get NaN."""
    order = sorted((i for i, p in enumerate(p_values) if not math.isnan(p)), key=lambda i: p_values[i])
    m = len(order)
    out = [math.nan] * len(p_values)
    stopped: float | None = None
    for rank, i in enumerate(order):
        level = alpha / (m - rank)
        if stopped is None and (m - rank) * p_values[i] >= alpha:
            stopped = level
        out[i] = level if stopped is None else stopped
    return out


def _patterns(k: int) -> np.ndarray:
    """Every sign pattern of ``k`` values as rows of ±1 (``2^k × k``)."""
    return ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1) * 2.0 - 1.0


def _exact_flip_p(d: np.ndarray) -> float:
    """Two-sided sign-flip p over every sign pattern of the non-zero differences."""
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0
    sums = np.abs(_patterns(nz.size) @ nz)
    observed = abs(nz.sum())
    return float(np.mean(sums >= observed - 1e-9 * max(1.0, observed)))


@dataclass
class FlipDistribution:
    """The sign-flip test of one metric's differences ``d``, for ``d`` and for every shift ``d − δ``: for each
    pattern (all of them when ``exact``, else ``RESAMPLES`` random ones) ``a = Σ sᵢ dᵢ`` and ``b = Σ sᵢ``, so the
    pattern's statistic at shift ``δ`` is ``|a − δ b|`` against the observed ``|Σ d − n δ|``."""

    d: np.ndarray
    a: np.ndarray
    b: np.ndarray
    exact: bool

    @property
    def patterns(self) -> int:
        """How many patterns the test counts over."""
        return len(self.a)

    def p_at(self, deltas: np.ndarray) -> np.ndarray:
        """The two-sided p of the test on ``d − δ`` for each ``δ``."""
        deltas = np.atleast_1d(np.asarray(deltas, float))
        observed = np.abs(self.d.sum() - len(self.d) * deltas)
        tolerance = 1e-9 * np.maximum(1.0, observed)
        hits = np.empty(len(deltas))
        step = max(1, BLOCK_CELLS // max(1, len(self.a)))
        for i in range(0, len(deltas), step):
            part = deltas[i:i + step]
            stat = np.abs(self.a[:, None] - part[None, :] * self.b[:, None])
            hits[i:i + step] = (stat >= (observed[i:i + step] - tolerance[i:i + step])[None, :]).sum(axis=0)
        if self.exact:
            return hits / len(self.a)
        return (1.0 + hits) / (1.0 + len(self.a))  # the observed pattern counts once more


def _refine(dist: FlipDistribution, accepted: float, rejected: float, alpha: float) -> float:
    """The boundary between an accepted and a rejected shift (bisection)."""
    for _ in range(BISECTIONS):
        mid = (accepted + rejected) / 2
        if dist.p_at(np.array([mid]))[0] >= alpha:
            accepted = mid
        else:
            rejected = mid
    return accepted


def inverted_interval(dist: FlipDistribution, alpha: float, p_zero: float | None = None) -> tuple[float, float]:
    """The shifts ``δ`` the test does not reject at ``alpha`` (their convex hull): the interval that tells the
    same story as the p-value. ``p_zero``: the p reported for ``δ = 0`` (when computed exactly from fewer
    patterns); the interval then contains 0 exactly when ``p_zero ≥ alpha``. Unbounded ends are ±inf (too few
    questions for any shift to be rejected)."""
    d = dist.d
    lo, hi = float(d.min()), float(d.max())
    mean = float(d.mean())
    grid = np.unique(np.concatenate([np.linspace(lo, hi, GRID), [mean]]))
    p = dist.p_at(grid)
    ok = np.flatnonzero(p >= alpha)
    if not len(ok):  # cannot happen for the exact test (p = 1 at the mean); guard for Monte Carlo
        return mean, mean
    span = max(hi - lo, abs(mean), 1.0)
    first, last = int(ok[0]), int(ok[-1])
    if first == 0:
        below = lo - 1e-6 * span
        low = -math.inf if dist.p_at(np.array([below]))[0] >= alpha else lo
    else:
        low = _refine(dist, float(grid[first]), float(grid[first - 1]), alpha)
    if last == len(grid) - 1:
        above = hi + 1e-6 * span
        high = math.inf if dist.p_at(np.array([above]))[0] >= alpha else hi
    else:
        high = _refine(dist, float(grid[last]), float(grid[last + 1]), alpha)
    if p_zero is None:
        return low, high
    if p_zero >= alpha and not low <= 0 <= high:  # the exact p keeps 0 inside
        return min(low, 0.0), max(high, 0.0)
    if p_zero < alpha and low <= 0 <= high:  # the exact p rejects 0: the bound on 0's side moves past it
        inside = grid[(p >= alpha) & ((grid > 0) if mean > 0 else (grid < 0))]
        if mean > 0:
            nearest = float(inside.min()) if len(inside) else mean
            low = _refine(dist, nearest, 0.0, alpha) if nearest > 0 else nearest
            low = max(low, math.nextafter(0.0, 1.0))
        else:
            nearest = float(inside.max()) if len(inside) else mean
            high = _refine(dist, nearest, 0.0, alpha) if nearest < 0 else nearest
            high = min(high, math.nextafter(0.0, -1.0))
    return low, high


def flip_distributions(d: np.ndarray, valid: np.ndarray, resamples: int = RESAMPLES, seed: int = 0
                       ) -> list[FlipDistribution | None]:
    """One ``FlipDistribution`` per column of ``d`` (its ``valid`` rows), None for a column without values.
    Columns with at most ``EXACT_FLIPS`` values enumerate every pattern; the others share one matrix of
    random patterns (drawn in blocks of rows, the same draws as one call)."""
    n, m = d.shape
    out: list[FlipDistribution | None] = [None] * m
    random_cols = []
    for j in range(m):
        dj = d[valid[:, j], j]
        if not len(dj):
            continue
        if len(dj) <= EXACT_FLIPS:
            patterns = _patterns(len(dj))
            out[j] = FlipDistribution(dj, patterns @ dj, patterns.sum(axis=1), True)
        else:
            random_cols.append(j)
    if random_cols:
        flips = np.random.default_rng([seed, 1])
        a = np.empty((resamples, m))
        b = np.empty((resamples, m))
        vf = valid.astype(float)
        dz = np.where(valid, d, 0.0)
        block = max(1, BLOCK_CELLS // max(1, n))
        for start in range(0, resamples, block):
            rows = min(block, resamples - start)
            signs = flips.integers(0, 2, size=(rows, n)) * 2.0 - 1.0  # int64 draws: blocks = one call
            a[start:start + rows] = signs @ dz
            b[start:start + rows] = signs @ vf
        for j in random_cols:
            out[j] = FlipDistribution(d[valid[:, j], j], a[:, j].copy(), b[:, j].copy(), False)
    return out


def paired_tests(a: np.ndarray, b: np.ndarray, valid: np.ndarray | None = None, resamples: int = RESAMPLES,
                 seed: int = 0, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Mean difference, sign-flip p (exact or Monte Carlo, with its error), the test-inverted interval, the MDD
    and the standard deviation (``sd``) of ``b − a`` for every column; each dict also holds the column's
    ``FlipDistribution`` under ``"distribution"`` (for intervals at other levels: ``inverted_interval``).

    ``a`` and ``b`` are ``(n, m)`` arrays (n questions × m metrics); ``valid`` (same shape, bool) marks the
    questions a metric counts (default: all).
    """
    a, b = np.atleast_2d(np.asarray(a, float).T).T, np.atleast_2d(np.asarray(b, float).T).T
    n, m = a.shape
    valid = np.ones((n, m), bool) if valid is None else np.asarray(valid, bool).reshape(n, m)
    d = np.where(valid, b - a, 0.0)
    counts = valid.sum(axis=0)
    out: list[dict[str, Any]] = [
        {"n": int(c), "mean_a": math.nan, "mean_b": math.nan, "diff": math.nan, "ci_low": math.nan,
         "ci_high": math.nan, "p_value": math.nan, "p_exact": True, "p_patterns": 0, "p_mc_error": 0.0,
         "mdd": math.nan, "sd": math.nan, "distribution": None} for c in counts]
    if n == 0 or not counts.any():
        return out
    dists = flip_distributions(d, valid, resamples, seed)
    for j, dist in enumerate(dists):
        if dist is None:
            continue
        dj = dist.d
        c = len(dj)
        nonzero = int(np.count_nonzero(dj))
        if dist.exact or nonzero <= EXACT_FLIPS:
            p, exact, patterns, error = _exact_flip_p(dj), True, 1 << nonzero, 0.0
        else:
            p = float(dist.p_at(np.array([0.0]))[0])
            exact, patterns = False, dist.patterns
            error = math.sqrt(p * (1 - p) / patterns)
        low, high = inverted_interval(dist, alpha, p)
        sd = float(np.std(dj, ddof=1)) if c > 1 else math.nan
        out[j] |= {"mean_a": float(a[valid[:, j], j].mean()), "mean_b": float(b[valid[:, j], j].mean()),
                   "diff": float(dj.sum()) / c, "ci_low": low, "ci_high": high, "p_value": p, "p_exact": exact,
                   "p_patterns": patterns, "p_mc_error": error,
                   "mdd": detectable_difference(c, sd, alpha), "sd": sd, "distribution": dist}
    return out
