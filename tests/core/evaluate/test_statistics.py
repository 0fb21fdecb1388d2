"""Paired statistics: exact sign test / McNemar, the sign-flip test (exact or Monte Carlo) and the interval that
inverts it, MDD, Holm (p-values and intervals), wording, units, and the CLI.

scipy is the reference here only (the module itself uses numpy and the standard library).
"""

import json
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from cli_support import run_cli
from eval_support import sample_questions
from scipy import stats as sps

from workbench.core.evaluate.baseline import compare_to_baseline, resolve_baseline
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.metrics import QuestionMetrics
from workbench.core.evaluate.statistics import (
    ALPHA,
    RESAMPLES,
    MetricDifference,
    compare_paired,
    exact_sign_test,
    holm,
    holm_levels,
    paired_tests,
)
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult, SweepConfig
from workbench.core.retrieve.strategy.presets import resolve


def row(i, recall, tokens=100, covered=True, label=None, question=None):
    """A synthetic question row: recall drives precision / IoU / hit / reciprocal rank."""
    if not covered:
        m = QuestionMetrics(None, None, None, None, None, None, tokens, tokens * 4, 10, 0, 0)
    else:
        hit = recall > 0
        m = QuestionMetrics(recall, recall / 2, recall / 3, hit, 1.0 if hit else 0.0, 1 if hit else None, tokens,
                            tokens * 4, 10, 10, round(10 * recall))
    return QuestionResult(i, question or f"q{i}", "c", [], m, label=label)


def synthetic_pair(n, shift, seed=3):
    rng = np.random.default_rng(seed)
    a = np.clip(rng.random(n), 0, 1)
    b = np.clip(a + shift + rng.normal(0, 0.25, n), 0, 1)
    ta = rng.integers(100, 400, n)
    tb = ta + rng.integers(-20, 60, n)
    return ([row(i, float(a[i]), int(ta[i])) for i in range(n)], [row(i, float(b[i]), int(tb[i])) for i in range(n)],
            a, b, ta, tb)


# ----- exact sign test / McNemar -------------------------------------------------------------------------
def test_sign_test_matches_scipy_binomtest_and_exact_fraction():
    r = random.Random(17)
    cases = [(0, 0), (0, 1), (1, 0), (1, 1), (5, 5), (0, 5), (3, 9), (12, 3), (0, 200), (480, 520)]
    cases += [(r.randint(0, 60), r.randint(0, 60)) for _ in range(400)]
    cases += [(r.randint(0, 400), r.randint(0, 400)) for _ in range(100)]
    for b, c in cases:
        ours = exact_sign_test(b, c)
        if b + c == 0:
            assert ours == 1.0
            continue
        # scipy's binom.cdf (boost's incomplete beta) agrees to the last few ulps; ours is the exact value,
        # correctly rounded, so it also equals the exact rational computation bit for bit
        assert ours == pytest.approx(sps.binomtest(min(b, c), b + c, 0.5).pvalue, rel=1e-12, abs=0), (b, c)
        n = b + c
        exact = min(Fraction(1), 2 * Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2 ** n))
        assert ours == float(exact), (b, c)
    with pytest.raises(ValueError):
        exact_sign_test(-1, 3)


def test_mcnemar_counts_discordant_pairs():
    # A hits on 0-9, B hits on 5-19: b (A only) = 5, c (B only) = 10, both 5, neither 10
    rows_a = [row(i, 1.0 if i < 10 else 0.0) for i in range(30)]
    rows_b = [row(i, 1.0 if 5 <= i < 20 else 0.0) for i in range(30)]
    t = compare_paired(rows_a, rows_b, resamples=500).sign_tests["hit"]
    assert (t.b, t.c, t.both, t.neither, t.n) == (5, 10, 5, 10, 30)
    assert t.p_value == sps.binomtest(5, 15, 0.5).pvalue or t.p_value == pytest.approx(
        sps.binomtest(5, 15, 0.5).pvalue, rel=1e-12)
    assert t.verdict == "not distinguishable" and "exact McNemar p = 0.3" in t.sentence()
    strong = compare_paired([row(i, 0.0) for i in range(30)], [row(i, 1.0) for i in range(30)], resamples=500)
    assert strong.sign_tests["hit"].verdict == "B better" and strong.sign_tests["hit"].c == 30


