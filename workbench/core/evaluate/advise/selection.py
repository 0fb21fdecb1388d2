"""Which configuration is the pick: the best on the fit half, unless a preset is as good there.

Trying many configurations on one half makes the best of them look better than it is: its fit recall is the
largest of many noisy means (the winner's curse; on the bundled benchmark a first search's best fell 3.7 points
from the fit half to the confirm half, below the preset it had beaten on fit). The presets that are points of
the space (``space.preset_params``) are the prior: the best of them stays the pick unless the fit half can tell
the best configuration apart from it (paired sign-flip test on recall, α = 0.05). Either way the ranking the
confirm half sees is recorded with the comparison that decided it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.optimise import Trial, done_trials
from workbench.core.evaluate.advise.space import Space, label, preset_params
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.statistics import (
    MetricDifference,
    compare_paired,
    format_p,
    interval_end,
    signed_value,
)
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, run_sweep
from workbench.core.jobs import CancelToken

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace


@dataclass
class Selection:
    """The trials in the order the confirm half takes them (the pick first), and why."""

    ranked: list[Trial]
    best: Trial | None = None  # the best on the fit half
    preset: Trial | None = None  # the best preset on the fit half
    difference: MetricDifference | None = None  # best − preset, recall, fit half
    kept_preset: bool = False

    def how(self) -> str:
        """How the pick was chosen, for the verdict."""
        if not self.ranked:
            return ""
        pick = self.ranked[0]
        on_fit = f"{100 * (pick.recall or 0):.1f} recall at {pick.tokens or 0:.0f} tokens on fit"
        if not self.kept_preset or self.best is None or self.difference is None:
            return f"best on fit ({on_fit})"
        d = self.difference
        return (f"the best preset on fit ({on_fit}), kept because the best on fit, {self.best.key} "
                f"({100 * (self.best.recall or 0):.1f}), could not be told apart from it there "
                f"({signed_value(d.diff, 'points')} points, CI [{interval_end(d.ci_low, 'points')}, "
                f"{interval_end(d.ci_high, 'points')}], {format_p(d.p)})")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"best_on_fit": self.best.key if self.best else None,
                "best_preset": self.preset.key if self.preset else None, "kept_preset": self.kept_preset,
                "difference": self.difference.to_dict() if self.difference else None,
                "rule": "the best preset stays the pick unless the best configuration is distinguishably better "
                        "on the fit half (paired sign-flip test on recall, alpha 0.05)"}


def select(ws: EvalWorkspace, fit: QuestionSet, trials: Sequence[Trial], space: Space, seed: int = 0,
           rows: Mapping[str, ConfigResult] | None = None, cancel: CancelToken | None = None) -> Selection:
    """The confirm half's order (see the module docstring); ``rows``: trials' fit-half questions already run
    (the others are run again: their chunk sets exist)."""
    ranked = done_trials(trials)
    if not ranked:
        return Selection([])
    presets = {label(p) for p in preset_params(space.budget, space)}
    best = ranked[0]
    preset = next((t for t in ranked if t.key in presets), None)
    if preset is None or best.key in presets:
        return Selection(ranked, best, preset)
    found = dict(rows or {})
    missing = [t for t in (preset, best) if t.key not in found]
    if missing:
        sweep = run_sweep(ws, fit, [SweepConfig(t.key, space.strategy(t.params), "advise", dict(t.params))
                                    for t in missing], None, cancel)
        found |= {cr.config.key: cr for cr in sweep.results}
    difference = compare_paired(found[preset.key].rows, found[best.key].rows, ("recall",), seed=seed).metrics["recall"]
    if difference.verdict == "B better":
        return Selection(ranked, best, preset, difference)
    return Selection([preset, *[t for t in ranked if t is not preset]], best, preset, difference, kept_preset=True)
