"""How many questions a claim needs (``core.evaluate.power``): the sample-size formula reaches its power in a
seeded simulation of the paired test, agrees with the noncentral t, and says plainly when it cannot tell."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from workbench.core.evaluate.paired_tests import paired_tests
from workbench.core.evaluate.power import (
    NO_SPREAD,
    TOO_FEW,
    Power,
    detectable_difference,
    fewest_questions,
    questions_needed,
)

Z975, Z80 = 1.959964, 0.841621  # the normal quantiles, written out: the tests do not reuse the module's


def _t_test_power(rng: np.random.Generator, n: int, delta: float, sd: float, draws: int = 4000) -> float:
    """Share of ``draws`` simulated sets of ``n`` paired differences (true mean ``delta``, spread ``sd``) that a
    two-sided paired t test at α = 0.05 rejects."""
    d = rng.normal(delta, sd, size=(draws, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    return float(np.mean(np.abs(t) > stats.t.ppf(0.975, n - 1)))


@pytest.mark.parametrize(("delta", "sd"), [(0.05, 0.35), (0.2, 0.35), (0.35, 0.35), (0.03, 0.1)])
def test_questions_needed_reach_80_percent_power_in_a_simulation(delta, sd):
    rng = np.random.default_rng(38)
    n = questions_needed(delta, sd)
    assert n is not None
    power = _t_test_power(rng, n, delta, sd)
    assert abs(power - 0.8) < 0.03, (n, power)  # 4,000 draws: standard error 0.006
    assert _t_test_power(rng, n, 0.0, sd) < 0.07  # and the test keeps its level


def test_the_detectable_difference_has_its_power_at_small_n_where_the_plain_normal_formula_falls_short():
    rng = np.random.default_rng(5)
    n, sd = 10, 0.35
    power = _t_test_power(rng, n, detectable_difference(n, sd), sd)
    assert abs(power - 0.8) < 0.03, power
    plain = (Z975 + Z80) * sd / math.sqrt(n)  # without the t correction: about 70% power at 10 questions
    assert _t_test_power(rng, n, plain, sd) < 0.75


def test_the_formula_agrees_with_the_noncentral_t_from_eight_questions_on():
    for n in (8, 12, 20, 40, 100, 400, 2000):
        effect = detectable_difference(n, 1.0)
        df, crit = n - 1, stats.t.ppf(0.975, n - 1)
        nc = effect * math.sqrt(n)
        exact = stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)
        assert abs(exact - 0.8) < 0.015, (n, exact)


def test_the_sign_flip_test_the_comparisons_use_has_about_that_power():
    rng = np.random.default_rng(11)
    delta, sd = 0.2, 0.35
    n = questions_needed(delta, sd)
    draws = 300
    a = np.zeros((n, draws))
    b = rng.normal(delta, sd, size=(n, draws))
    results = paired_tests(a, b, resamples=2000, seed=3)
    power = float(np.mean([r["p_value"] < 0.05 for r in results]))
    assert abs(power - 0.8) < 0.08, power  # 300 draws: standard error 0.023


def test_values_match_the_closed_form():
    n, sd = 40, 0.35
    assert detectable_difference(n, sd) == pytest.approx((Z975 + Z80) * sd / math.sqrt(n - Z975 ** 2 / 2), rel=1e-5)
    assert questions_needed(0.05, sd) == math.ceil(((Z975 + Z80) * sd / 0.05) ** 2 + Z975 ** 2 / 2)
    for delta in (0.02, 0.05, 0.1, 0.3):  # the two are one formula: n questions detect delta, n − 1 do not
        needed = questions_needed(delta, sd)
        assert needed is not None
        assert detectable_difference(needed, sd) <= delta < detectable_difference(needed - 1, sd)
    assert detectable_difference(40, sd, alpha=0.01, power=0.9) > detectable_difference(40, sd)


def test_few_questions_and_no_spread_are_said_honestly():
    assert math.isnan(detectable_difference(1, 0.3)) and math.isnan(detectable_difference(0, 0.3))
    assert Power(1, math.nan).needed is None and Power(1, math.nan).detects_cell() == "n/a"
    assert TOO_FEW in Power(1, math.nan).words() and Power(1, math.nan).why_not == TOO_FEW
    flat = Power(12, 0.0)
    assert flat.detectable == 0.0 and flat.needed is None and flat.needed_cell() == "n/a"
    assert NO_SPREAD in flat.words() and flat.to_dict()["why_not"] == NO_SPREAD
    assert questions_needed(0.05, 0.0) is None
    # the sign-flip test's smallest p is 2/2ⁿ: under 6 questions nothing reaches 0.05, whatever the spread
    assert fewest_questions(0.05) == 6 and fewest_questions(0.01) == 8
    assert all(math.isnan(detectable_difference(n, 0.3)) for n in range(2, 6))
    assert not math.isnan(detectable_difference(6, 0.3))
    assert questions_needed(1.0, 0.1) == 6, "never fewer than the test can use"
    four = Power(4, 0.3)
    assert four.detects_cell() == "n/a" and "fewer than 6 questions" in four.why_not
    assert four.needed == questions_needed(0.05, 0.3) and f"would need about {four.needed:,} questions" in four.words()
    with pytest.raises(ValueError, match="positive"):
        questions_needed(0.0, 0.3)
    with pytest.raises(ValueError, match="alpha"):
        detectable_difference(10, 0.3, alpha=1.5)


def test_the_words_give_both_figures():
    p = Power(40, 0.35)
    needed = math.ceil(((Z975 + Z80) * 0.35 / 0.05) ** 2 + Z975 ** 2 / 2)
    mdd = 100 * (Z975 + Z80) * 0.35 / math.sqrt(40 - Z975 ** 2 / 2)
    assert p.words() == (f"these 40 questions detect about {mdd:.0f} points (80% power, α 0.05); to tell 5 points "
                         f"apart you need about {needed:,} questions like these")
    assert Power(40, 0.35, target=0.03).words().endswith(f"to tell 3 points apart you need about "
                                                         f"{questions_needed(0.03, 0.35):,} questions like these")
    tokens = Power(40, 20.0, target=None)
    assert tokens.needed is None
    assert tokens.words("tokens", 1) == (f"these 40 questions detect about {tokens.detectable:.0f} tokens (80% "
                                         "power, α 0.05)")
    data = p.to_dict()
    assert data["questions_needed"] == needed and data["detectable"] == pytest.approx(mdd / 100, rel=1e-5)