# ----- the sign-flip test and the interval that inverts it ---------------------------------------------
def scipy_flip_p(d):
    """scipy's exact paired permutation test (every sign pattern) of the mean difference, two-sided."""
    d = np.asarray(d, float)
    if not np.any(d):
        return 1.0
    res = sps.permutation_test((d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis),
                               permutation_type="samples", n_resamples=np.inf, alternative="two-sided",
                               vectorized=True)
    return float(res.pvalue)


def one_column(d, **kw):
    d = np.asarray(d, float)
    [s] = paired_tests(np.zeros((len(d), 1)), d[:, None], **kw)
    return s


def test_the_sign_flip_p_is_exact_for_few_differences_and_matches_scipy():
    rng = np.random.default_rng(3)
    cases = [[0.3, -0.1, 0.2, 0.25, 0.0, 0.4, -0.05, 0.15], [1, 1, 1, 1, -1, 0, 0, 0], [-1, -1, -1, -1],
             list(rng.normal(0.1, 0.3, 12)), list(rng.integers(-2, 3, 16).astype(float))]
    for d in cases:
        s = one_column(d)
        assert s["p_exact"] and s["p_mc_error"] == 0.0
        assert s["p_value"] == pytest.approx(scipy_flip_p(d), abs=1e-12), d
    # many questions but few non-zero differences: still enumerated
    d = np.zeros(200)
    d[:10] = rng.normal(0.2, 0.1, 10)
    s = one_column(d)
    assert s["p_exact"] and s["p_patterns"] == 2 ** 10
    assert s["p_value"] == pytest.approx(scipy_flip_p(d[:10]), abs=1e-12)


@pytest.mark.slow
def test_monte_carlo_p_reports_its_error_below_0_002_near_0_05():
    rng = np.random.default_rng(12)
    d = rng.normal(0.0, 1.0, 20)
    d += 0.5 - d.mean()  # scaled so that the exact p lands near 0.05
    exact = scipy_flip_p(d)
    assert 0.02 < exact < 0.1
    s = one_column(d, seed=4)
    assert not s["p_exact"] and s["p_patterns"] == RESAMPLES
    assert s["p_mc_error"] == pytest.approx(math.sqrt(s["p_value"] * (1 - s["p_value"]) / RESAMPLES))
    assert s["p_mc_error"] < 0.002
    assert abs(s["p_value"] - exact) < 4 * s["p_mc_error"]
    sentence = compare_paired([row(i, 0.0) for i in range(20)], [row(i, float(x)) for i, x in
                                                                   enumerate(np.clip(d, 0, 1))]).metrics["recall"]
    if not sentence.p_exact:
        assert "Monte Carlo ±0.00" in sentence.sentence()


def test_the_interval_inverts_the_same_test_checked_with_scipy():
    rng = np.random.default_rng(5)
    for n in (8, 12, 15):
        d = rng.normal(0.15, 0.3, n)
        s = one_column(d)
        low, high = s["ci_low"], s["ci_high"]
        span = d.max() - d.min()
        inside, outside = 1e-7 * span, 1e-5 * span  # p is a step function of the shift: test either side
        assert scipy_flip_p(d - (low + inside)) >= ALPHA and scipy_flip_p(d - (high - inside)) >= ALPHA
        assert scipy_flip_p(d - (low - outside)) < ALPHA and scipy_flip_p(d - (high + outside)) < ALPHA
        assert low <= d.mean() <= high


@pytest.mark.slow
def test_interval_and_p_value_never_contradict_each_other():
    """0 lies inside the interval exactly when p ≥ α: for continuous and for tied, binary differences, exact and
    Monte Carlo alike (the example: four non-zero hits, p = 0.125, must not sit beside an interval without 0)."""
    rng = np.random.default_rng(21)
    cases = [[-1, -1, -1, -1] + [0] * 36, [1, 1, 1, 1, 1, 1, -1] + [0] * 40]
    cases += [list(rng.normal(rng.uniform(-0.3, 0.3), 0.5, rng.integers(5, 60))) for _ in range(40)]
    cases += [list(rng.choice([-1.0, 0.0, 0.0, 1.0], rng.integers(5, 80))) for _ in range(40)]
    for d in cases:
        s = one_column(d)
        if not math.isnan(s["p_value"]):
            assert (s["ci_low"] <= 0 <= s["ci_high"]) == (s["p_value"] >= ALPHA), (d, s["p_value"], s["ci_low"],
                                                                                   s["ci_high"])
    s = one_column([-1, -1, -1, -1] + [0] * 36)
    assert s["p_value"] == pytest.approx(0.125) and s["ci_low"] <= 0 <= s["ci_high"]


