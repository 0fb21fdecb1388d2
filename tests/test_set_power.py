"""The detectable difference said for a set's size matches a simulation of the paired test it stands for."""

from __future__ import annotations

import math

import numpy as np

from workbench.core.evaluate.set_power import TYPICAL_SD, detectable_difference, power_line


def test_detectable_difference_has_80_percent_power_in_a_simulation():
    rng = np.random.default_rng(7)
    n, trials = 40, 4000
    mdd = detectable_difference(n)
    diffs = rng.normal(mdd, TYPICAL_SD, size=(trials, n))
    z = diffs.mean(axis=1) / (diffs.std(axis=1, ddof=1) / math.sqrt(n))
    power = float(np.mean(np.abs(z) > 1.96))
    assert 0.76 < power < 0.84, power
    null = rng.normal(0.0, TYPICAL_SD, size=(trials, n))
    z0 = null.mean(axis=1) / (null.std(axis=1, ddof=1) / math.sqrt(n))
    assert float(np.mean(np.abs(z0) > 1.96)) < 0.08


def test_power_line_says_the_size_and_the_noise_floor():
    assert power_line(40).startswith("40 questions: differences in recall under ~15 points look like noise")
    assert "~22 points" in power_line(20)
    assert "too few" in power_line(1)
    assert detectable_difference(160) < detectable_difference(40) / 1.9
