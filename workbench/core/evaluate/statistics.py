"""Paired statistics for two configurations over the same questions (``B − A``), and against one baseline.

Questions are paired by ``(q_index, question)``; questions present in only one run are left out and
counted. For every metric the per-question differences ``d = B − A`` are taken over the questions where
both sides have a value (rates: the questions the corpus covers; context tokens: every question;
answered: covered questions both sides judged), and reported with

* a sign-flip p-value (exact when the non-zero differences are few, else Monte Carlo with its error), the
  interval that inverts the same test (so it excludes 0 exactly when p < α), the minimum detectable
  difference and, for binary outcomes, an exact sign test / McNemar test: the numerical routines and their
  exact definitions are in ``workbench.core.evaluate.paired_tests``.

A difference is called (``B better`` / ``A better``; for context tokens ``B sends more`` / ``B sends fewer``)
when its p-value — Holm-adjusted when several configurations are compared with one baseline — is below
``alpha``; otherwise it is "not distinguishable". Units: rates are fractions (0–1) in the values and JSON and
points (× 100) in the sentences, MRR a score, tokens tokens. Against a baseline, each metric's p-values and the
McNemar p-values are Holm-adjusted over the comparisons made, and the intervals computed at each comparison's
Holm level (none when there is only one; ``evaluate.baseline``). No Qt, no scipy: numpy and the standard
library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from workbench.core.evaluate.metrics import METRICS, Metric
from workbench.core.evaluate.paired_tests import (
    ALPHA,
    BLOCK_CELLS,
    EXACT_FLIPS,
    RESAMPLES,
    FlipDistribution,
    binomial_cdf_half,
    exact_sign_test,
    holm,
    holm_levels,
    inverted_interval,
    paired_tests,
)
from workbench.core.evaluate.power import METHOD as POWER_METHOD
from workbench.core.evaluate.power import NO_SPREAD, TARGET_POINTS, Power, too_few
from workbench.core.evaluate.sweep import QuestionResult

__all__ = ["ALPHA", "BLOCK_CELLS", "EXACT_FLIPS", "RESAMPLES", "UNITS", "MetricDifference",
           "PairedComparison", "SignTest", "binomial_cdf_half", "compare_paired", "exact_sign_test", "holm",
           "holm_levels", "paired_tests", "pair_rows"]

UNITS = ("rates (recall, precision, IoU, hit rate, answered rate) are fractions 0–1 in JSON and points (× 100) "
         "in text; MRR is a score; context tokens are tokens")
JSON_UNIT = {"points": "fraction", "score": "score", "tokens": "tokens"}

ANSWERED = "answered"
_COVERED_LABELS = ("answered", "partial", "clean_no", "no")  # judge.COVERED_LABELS and older runs' "no" (not
# imported: keeps this module light)


def _hit(r: QuestionResult) -> float | None:
    return None if r.metrics.hit is None else float(bool(r.metrics.hit))


def _answered(r: QuestionResult) -> float | None:
    if not r.metrics.covered or r.label not in _COVERED_LABELS:
        return None
    return float(r.label == ANSWERED)


@dataclass(frozen=True)
class Compared:
    """A quantity the paired statistics test: its value on one question (None: not counted), unit, title and
    which way is better (None: neither, a size)."""

    value: Callable[[QuestionResult], float | None]
    unit: str
    title: str
    higher_is_better: bool | None = True


def _of(metric: Metric) -> Compared:
    return Compared(lambda r: metric.value(r.metrics), metric.unit, metric.label, metric.higher_is_better)


def compared_metrics() -> dict[str, Compared]:
    """Metric name → what the paired statistics test: every registered metric marked ``compared``
    (``metrics.METRICS``), then the judged answers' ``answered_rate``."""
    out = {m.name: _of(m) for m in METRICS.values() if m.compared}
    out["answered_rate"] = Compared(_answered, "points", "answered rate")
    return out


def metric_title(name: str) -> str:
    """The title of metric ``name`` in sentences (the name itself when it is not compared)."""
    found = compared_metrics().get(name)
    return found.title if found else name


BINARY = {"hit": _hit, "answered": _answered}


