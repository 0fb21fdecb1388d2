"""How many questions a claim needs: the power arithmetic of a paired comparison (standard library only).

For per-question differences ``d = B − A`` with standard deviation ``sd`` (``n − 1``), a two-sided test at level
``α`` and power ``1 − β`` (default 0.05 and 0.8), with ``k = z₁₋α/₂ + z₁₋β`` (1.960 + 0.842 = 2.80):

* the **questions needed** to detect a true mean difference ``Δ``:
  ``n = (k · sd / Δ)² + z²₁₋α/₂ / 2`` (rounded up, at least 2) — the normal approximation plus Guenther's (1981)
  correction for estimating ``sd`` from the same questions, which puts the paired t test's power within about
  a point of the target from n ≈ 10 on (checked against a simulation and the noncentral t in the tests);
* the **minimum detectable difference** at ``n`` questions, the same formula solved for ``Δ``:
  ``MDD = k · sd / √(n − z²₁₋α/₂ / 2)``.

Below ``fewest_questions(α)`` (6 at α = 0.05) neither is given: the paired sign-flip test the comparisons use
has a smallest p of ``2 / 2ⁿ``, so on fewer questions no difference, however large, reaches ``α``.

One formula serves every place that says it: the paired statistics (``paired_tests``), a question set's
"differences under ~N points look like noise" (``question_set_power``), the lab, ``eval --compare`` /
``--baseline`` and the advisor's confirm table. The spread is the one observed on these questions, so the figures
hold for "questions like these"; the sign-flip test the comparisons use has about the t test's power at these
sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

ALPHA = 0.05
POWER = 0.8
TARGET_POINTS = 5.0  # the difference in recall (points) whose questions-needed figure is shown by default
METHOD = ("normal approximation with Guenther's t correction: n = ((z₁₋α/₂ + z_power) · sd / Δ)² + z₁₋α/₂² / 2; "
          "detectable Δ at n = (z₁₋α/₂ + z_power) · sd / √(n − z₁₋α/₂² / 2); sd: of the paired differences")
TOO_FEW = "cannot say from fewer than 2 questions"
NO_SPREAD = "every question differs by the same amount, so the spread cannot say"


def fewest_questions(alpha: float = ALPHA) -> int:
    """The fewest questions on which a two-sided paired sign-flip test can reach ``p < alpha``: its smallest p
    is ``2 / 2ⁿ`` (6 at α = 0.05)."""
    _check(alpha, POWER)
    n = 2
    while 2.0 ** (1 - n) >= alpha:
        n += 1
    return n


def too_few(n: int, alpha: float = ALPHA) -> str:
    """Why ``n`` questions are too few to say what they detect ("" when they are enough)."""
    if n < 2:
        return TOO_FEW
    least = fewest_questions(alpha)
    if n < least:
        return f"no difference can reach α {alpha:g} on fewer than {least} questions (the sign-flip test's smallest p)"
    return ""


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha:g}")
    if not 0 < power < 1:
        raise ValueError(f"power must be between 0 and 1, not {power:g}")


def detectable_difference(n: int, sd: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The true mean difference a two-sided paired test on ``n`` questions detects with probability ``power``
    at level ``alpha`` when the differences spread by ``sd`` (same unit as ``sd``); ``nan`` for too few questions
    (``too_few``) or an unknown spread, 0 for no spread."""
    _check(alpha, power)
    if too_few(n, alpha) or math.isnan(sd):
        return math.nan
    if sd == 0:
        return 0.0
    za = _z(1 - alpha / 2)
    return (za + _z(power)) * sd / math.sqrt(n - za * za / 2)


def questions_needed(delta: float, sd: float, alpha: float = ALPHA, power: float = POWER) -> int | None:
    """Questions a two-sided paired test needs to detect a true mean difference ``delta`` with probability
    ``power`` at level ``alpha`` when the differences spread by ``sd`` (at least ``fewest_questions``); None when
    the spread is unknown or zero (nothing to say from it). ``delta`` must be positive."""
    _check(alpha, power)
    if not delta > 0 or math.isinf(delta):
        raise ValueError(f"the difference to detect must be positive, not {delta:g}")
    if math.isnan(sd) or sd == 0:
        return None
    za = _z(1 - alpha / 2)
    return max(fewest_questions(alpha), math.ceil(((za + _z(power)) * abs(sd) / delta) ** 2 + za * za / 2))


@dataclass(frozen=True)
class Power:
    """What ``n`` paired questions with spread ``sd`` can tell: the difference they detect and the questions a
    ``target`` difference needs. Values in the metric's unit (rates as fractions 0–1); ``target`` None for a
    metric without a default difference (context tokens, MRR)."""

    n: int
    sd: float
    target: float | None = TARGET_POINTS / 100
    alpha: float = ALPHA
    power: float = POWER

    @property
    def detectable(self) -> float:
        """The minimum detectable difference at ``n`` (``detectable_difference``)."""
        return detectable_difference(self.n, self.sd, self.alpha, self.power)

    @property
    def needed(self) -> int | None:
        """Questions needed for ``target`` (None: no target, too few questions to know the spread, or no
        spread)."""
        if self.target is None or self.n < 2:
            return None
        return questions_needed(self.target, self.sd, self.alpha, self.power)

    @property
    def why_not(self) -> str:
        """Why the figures cannot be given ("" when they can)."""
        if math.isnan(self.sd):
            return TOO_FEW
        return too_few(self.n, self.alpha) or (NO_SPREAD if self.sd == 0 else "")

    def detects_cell(self, scale: float = 100.0, digits: int = 1) -> str:
        """``≥ 15.9`` (the detectable difference × ``scale``), ``0`` with no spread, ``n/a`` with too few
        questions."""
        mdd = self.detectable
        if math.isnan(mdd):
            return "n/a"
        return "0" if mdd == 0 else f"≥ {scale * mdd:.{digits}f}"

    def needed_cell(self) -> str:
        """``383`` (questions for the target), ``n/a`` when the figure cannot be given."""
        return "n/a" if self.needed is None else f"{self.needed:,}"

    def words(self, unit: str = "points", scale: float = 100.0) -> str:
        """The claim in words, e.g. ``these 40 questions detect about 16 points (80% power, α 0.05); to tell 5
        points apart you need about 383 questions like these``."""
        settings = f"{100 * self.power:.0f}% power, α {self.alpha:g}"
        if self.why_not == NO_SPREAD:
            return f"these {self.n} questions: {NO_SPREAD} how many a difference needs"
        if self.why_not:
            needs = "" if self.needed is None or self.target is None else (
                f"; at their spread, {scale * self.target:g} {unit} would need about {self.needed:,} questions")
            return f"how large a difference these questions detect: {self.why_not}{needs}"
        detects = f"these {self.n} questions detect about {scale * self.detectable:.0f} {unit} ({settings})"
        if self.target is None or self.needed is None:
            return detects
        target = f"{scale * self.target:g}"
        return f"{detects}; to tell {target} {unit} apart you need about {self.needed:,} questions like these"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: n, sd, alpha, power, target, detectable (None when unknown), questions_needed, method."""
        mdd = self.detectable
        return {"n": self.n, "sd": None if math.isnan(self.sd) else self.sd, "alpha": self.alpha,
                "power": self.power, "target": self.target, "detectable": None if math.isnan(mdd) else mdd,
                "questions_needed": self.needed, "why_not": self.why_not or None, "method": METHOD}
