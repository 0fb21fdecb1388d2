"""The advisor's confirm table says, for each comparison, the difference its questions detect and how many
questions 5 points of recall would need (figures recomputed here from the per-question recall)."""

from __future__ import annotations

import math

import numpy as np

from workbench.core.evaluate.advise.confirm import Confirmation, ConfirmRow
from workbench.core.evaluate.advise.space import baseline
from workbench.core.evaluate.baseline import holm_adjust
from workbench.core.evaluate.metrics import QuestionMetrics
from workbench.core.evaluate.statistics import compare_paired
from workbench.core.evaluate.sweep import QuestionResult

Z975, Z80 = 1.959964, 0.841621  # the normal quantiles, written out


def _rows(values):
    return [QuestionResult(i, f"q{i}", "c", [], QuestionMetrics(v, v, v, v > 0, 1.0, 1, 900, 3600, 10, 10,
                                                                 round(10 * v))) for i, v in enumerate(values)]


def test_each_confirm_comparison_says_what_it_detects_and_what_five_points_need():
    rng = np.random.default_rng(38)
    n = 30
    hybrid = np.clip(rng.uniform(0.5, 0.9, n), 0, 1)
    plain = np.clip(hybrid - 0.2 + rng.normal(0, 0.1, n), 0, 1)
    pick = np.clip(hybrid + 0.04 + rng.normal(0, 0.2, n), 0, 1)
    comps = {"#1 x": {"plain@1000": compare_paired(_rows(plain), _rows(pick), ("recall", "context_tokens")),
                      "hybrid@1000": compare_paired(_rows(hybrid), _rows(pick), ("recall", "context_tokens"))}}
    holm_adjust(list(comps["#1 x"].values()))
    rows = [ConfirmRow("#1 x", "pick", baseline("hybrid", 1000), float(pick.mean()), 900, 0.9, 900),
            ConfirmRow("plain@1000", "baseline", baseline("plain", 1000), float(plain.mean()), 900),
            ConfirmRow("hybrid@1000", "baseline", baseline("hybrid", 1000), float(hybrid.mean()), 900)]
    conf = Confirmation(rows, comps, rows[0], "verdict", n, None, math.nan)
    text = conf.lines()
    for base, values in (("plain@1000", plain), ("hybrid@1000", hybrid)):
        sd = float(np.std(pick - values, ddof=1))
        mdd = 100 * (Z975 + Z80) * sd / math.sqrt(n - Z975 ** 2 / 2)
        needed = math.ceil(((Z975 + Z80) * sd / 0.05) ** 2 + Z975 ** 2 / 2)
        at = text.index(f"  [#1 x] vs [{base}]")
        line = text[at + 3]
        assert line.startswith(f"    minimum detectable difference at n = {n} (80% power"), line
        assert f"recall {mdd:.1f} points (5 points need about {needed:,} questions)" in line
        power = conf.to_dict()["comparisons"]["#1 x"][base]["metrics"]["recall"]["power"]
        assert power["questions_needed"] == needed
