"""The numerical routines behind paired comparisons (numpy and the standard library only; no scipy).

For per-question differences ``d = B − A`` (the questions where both sides have a value):

* **a paired bootstrap 95% percentile interval** of the mean difference: ``resamples`` rows of question
  indices drawn with replacement, ``rng.integers(0, n, size=(resamples, n))`` with
  ``numpy.random.default_rng(seed)``, one index matrix reused for every metric (drawn and used in blocks of
  rows, which yields the same matrix and keeps memory bounded for large sets). A resample's mean of a
  metric is taken over the drawn questions that have a value for it (a ratio estimate; identical to the
  plain resampled mean when every question counts). The interval is the 2.5th and 97.5th percentile
  (``numpy.percentile``, linear interpolation) of the resampled means.
* **a p-value from a paired sign-flip (randomisation) test**: under "no difference" each question's ``d``
  is as likely to be ``+d`` as ``−d``; the two-sided p is the share of sign patterns whose ``|mean|`` is at
  least the observed one — all ``2^k`` patterns exactly when ``k``, the number of non-zero differences,
  is at most ``EXACT_FLIPS``; else ``(1 + hits) / (1 + resamples)`` over random patterns drawn from
  ``numpy.random.default_rng([seed, 1])``.
* **the minimum detectable difference** ``MDD = (z₀.₉₇₅ + z₀.₈₀) · sd(d) / √n ≈ 2.8 · SE``: the true mean
  difference a two-sided test at α = 0.05 would detect with 80% power given this spread and this many
  questions (normal approximation; ``sd`` with ``n − 1``).
* for the binary outcomes (hit, answered) **an exact sign test / McNemar test** on the discordant pairs
  ``b`` (A yes, B no) and ``c`` (A no, B yes): ``p = min(1, 2 · P(X ≤ min(b, c)))``, ``X ~ Bin(b + c, ½)``,
  computed with integer arithmetic (``exact_sign_test``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

RESAMPLES = 10_000
ALPHA = 0.05
BLOCK_CELLS = 4_000_000  # resample rows × questions handled at once (≈ 32 MB per array)
EXACT_FLIPS = 12  # at most 2**12 sign patterns are enumerated exactly
MDD_FACTOR = 2.8  # z(0.975) + z(0.80) = 1.960 + 0.842


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



def _exact_flip_p(d: np.ndarray) -> float:
    """Two-sided sign-flip p over every sign pattern of the non-zero differences."""
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0
    k = nz.size
    patterns = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1) * 2 - 1
    sums = np.abs(patterns @ nz)
    observed = abs(nz.sum())
    return float(np.mean(sums >= observed - 1e-9 * max(1.0, observed)))


def paired_bootstrap(a: np.ndarray, b: np.ndarray, valid: np.ndarray | None = None, resamples: int = RESAMPLES,
                     seed: int = 0, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Mean difference, percentile interval, sign-flip p and MDD of ``b − a`` for every column.

    ``a`` and ``b`` are ``(n, m)`` arrays (n questions × m metrics); ``valid`` (same shape, bool) marks the
    questions a metric counts (default: all). One index matrix and one sign matrix serve every column.
    """
    a, b = np.atleast_2d(np.asarray(a, float).T).T, np.atleast_2d(np.asarray(b, float).T).T
    n, m = a.shape
    valid = np.ones((n, m), bool) if valid is None else np.asarray(valid, bool).reshape(n, m)
    d = np.where(valid, b - a, 0.0)
    counts = valid.sum(axis=0)
    out = [{"n": int(c), "mean_a": math.nan, "mean_b": math.nan, "diff": math.nan, "ci_low": math.nan,
            "ci_high": math.nan, "p_value": math.nan, "mdd": math.nan} for c in counts]
    if n == 0 or not counts.any():
        return out
    rng, flips = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    boot = np.empty((resamples, m))  # resampled mean differences
    flipped = np.empty((resamples, m))  # |sum| of the differences under random signs
    block = max(1, BLOCK_CELLS // n)  # rows per block: memory stays bounded for large sets
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        # consecutive blocks draw exactly what one rng.integers(0, n, size=(resamples, n)) call would
        idx = rng.integers(0, n, size=(rows, n))
        weights = np.bincount((idx + (np.arange(rows) * n)[:, None]).ravel(), minlength=rows * n)
        weights = weights.reshape(rows, n).astype(float)  # how often each question was drawn
        with np.errstate(invalid="ignore", divide="ignore"):
            boot[start:start + rows] = (weights @ d) / (weights @ valid.astype(float))
        signs = flips.integers(0, 2, size=(rows, n)) * 2.0 - 1.0  # int64 draws: blocks = one call
        flipped[start:start + rows] = np.abs(signs @ d)
    lo, hi = 100 * alpha / 2, 100 * (1 - alpha / 2)
    for j in range(m):
        c = int(counts[j])
        if c == 0:
            continue
        dj = d[valid[:, j], j]
        observed = float(dj.sum())
        nonzero = int(np.count_nonzero(dj))
        if nonzero <= EXACT_FLIPS:
            p = _exact_flip_p(dj)
        else:
            hits = int(np.sum(flipped[:, j] >= abs(observed) - 1e-9 * max(1.0, abs(observed))))
            p = (1 + hits) / (1 + resamples)
        col = boot[:, j]
        finite = np.isfinite(col)
        if finite.all():
            low, high = np.percentile(col, [lo, hi])
        else:  # a resample drew no question that counts for this metric
            low, high = np.percentile(col[finite], [lo, hi]) if finite.any() else (math.nan, math.nan)
        sd = float(np.std(dj, ddof=1)) if c > 1 else math.nan
        out[j] |= {"mean_a": float(a[valid[:, j], j].mean()), "mean_b": float(b[valid[:, j], j].mean()),
                   "diff": observed / c, "ci_low": float(low), "ci_high": float(high), "p_value": float(p),
                   "mdd": MDD_FACTOR * sd / math.sqrt(c) if c > 1 else math.nan}
    return out
