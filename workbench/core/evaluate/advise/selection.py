"""Which configuration is the pick, by one of three selection rules (``--rule``).

Each rule reads the advisor's objective (``objective.Objective``: recall unless asked otherwise; "recall" below).
Trying many configurations on the same questions makes the best of them look better than it is: its recall there
is the largest of many noisy means (the winner's curse; on the bundled benchmark a first search's best fell 3.7
points from the fit half to the confirm half, below the preset it had beaten on fit). The rules:

* ``best``: the best recall on the questions it was chosen on (fewer tokens, then the earlier trial, on a tie);
* ``one-se``: the one-standard-error rule: of the configurations whose recall is within one paired standard
  error of the best's (the standard error of the per-question differences from the best), the simplest (the
  expansion earliest in ``space.EXPANSIONS``, then the built-in ``fixed`` chunker, then dense before hybrid,
  then the smaller top-k, then fewer tokens);
* ``preset``: the presets that are points of the space (``space.preset_params``) are the prior: the best of them
  stays the pick unless those questions tell the best configuration apart from it (paired sign-flip test on
  recall, α = 0.05).

Which rule the advisor uses by default is measured (``DEFAULT_RULE``; docs/evaluation.md has the comparison).
Either way the ranking that follows the pick is recorded with what decided it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.core.evaluate.advise.objective import RECALL, Objective
from workbench.core.evaluate.advise.optimise import Trial, done_trials
from workbench.core.evaluate.advise.rules import DEFAULT_RULE, RULES, rule_text
from workbench.core.evaluate.advise.space import EXPANSIONS, Space, label, preset_params
from workbench.core.evaluate.paired_tests import paired_tests
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.statistics import MetricDifference, format_p
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult, SweepConfig, run_sweep
from workbench.core.jobs import CancelToken

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace


ScoresOf = Callable[[Trial], np.ndarray]  # a trial's per-question objective on the questions the rule may read


@dataclass
class Selection:
    """The trials in the order the confirmation takes them (the pick first), and why."""

    ranked: list[Trial]
    best: Trial | None = None  # the best on the questions chosen on
    preset: Trial | None = None  # the best preset there
    difference: MetricDifference | None = None  # best − preset, the objective (rule ``preset``)
    kept_preset: bool = False
    rule: str = DEFAULT_RULE
    within: int = 0  # rule ``one-se``: how many configurations were within one standard error of the best
    objective: Objective = RECALL

    def how(self, on: str = "fit") -> str:
        """How the pick was chosen, for the verdict (``on``: the questions it was chosen on)."""
        if not self.ranked:
            return ""
        pick = self.ranked[0]
        o = self.objective
        figures = f"{o.figure(pick.score)} {o.label} at {pick.tokens or 0:.0f} tokens on {on}, in-sample"
        if self.rule == "one-se" and self.best is not None and pick is not self.best:
            return (f"the simplest of {self.within} configurations within one standard error of the best on {on} "
                    f"({figures}; the best, {self.best.key}, had {o.figure(self.best.score)})")
        if not self.kept_preset or self.best is None or self.difference is None:
            return f"best on {on} ({figures})"
        d = self.difference
        return (f"the best preset on {on} ({figures}), kept because the best on {on}, {self.best.key} "
                f"({o.figure(self.best.score)}), could not be told apart from it there "
                f"({o.difference(d.diff)}, CI {o.interval(d.ci_low, d.ci_high)}, {format_p(d.p)})")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"best_on_fit": self.best.key if self.best else None,
                "pick": self.ranked[0].key if self.ranked else None,
                "best_preset": self.preset.key if self.preset else None, "kept_preset": self.kept_preset,
                "difference": self.difference.to_dict() if self.difference else None,
                "within_one_se": self.within if self.rule == "one-se" else None,
                "rule_name": self.rule, "rule": rule_text(self.rule, self.objective.label)}


def simplicity(t: Trial) -> tuple[Any, ...]:
    """How simple a configuration is (smaller is simpler): its expansion's place in ``EXPANSIONS``, a chunker
    other than the built-in ``fixed``, hybrid before dense, top-k, then its mean context tokens."""
    p = t.params
    expansion = EXPANSIONS.index(p["expansion"]) if p["expansion"] in EXPANSIONS else len(EXPANSIONS)
    return (expansion, p["chunker"] != "fixed", p["search"] != "dense", int(p["top_k"]), t.tokens or 0.0, t.number)


def standard_error(d: np.ndarray) -> float:
    """The standard error of the mean of ``d`` (0 for fewer than two values)."""
    return float(np.std(d, ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0


def choose(rule: str, trials: Sequence[Trial], scores_of: ScoresOf, space: Space, seed: int = 0,
           objective: Objective = RECALL) -> Selection:
    """The pick of ``trials`` by ``rule`` (see the module docstring); ``scores_of``: a trial's value of
    ``objective`` on each question the rule may read (the same questions, in the same order, for every trial)."""
    if rule not in RULES:
        raise ValueError(f"unknown selection rule {rule!r}; choose from {', '.join(RULES)}")
    ranked = done_trials(trials)
    if not ranked:
        return Selection([], rule=rule, objective=objective)
    presets = {label(p) for p in preset_params(space.budget, space)}
    best = ranked[0]
    preset = next((t for t in ranked if t.key in presets), None)
    if rule == "best":
        return Selection(ranked, best, preset, rule=rule, objective=objective)
    if rule == "one-se":
        top = scores_of(best)
        within = [best]
        for t in ranked[1:]:
            other = scores_of(t)
            both = ~np.isnan(top) & ~np.isnan(other)
            d = top[both] - other[both]
            if len(d) and float(np.mean(d)) <= standard_error(d):
                within.append(t)
        pick = min(within, key=simplicity)
        return Selection([pick, *[t for t in ranked if t is not pick]], best, preset, rule=rule, within=len(within),
                         objective=objective)
    if preset is None or best is preset:
        return Selection(ranked, best, preset, rule=rule, objective=objective)
    a, b = scores_of(preset), scores_of(best)
    stats = paired_tests(np.nan_to_num(a), np.nan_to_num(b), ~np.isnan(a) & ~np.isnan(b), seed=seed)[0]
    difference = MetricDifference(objective.name, objective.unit, **stats)
    if difference.verdict == "B better":
        return Selection(ranked, best, preset, difference, rule=rule, objective=objective)
    return Selection([preset, *[t for t in ranked if t is not preset]], best, preset, difference, kept_preset=True,
                     rule=rule, objective=objective)


def score_vector(rows: Sequence[QuestionResult], objective: Objective = RECALL) -> np.ndarray:
    """Per-question values of ``objective`` of a configuration's rows, by question index (NaN where the question
    does not count)."""
    return np.array([objective.value(r.metrics) for r in sorted(rows, key=lambda r: r.q_index)], dtype=float)


def select(ws: EvalWorkspace, fit: QuestionSet, trials: Sequence[Trial], space: Space, seed: int = 0,
           rows: Mapping[str, ConfigResult] | None = None, cancel: CancelToken | None = None,
           rule: str = DEFAULT_RULE, objective: Objective = RECALL) -> Selection:
    """The pick of the fit half by ``rule``; ``rows``: trials' fit-half questions already run (those the rule
    needs and that are missing are run again: their chunk sets exist)."""
    ranked = done_trials(trials)
    if not ranked:
        return Selection([], rule=rule, objective=objective)
    presets = {label(p) for p in preset_params(space.budget, space)}
    preset = next((t for t in ranked if t.key in presets), None)
    needed = {"best": [], "preset": [t for t in (preset, ranked[0]) if t is not None and preset is not ranked[0]],
              "one-se": ranked}.get(rule, [])
    found = dict(rows or {})
    missing = [t for t in needed if t.key not in found]
    if missing:
        sweep = run_sweep(ws, fit, [SweepConfig(t.key, space.strategy(t.params), "advise", dict(t.params))
                                    for t in missing], None, cancel)
        found |= {cr.config.key: cr for cr in sweep.results}
    return choose(rule, trials, lambda t: score_vector(found[t.key].rows, objective), space, seed, objective)
