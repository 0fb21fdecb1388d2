"""The detectable difference said for a set's size matches a simulation of the paired test it stands for."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from workbench.core.evaluate import power
from workbench.core.evaluate.question_set_power import TYPICAL_SD, detectable_difference, power_line


def test_detectable_difference_has_80_percent_power_in_a_simulation():
    rng = np.random.default_rng(7)
    n, trials = 40, 4000
    mdd = detectable_difference(n)
    crit = stats.t.ppf(0.975, n - 1)
    diffs = rng.normal(mdd, TYPICAL_SD, size=(trials, n))
    t = diffs.mean(axis=1) / (diffs.std(axis=1, ddof=1) / math.sqrt(n))
    power = float(np.mean(np.abs(t) > crit))
    assert 0.77 < power < 0.83, power
    null = rng.normal(0.0, TYPICAL_SD, size=(trials, n))
    t0 = null.mean(axis=1) / (null.std(axis=1, ddof=1) / math.sqrt(n))
    assert float(np.mean(np.abs(t0) > crit)) < 0.07


def test_a_sets_figure_is_the_paired_comparisons_formula():
    assert detectable_difference(40) == power.detectable_difference(40, TYPICAL_SD)


def test_power_line_says_the_size_and_the_noise_floor():
    assert power_line(40).startswith("40 questions: differences in recall under ~16 points look like noise")
    assert "~23 points" in power_line(20)
    assert "too few" in power_line(1)
    assert power_line(5).startswith("5 questions: every difference would look like noise (a paired test needs "
                                    "at least 6")
    assert detectable_difference(160) < detectable_difference(40) / 1.9