def test_too_few_questions_give_an_unbounded_interval_and_constant_shifts_a_point():
    s = one_column([0.2, 0.3, 0.1])  # 2 / 2^3 = 0.25 is the smallest p: no shift can be rejected
    assert s["ci_low"] == -math.inf and s["ci_high"] == math.inf
    m = MetricDifference("recall", "points", 3, 0, 0.2, 0.2, -math.inf, math.inf, 0.25, math.nan)
    assert "[−∞, +∞]" in m.sentence() and m.to_dict()["ci_low"] is None
    tokens = compare_paired([row(i, 0.5, 100) for i in range(40)], [row(i, 0.5, 130) for i in range(40)])
    t = tokens.metrics["context_tokens"]
    assert t.ci_low == t.ci_high == 30 and t.verdict == "B sends more"


def test_only_the_questions_a_metric_covers_count():
    covered = [i % 3 != 0 for i in range(45)]
    rng = np.random.default_rng(2)
    ra, rb = rng.random(45), rng.random(45)
    rows_a = [row(i, float(ra[i]), 100 + i, covered[i]) for i in range(45)]
    rows_b = [row(i, float(rb[i]), 130 + i, covered[i]) for i in range(45)]
    comp = compare_paired(rows_a, rows_b, seed=4)
    rec = comp.metrics["recall"]
    assert rec.n == 30 and comp.metrics["context_tokens"].n == 45
    d = np.array([rb[i] - ra[i] for i in range(45) if covered[i]])
    assert rec.diff == pytest.approx(d.mean())
    alone = one_column(d, seed=4)
    assert rec.p_value == pytest.approx(alone["p_value"], abs=4 * max(alone["p_mc_error"], 1e-9))


def test_blocks_give_the_same_numbers(monkeypatch):
    import workbench.core.evaluate.paired_tests as paired_module

    rng = np.random.default_rng(6)
    a, b = rng.random((37, 3)), rng.random((37, 3))
    strip = lambda rows: [{k: v for k, v in r.items() if k != "distribution"} for r in rows]  # noqa: E731
    whole = strip(paired_tests(a, b, resamples=3000, seed=2))
    monkeypatch.setattr(paired_module, "BLOCK_CELLS", 37 * 7 + 5)  # 7 rows a block, a short last block
    assert strip(paired_tests(a, b, resamples=3000, seed=2)) == whole


def test_sign_flip_p_agrees_with_t_test_for_many_questions():
    rng = np.random.default_rng(8)
    for shift in (0.0, 0.05, 0.12):
        a = rng.normal(0.5, 0.3, 300)
        b = a + shift + rng.normal(0, 0.4, 300)
        [s] = paired_tests(a[:, None], b[:, None], seed=1)
        assert abs(s["p_value"] - sps.ttest_rel(b, a).pvalue) < 0.03
        lo, hi = sps.ttest_rel(b, a).confidence_interval()
        assert abs(s["ci_low"] - lo) < 0.01 and abs(s["ci_high"] - hi) < 0.01, "the t interval, nearly"
    [s] = paired_tests(np.ones((20, 1)), np.ones((20, 1)))
    assert s["p_value"] == 1.0 and s["diff"] == 0.0


