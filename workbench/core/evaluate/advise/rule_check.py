"""Every selection rule on a cross-fitted run's own folds, from the figures the run already has.

A cross-fitted run scores each configuration it tried on every question once (``book.ScoreBook``). So, at no cost,
each rule (``rules.RULES``) can be replayed, on the run's objective (the book's; "recall" below): for every fold it
chooses among the configurations that fold's search tried, reading only the other folds' questions, and its pick's
figures on the held fold's questions are read from the book. The held folds together give each rule's out-of-fold
recall on this researcher's questions, paired question by question with the rule the run used. The rule the run used
comes out at the run's own out-of-fold recall (the same picks, the same figures). This is how the default rule was
chosen (``docs/evaluation.md``), and it tells a researcher whether another rule would have done better on their
corpus.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.rules import RULES
from workbench.core.evaluate.advise.selection import ScoresOf, choose
from workbench.core.evaluate.advise.space import Space
from workbench.core.evaluate.advise.split import Folds
from workbench.core.evaluate.paired_tests import paired_tests
from workbench.core.evaluate.statistics import MetricDifference, format_p


@dataclass(frozen=True)
class RuleOutcome:
    """One rule replayed on the run's folds: its out-of-fold objective (``score``) and mean context tokens over
    every question, each fold's pick, and the difference from the rule the run used (paired over the questions,
    unadjusted; None for that rule itself)."""

    rule: str
    score: float
    tokens: float
    picks: tuple[str, ...]
    versus_used: MetricDifference | None

    def to_dict(self, objective: str = DEFAULT_OBJECTIVE) -> dict[str, Any]:
        """JSON-ready (the score as ``out_of_fold_<objective>``; a rate as a fraction 0-1)."""
        return {"rule": self.rule, f"out_of_fold_{objective}": _clean(self.score),
                "out_of_fold_tokens": _clean(self.tokens),
                "picks": list(self.picks),
                "versus_used": self.versus_used.to_dict() if self.versus_used is not None else None}


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else x


def book_reader(book: ScoreBook, questions: Sequence[int], who: str) -> ScoresOf:
    """A trial's objective on ``questions`` only, read from ``book`` as ``who`` (the read is recorded)."""
    def scores_of(t: Trial) -> np.ndarray:
        return book.vector(t.key, questions, who)
    return scores_of


def replay_rules(book: ScoreBook, folds: Folds, fold_trials: Sequence[Sequence[Trial]], space: Space, used: str,
                 seed: int = 0) -> list[RuleOutcome]:
    """Each rule of ``RULES`` replayed on the folds (see the module docstring); ``fold_trials[f]``: what fold
    ``f``'s search tried (all in ``book``). A fold whose search tried nothing counts as not covered."""
    everything = list(folds.everything())
    position = {q: i for i, q in enumerate(everything)}
    vectors: dict[str, tuple[np.ndarray, np.ndarray, tuple[str, ...]]] = {}
    for rule in RULES:
        scores = np.full(len(everything), math.nan)
        tokens = np.full(len(everything), math.nan)
        picks: list[str] = []
        for f, held in enumerate(folds.folds):
            train = list(folds.training(f))
            scored = []
            for t in fold_trials[f]:
                if t.state == "done" and t.key in book:
                    r, tk, n = book.mean(t.key, train, f"rule {rule}, fold {f + 1}")
                    scored.append(Trial(t.number, t.params, "done", r, tk, questions=n, fold=t.fold))
            chosen = choose(rule, scored, book_reader(book, train, f"rule {rule}, fold {f + 1}"), space, seed,
                            book.objective)
            if not chosen.ranked:
                picks.append("")
                continue
            pick = chosen.ranked[0]
            picks.append(pick.key)
            held_list = list(held)
            values = book.vector(pick.key, held_list, "held-out scoring")
            for q, v in zip(held_list, values, strict=True):
                scores[position[q]] = v
                tokens[position[q]] = book.tokens[pick.key][book.position[q]]
        vectors[rule] = (scores, tokens, tuple(picks))
    base = vectors[used][0]
    out = []
    for rule, (scores, tokens, chosen_keys) in vectors.items():
        versus = None
        if rule != used:
            valid = ~np.isnan(base) & ~np.isnan(scores)
            stats = paired_tests(np.nan_to_num(base), np.nan_to_num(scores), valid, seed=seed)[0]
            versus = MetricDifference(book.objective.name, book.objective.unit, **stats)
        covered = ~np.isnan(scores)
        out.append(RuleOutcome(rule, float(np.mean(scores[covered])) if covered.any() else math.nan,
                               float(np.nanmean(tokens)) if (~np.isnan(tokens)).any() else math.nan, chosen_keys,
                               versus))
    return out


def rules_line(outcomes: Sequence[RuleOutcome], used: str, objective: Objective = RECALL) -> str:
    """The rules compared in one sentence: ``each rule replayed on these folds (from the figures this run has):
    best 86.7, one-se 87.5 (−1.0 points, CI [−3.5, +1.6], p = 0.47), preset 88.5 (this run's rule)``."""
    parts = []
    for o in outcomes:
        figure = f"{o.rule} {objective.figure(o.score)}" if not math.isnan(o.score) else f"{o.rule} (nothing tried)"
        if o.rule == used:
            parts.append(f"{figure} (this run's rule)")
        elif o.versus_used is not None:
            d = o.versus_used
            parts.append(f"{figure} ({objective.difference(d.diff)}, CI {objective.interval(d.ci_low, d.ci_high)}, "
                         f"{format_p(d.p)})")
        else:
            parts.append(figure)
    return (f"each selection rule replayed on these folds (out-of-fold {objective.label}, from the figures this run "
            "already has; differences from this run's rule, unadjusted): " + ", ".join(parts))


__all__ = ["RuleOutcome", "book_reader", "replay_rules", "rules_line"]