# ----- results -------------------------------------------------------------------------------------------
def signed_value(x: float, unit: str) -> str:
    """Signed, with a real minus sign; points to one decimal, scores (MRR) to three, tokens whole (one
    decimal under 10)."""
    v = x * 100 if unit == "points" else x
    digits = 3 if unit == "score" else 1 if unit == "points" or abs(v) < 10 else 0
    text = f"{abs(v):.{digits}f}"
    if float(text) == 0:
        return "0" if digits == 0 else f"{0:.{digits}f}"
    return ("+" if v > 0 else "−") + text


def format_p(p: float) -> str:
    """``p = 0.12``, ``p = 0.034``, ``p < 0.001`` (two significant digits)."""
    if math.isnan(p):
        return "p = n/a"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.2g}" if p < 0.1 else f"p = {p:.2f}"


def interval_end(x: float, unit: str) -> str:
    """An interval end: ``±∞`` when unbounded (too few questions to reject any shift)."""
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    return signed_value(x, unit)


@dataclass(frozen=True)
class MetricDifference:
    """``B − A`` of one metric: mean difference, the interval of the inverted sign-flip test, its p-value (exact,
    or Monte Carlo with its standard error), the minimum detectable difference; with Holm's adjustment, the
    adjusted p and the interval at the comparison's Holm level (``ci_level``)."""

    metric: str
    unit: str  # "points" (rates, in 0–1 here; shown × 100), "score" (MRR, shown as is) or "tokens"
    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    mdd: float
    p_adjusted: float | None = None
    comparisons: int = 1
    alpha: float = ALPHA
    p_exact: bool = True
    p_patterns: int = 0
    p_mc_error: float = 0.0
    ci_level: float | None = None  # the α of a Holm-adjusted interval (None: ``alpha``)
    sd: float = math.nan  # standard deviation of the per-question differences (n − 1)
    distribution: FlipDistribution | None = field(default=None, compare=False, repr=False)

    def power(self, target_points: float = TARGET_POINTS) -> Power:
        """What these questions can tell (``power.Power``): the difference they detect and, for a rate, the
        questions a ``target_points`` difference needs (other units: no target)."""
        target = target_points / 100 if self.unit == "points" else None
        return Power(self.n, self.sd, target, self.alpha)

    def adjusted(self, p_adjusted: float, level: float, comparisons: int) -> MetricDifference:
        """This difference with its Holm-adjusted p and the interval at its Holm ``level`` (an α)."""
        low, high = self.ci_low, self.ci_high
        if self.distribution is not None and not math.isnan(level):
            low, high = inverted_interval(self.distribution, level, self.p_value if self.p_exact else None)
        return replace(self, p_adjusted=p_adjusted, comparisons=comparisons, ci_low=low, ci_high=high,
                       ci_level=level)

    @property
    def p(self) -> float:
        """The p-value a verdict uses: Holm-adjusted when several comparisons were made."""
        return self.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def higher_is_better(self) -> bool | None:
        """Which way the metric is better (``compared_metrics``); None for a size (tokens: neither)."""
        found = compared_metrics().get(self.metric)
        if found is not None:
            return found.higher_is_better
        return None if self.unit == "tokens" else True

    @property
    def verdict(self) -> str:
        """``not distinguishable``, or which side is better (a size: which side sends more)."""
        if math.isnan(self.p) or self.p >= self.alpha or self.diff == 0:
            return "not distinguishable"
        if self.higher_is_better is None:
            return "B sends more" if self.diff > 0 else "B sends fewer"
        return "B better" if (self.diff > 0) == self.higher_is_better else "A better"

    def sentence(self) -> str:
        """One line a researcher can paste, e.g. ``B − A recall +3.1 points, 95% CI [−0.8, +7.0], p = 0.12
        over 40 questions: not distinguishable``; a Monte Carlo p carries its error, a Holm-adjusted interval
        its level."""
        title = metric_title(self.metric)
        if self.n == 0:
            return f"B − A {title}: no question to compare"
        p = format_p(self.p)
        if not self.p_exact and not math.isnan(self.p):
            error = "<0.0001" if self.p_mc_error < 0.0001 else f"{self.p_mc_error:.4f}"
            p += f" (Monte Carlo ±{error})"
        if self.p_adjusted is not None:
            p += f" (Holm, {self.comparisons} comparison{'s' if self.comparisons != 1 else ''})"
        level = round(100 * (1 - self.alpha))
        ci = f"{level}% CI"
        if self.ci_level is not None and self.ci_level != self.alpha:
            ci += f" (Holm-adjusted: {_level(self.ci_level)} level)"
        unit = "" if self.unit == "score" else f" {self.unit}"
        return (f"B − A {title} {signed_value(self.diff, self.unit)}{unit}, {ci} "
                f"[{interval_end(self.ci_low, self.unit)}, {interval_end(self.ci_high, self.unit)}], {p} over "
                f"{self.n} questions: {self.verdict}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN and ±∞ as None), with ``verdict`` and ``sentence``. Rates are fractions (0–1):
        ``unit`` says ``fraction`` (the sentence shows points)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "distribution"}
        data = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in data.items()}
        return data | {"unit": JSON_UNIT.get(self.unit, self.unit), "verdict": self.verdict,
                       "sentence": self.sentence()}