def test_minimum_detectable_difference_and_wording():
    rows_a, rows_b, a, b, *_ = synthetic_pair(40, 0.0, seed=9)
    comp = compare_paired(rows_a, rows_b, resamples=1000)
    d = b - a
    sd = float(np.std(d, ddof=1))
    z975, z80 = 1.959964, 0.841621  # the normal quantiles, written out
    mdd = (z975 + z80) * sd / math.sqrt(40 - z975 ** 2 / 2)
    needed = math.ceil(((z975 + z80) * sd / 0.05) ** 2 + z975 ** 2 / 2)
    recall = comp.metrics["recall"]
    assert recall.mdd == pytest.approx(mdd, rel=1e-5) and recall.sd == pytest.approx(sd)
    assert recall.power().needed == needed and comp.metrics["context_tokens"].power().needed is None
    line = comp.mdd_sentence()
    assert line.startswith("minimum detectable difference at n = 40 (80% power, two-sided α = 0.05")
    assert f"recall {100 * mdd:.1f} points (5 points need about {needed:,} questions)" in line
    three = compare_paired(rows_a, rows_b, resamples=1000, target_points=3)
    assert f"(3 points need about {math.ceil(((z975 + z80) * sd / 0.03) ** 2 + z975 ** 2 / 2):,} questions)" \
        in three.mdd_sentence()
    data = comp.to_dict()
    assert data["target_points"] == 5 and data["metrics"]["recall"]["power"]["questions_needed"] == needed
    m = MetricDifference("recall", "points", 40, 0.5, 0.531, 0.031, -0.008, 0.070, 0.12, 0.05)
    assert m.sentence() == ("B − A recall +3.1 points, 95% CI [−0.8, +7.0], p = 0.12 over 40 questions: "
                            "not distinguishable")
    better = MetricDifference("iou", "points", 40, 0.5, 0.4, -0.1, -0.15, -0.05, 0.0004, 0.05)
    assert better.sentence().endswith("p < 0.001 over 40 questions: A better")
    tokens = MetricDifference("context_tokens", "tokens", 40, 200, 612.4, 412.4, 380.2, 445.0, 0.0001, 10)
    assert "context tokens +412 tokens, 95% CI [+380, +445]" in tokens.sentence()
    assert tokens.verdict == "B sends more"
    adjusted = MetricDifference("recall", "points", 40, 0.5, 0.55, 0.05, 0.01, 0.09, 0.02, 0.05, 0.06, 3)
    assert adjusted.verdict == "not distinguishable" and "p = 0.06 (Holm, 3 comparisons)" in adjusted.sentence()


def test_questions_in_one_run_only_are_left_out_and_counted():
    rows_a = [row(i, 0.5) for i in range(10)]
    rows_b = [row(i, 0.6) for i in range(3, 14)]
    comp = compare_paired(rows_a, rows_b, resamples=200)
    assert (comp.n, comp.only_a, comp.only_b) == (7, 3, 4)
    assert comp.metrics["recall"].n == 7 and comp.metrics["recall"].diff == pytest.approx(0.1)
    assert "7 paired questions; 7 in one run only, left out" in "\n".join(comp.lines())
    renamed = [row(i, 0.6, question="other") for i in range(10)]
    assert compare_paired(rows_a, renamed, resamples=50).n == 0, "index and question text must both match"


def test_answered_rate_only_when_judged():
    labels_a = ["answered"] * 4 + ["no"] * 6
    labels_b = ["answered"] * 8 + ["partial", "unjudged"]
    rows_a = [row(i, 0.5, label=labels_a[i]) for i in range(10)]
    rows_b = [row(i, 0.5, label=labels_b[i]) for i in range(10)]
    comp = compare_paired(rows_a, rows_b, resamples=500)
    ans = comp.metrics["answered_rate"]
    assert ans.n == 9 and ans.diff == pytest.approx(4 / 9), "the unjudged question is left out"
    t = comp.sign_tests["answered"]
    assert (t.b, t.c, t.n) == (0, 4, 9)
    plain = compare_paired([row(i, 0.5) for i in range(10)], [row(i, 0.6) for i in range(10)], resamples=50)
    assert "answered_rate" not in plain.metrics and "answered" not in plain.sign_tests


def test_472_questions_and_six_metrics():
    rows_a, rows_b, *_ = synthetic_pair(472, 0.02)
    comp = compare_paired(rows_a, rows_b)  # 20,000 sign patterns, 6 metrics
    assert comp.resamples == RESAMPLES and comp.metrics["recall"].n == 472
    assert all(m.ci_low <= m.diff <= m.ci_high for m in comp.metrics.values())


