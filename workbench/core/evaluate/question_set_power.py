"""What a question set can tell: the smallest difference in recall between two strategies that a paired
comparison on ``n`` questions detects (80% power, two-sided α = 0.05), at the usual spread of per-question
differences. Said wherever a set is shown, so "40 questions" comes with "differences under ~15 points look like
noise"."""

from __future__ import annotations

from workbench.core.evaluate import power

# The standard deviation of per-question recall differences between two strategies (B − A, as a fraction) that
# paired comparisons of chunking strategies usually show: most questions move little, a few move a lot. 0.35
# sits in the middle of what this project's runs measured (about 0.3 to 0.45 on the bundled sets).
TYPICAL_SD = 0.35


def detectable_difference(n: int, sd: float = TYPICAL_SD) -> float:
    """Recall difference (a fraction) a paired test on ``n`` questions detects 80% of the time at α = 0.05
    (``power.detectable_difference``); ``nan`` below two questions."""
    return power.detectable_difference(n, sd)


def power_line(n: int, sd: float = TYPICAL_SD) -> str:
    """One line, e.g. ``40 questions: differences in recall under ~16 points look like noise``."""
    if n < 2:
        return f"{n} question{'s' if n != 1 else ''}: too few to tell two strategies apart"
    if power.too_few(n):
        return (f"{n} questions: every difference would look like noise (a paired test needs at least "
                f"{power.fewest_questions()} questions to reach α 0.05)")
    points = 100 * detectable_difference(n, sd)
    return (f"{n} questions: differences in recall under ~{points:.0f} points look like noise (80% power, "
            f"α 0.05, at a typical spread of {sd:.2f} per question)")