def _level(alpha: float) -> str:
    """A confidence level for people: ``98.3%`` for α = 0.0167."""
    return f"{100 * (1 - alpha):.3g}%"


@dataclass(frozen=True)
class SignTest:
    """Exact sign test / McNemar on a binary outcome: ``b`` = A yes & B no, ``c`` = A no & B yes; Holm-adjusted
    with the other comparisons against one baseline (``p_adjusted``)."""

    outcome: str
    n: int
    both: int
    neither: int
    b: int
    c: int
    p_value: float
    alpha: float = ALPHA
    p_adjusted: float | None = None
    comparisons: int = 1

    @property
    def p(self) -> float:
        """The p-value the verdict uses: Holm-adjusted when several comparisons were made."""
        return self.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def verdict(self) -> str:
        """``not distinguishable``, ``B better`` or ``A better``."""
        if self.p >= self.alpha or self.b == self.c:
            return "not distinguishable"
        return "B better" if self.c > self.b else "A better"

    def sentence(self) -> str:
        """e.g. ``hit: A only 3, B only 9, both 20, neither 8 of 40 questions; exact McNemar p = 0.15: not
        distinguishable``."""
        p = format_p(self.p)
        if self.p_adjusted is not None:
            p += f" (Holm, {self.comparisons} comparison{'s' if self.comparisons != 1 else ''})"
        return (f"{self.outcome}: A only {self.b}, B only {self.c}, both {self.both}, neither {self.neither} of "
                f"{self.n} questions; exact McNemar {p}: {self.verdict}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``verdict`` and ``sentence``."""
        return asdict(self) | {"verdict": self.verdict, "sentence": self.sentence()}


P_METHOD = "paired sign-flip randomisation test, two-sided"
CI_METHOD = ("the shifts the same sign-flip test does not reject (test-inverted interval); at the Holm level of "
             "the comparison when p-values are Holm-adjusted")


@dataclass
class PairedComparison:
    """Every statistic of one ``A → B`` comparison."""

    n: int  # questions in both runs
    only_a: int
    only_b: int
    metrics: dict[str, MetricDifference]
    sign_tests: dict[str, SignTest]
    resamples: int
    seed: int
    alpha: float = ALPHA
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    target_points: float = TARGET_POINTS  # the difference in a rate whose questions-needed figure is given

    def mdd_sentence(self) -> str:
        """The minimum detectable differences in one line and, for rates, the questions a ``target_points``
        difference needs (``power``)."""
        parts = []
        for m in self.metrics.values():
            power = m.power(self.target_points)
            if power.why_not:
                if power.why_not == NO_SPREAD:
                    parts.append(f"{metric_title(m.metric)} n/a (no spread)")
                continue
            part = f"{metric_title(m.metric)} {signed_value(power.detectable, m.unit).lstrip('+')}"
            part += "" if m.unit == "score" else f" {m.unit}"
            if power.needed is not None:
                part += f" ({self.target_points:g} points need about {power.needed:,} questions)"
            parts.append(part)
        few = too_few(self.n, self.alpha)
        if few:
            recall = self.metrics.get("recall")
            needed = None if recall is None else recall.power(self.target_points).needed
            at_spread = "" if needed is None else (f"; at this recall spread {self.target_points:g} points would "
                                                   f"need about {needed:,} questions")
            return f"minimum detectable difference at n = {self.n}: n/a, {few}{at_spread}"
        return (f"minimum detectable difference at n = {self.n} (80% power, two-sided α = {self.alpha:g}, from the "
                f"spread of the paired differences): " + (", ".join(parts) or "n/a"))

    def lines(self, metrics: Sequence[str] | None = None) -> list[str]:
        """The human-readable block: one line per metric, the sign tests, the MDD, the n."""
        names = [m for m in (metrics or self.metrics) if m in self.metrics]
        out = [self.metrics[m].sentence() for m in names]
        out += [t.sentence() for t in self.sign_tests.values()]
        out.append(self.mdd_sentence())
        excluded = f"; {self.only_a + self.only_b} in one run only, left out" if self.only_a + self.only_b else ""
        out.append(f"n = {self.n} paired questions{excluded}; {P_METHOD} (exact up to {EXACT_FLIPS} non-zero "
                   f"differences, else {self.resamples:,} random sign patterns, seed {self.seed}); intervals "
                   "invert the same test; ± after a mean is a standard deviation")
        return out + self.notes

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"n": self.n, "only_a": self.only_a, "only_b": self.only_b, "resamples": self.resamples,
                "seed": self.seed, "alpha": self.alpha, "ci_method": CI_METHOD, "p_method": P_METHOD,
                "exact_up_to": EXACT_FLIPS, "mdd_method": POWER_METHOD, "target_points": self.target_points,
                "units": UNITS,
                "metrics": {k: v.to_dict() | {"power": v.power(self.target_points).to_dict()}
                            for k, v in self.metrics.items()},
                "sign_tests": {k: v.to_dict() for k, v in self.sign_tests.items()}, "notes": self.notes}