# ----- Holm ----------------------------------------------------------------------------------------------
def holm_reference(p):
    """Holm's step-down procedure written out: reject H_(i) while p_(i) ≤ α / (m − i); the adjusted p is the
    smallest α at which H_(i) is rejected, found by stepping through the sorted p-values."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    for pos, i in enumerate(order):
        adjusted[i] = min(1.0, max((m - j) * p[order[j]] for j in range(pos + 1)))
    return adjusted


def test_holm_hand_worked_and_reference():
    # sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max so far 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0]) and holm([0.2]) == [0.2] and holm([]) == []
    assert math.isnan(holm([0.01, math.nan])[1]) and holm([0.01, math.nan])[0] == 0.01
    r = random.Random(4)
    for _ in range(200):
        p = [r.random() ** 3 for _ in range(r.randint(1, 8))]
        assert holm(p) == pytest.approx(holm_reference(p))


def config(key, rows):
    return ConfigResult(SweepConfig(key, resolve("plain"), "plain"), rows)


def test_holm_levels_make_adjusted_intervals_agree_with_adjusted_p():
    r = random.Random(9)
    for _ in range(300):
        p = [r.random() ** 4 for _ in range(r.randint(1, 7))]
        for raw, adjusted, level in zip(p, holm(p), holm_levels(p)):
            assert (raw < level) == (adjusted < ALPHA), (p, raw, level)
    assert holm_levels([0.01, 0.04, 0.03]) == pytest.approx([0.05 / 3, 0.05 / 2, 0.05 / 2])


def test_compare_to_baseline_adjusts_over_the_comparisons():
    rows_a, rows_b, *_ = synthetic_pair(50, 0.05, seed=1)
    _, rows_c, *_ = synthetic_pair(50, 0.0, seed=1)
    _, rows_d, *_ = synthetic_pair(50, 0.1, seed=1)
    results = [config("base", rows_a), config("b", rows_b), config("c", rows_c), config("d", rows_d)]
    comp = compare_to_baseline(results, 0, resamples=2000)
    assert comp.k == 3 and list(comp.comparisons) == ["b", "c", "d"]
    raw = [comp.comparisons[k].metrics["recall"].p_value for k in ("b", "c", "d")]
    adj = [comp.comparisons[k].metrics["recall"].p_adjusted for k in ("b", "c", "d")]
    assert adj == pytest.approx(holm(raw)) and all(x >= y for x, y in zip(adj, raw, strict=True))
    plain = compare_paired(rows_a, rows_b, resamples=2000).metrics["recall"]
    held = comp.comparisons["b"].metrics["recall"]
    assert held.ci_low <= plain.ci_low and held.ci_high >= plain.ci_high, "an adjusted interval is wider"
    for c in comp.comparisons.values():  # every adjusted interval tells the adjusted p's story
        for m in c.metrics.values():
            assert (m.ci_low <= 0 <= m.ci_high) == (m.p_adjusted >= ALPHA) or m.diff == 0
            assert "Holm-adjusted" in m.sentence() or m.ci_level == ALPHA
    mcnemar = [comp.comparisons[k].sign_tests["hit"] for k in ("b", "c", "d")]
    assert [t.p_adjusted for t in mcnemar] == pytest.approx(holm([t.p_value for t in mcnemar])), \
        "McNemar joins the adjustment"
    assert all("Holm, 3 comparisons" in t.sentence() for t in mcnemar)
    text = "\n".join(comp.lines())
    assert "3 comparisons" in text and "[base]" in text and "B − A context tokens" in text
    assert comp.to_dict("base") == {} and comp.to_dict("d")["comparisons"] == 3
    mid = compare_to_baseline(results, 2, resamples=500)
    assert mid.baseline == "c" and set(mid.comparisons) == {"base", "b", "d"}
    assert resolve_baseline(["a", "plain window=1", "plain window=2"], None) == 0
    assert resolve_baseline(["a", "plain window=1", "plain window=2"], "3") == 2
    assert resolve_baseline(["a", "plain window=1", "plain window=2"], "window=1") == 1
    for bad in ("4", "0", "window", "nope"):
        with pytest.raises(ValueError, match="configuration"):
            resolve_baseline(["a", "plain window=1", "plain window=2"], bad)


# ----- CLI -----------------------------------------------------------------------------------------------


def test_cli_compare_two_runs_and_sweep_baseline(capsys, tmp_path, hash_cli):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    data = tmp_path / "data"
    common = ["--top-k", "1", "--data-dir", data, "--quiet"]
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", "--strategy", "plain", "--chunk-size", "40",
                             *common, "--json", "--out", tmp_path / "a")
    assert code == 0, err
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", "--strategy", "neighbours", "--chunk-size", "40",
                             "--window", "2", *common, "--json", "--out", tmp_path / "b")
    assert code == 0, err
    code, out, _ = run_cli(capsys, "runs", "--data-dir", data, "--json")
    run_b, run_a = (r["id"] for r in json.loads(out))

    code, out, err = run_cli(capsys, "eval", "--compare", run_a, run_b, "--data-dir", data, "--json")
    assert code == 0, err
    [comp] = json.loads(out)
    st = comp["statistics"]
    qa = {r["q_index"]: r for r in json.loads((tmp_path / "a" / "questions.json").read_text())}
    qb = {r["q_index"]: r for r in json.loads((tmp_path / "b" / "questions.json").read_text())}
    assert st["n"] == len(qa) == 5 and st["resamples"] == RESAMPLES
    assert st["metrics"]["recall"]["unit"] == "fraction" and "fractions 0–1 in JSON" in st["units"]
    for name, field in (("recall", "recall"), ("iou", "iou"), ("mrr", "reciprocal_rank"),
                        ("context_tokens", "context_tokens")):
        m = st["metrics"][name]
        observed = np.mean([qb[i][field] - qa[i][field] for i in qa])
        assert m["diff"] == pytest.approx(observed)
        # five questions: no shift can be rejected at 5% (the smallest p is 2/2^5), so the interval is unbounded
        assert m["ci_low"] is None and m["ci_high"] is None and "[−∞, +∞]" in m["sentence"], name
        assert 0 < m["p_value"] <= 1 and m["verdict"] in m["sentence"]
    hits = st["sign_tests"]["hit"]
    assert hits["b"] == sum(qa[i]["hit"] and not qb[i]["hit"] for i in qa)
    assert hits["c"] == sum(qb[i]["hit"] and not qa[i]["hit"] for i in qa)
    assert hits["p_value"] == pytest.approx(sps.binomtest(min(hits["b"], hits["c"]), hits["b"] + hits["c"]).pvalue
                                            if hits["b"] + hits["c"] else 1.0, rel=1e-12)

    code, out, _ = run_cli(capsys, "eval", "--compare", run_a, run_b, "--data-dir", data)
    assert code == 0 and "unchanged (recall moved by more than 0.1)" in out, "the existing summary line stays"
    for text in ("B − A recall", "95% CI [", "over 5 questions", "hit: A only", "exact McNemar",
                 "minimum detectable difference", "n = 5 paired questions"):
        assert text in out, text

    # a sweep: differences against the chosen baseline, Holm-adjusted over k comparisons
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", "--grid", "window=0,1,2", "--chunk-size", "40",
                             *common, "--baseline", "2", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert rows[1].get("baseline") is True and "vs_baseline" not in rows[1]
    for r in (rows[0], rows[2]):
        vb = r["vs_baseline"]
        assert vb["baseline"] == rows[1]["key"] and vb["comparisons"] == 2
        assert set(vb["metrics"]) == {"recall", "iou", "context_tokens"}
        for m in vb["metrics"].values():
            assert m["p_adjusted"] >= m["p_value"] and m["ci_level"] is not None
    code, out, _ = run_cli(capsys, "runs", "--show", rows[0]["run_id"], "--baseline", "window=1", "--data-dir", data)
    # a preset changed on the command line is named by what changed (chunk size 40, top-1)
    assert code == 0 and "against baseline [plain · 40 tok · top-1 window=1]" in out and "2 comparisons" in out
    assert "Holm" in out and "B − A IoU" in out
    code, _, err = run_cli(capsys, "eval", tmp_path / "qs", "--grid", "window=0,1", *common, "--baseline", "7")
    assert code == 1 and "configurations 1-2" in err and "Traceback" not in err