# ----- computation ---------------------------------------------------------------------------------------
def pair_rows(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult]
              ) -> tuple[list[tuple[QuestionResult, QuestionResult]], int, int]:
    """Questions of both runs matched by ``(q_index, question)`` in index order, and the counts present in
    only A and only B."""
    a = {(r.q_index, r.question): r for r in rows_a}
    b = {(r.q_index, r.question): r for r in rows_b}
    both = sorted(a.keys() & b.keys())
    return [(a[k], b[k]) for k in both], len(a.keys() - b.keys()), len(b.keys() - a.keys())


def compare_paired(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult],
                   metrics: Sequence[str] | None = None, resamples: int = RESAMPLES, seed: int = 0,
                   alpha: float = ALPHA, target_points: float = TARGET_POINTS) -> PairedComparison:
    """Paired statistics of ``B − A`` over the questions both runs share; ``target_points``: the difference in a
    rate whose questions-needed figure is given (``power``).

    ``metrics`` defaults to every one of ``compared_metrics()``; ``answered_rate`` (and the answered sign test) only
    when both sides hold judged answers.
    """
    import time

    t0 = time.perf_counter()
    pairs, only_a, only_b = pair_rows(rows_a, rows_b)
    judged = any(a.label for a, _ in pairs) and any(b.label for _, b in pairs)
    known = compared_metrics()
    names = [m for m in (metrics or known) if m != "answered_rate" or judged]
    unknown = [m for m in names if m not in known]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; use {', '.join(known)}")
    n = len(pairs)
    va = np.full((n, len(names)), np.nan)
    vb = np.full((n, len(names)), np.nan)
    for i, (ra, rb) in enumerate(pairs):
        for j, name in enumerate(names):
            get = known[name].value
            x, y = get(ra), get(rb)
            if x is not None and y is not None:
                va[i, j], vb[i, j] = x, y
    valid = ~np.isnan(va)
    stats = paired_tests(np.nan_to_num(va), np.nan_to_num(vb), valid, resamples, seed, alpha)
    diffs = {name: MetricDifference(name, known[name].unit, alpha=alpha, **s)
             for name, s in zip(names, stats, strict=True)}
    tests = {}
    for outcome, get in BINARY.items():
        if outcome == "answered" and not judged:
            continue
        both = b = c = neither = 0
        for ra, rb in pairs:
            x, y = get(ra), get(rb)
            if x is None or y is None:
                continue
            both += int(x == 1 and y == 1)
            neither += int(x == 0 and y == 0)
            b += int(x == 1 and y == 0)
            c += int(x == 0 and y == 1)
        tests[outcome] = SignTest(outcome, both + neither + b + c, both, neither, b, c, exact_sign_test(b, c), alpha)
    notes = []
    if judged:
        notes.append("answered: covered questions judged on both sides (unjudged left out)")
    return PairedComparison(n, only_a, only_b, diffs, tests, resamples, seed, alpha, time.perf_counter() - t0, notes,
                            target_points)
