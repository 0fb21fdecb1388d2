"""Every configuration's score on every question, each configuration run once.

Cross-fitting (``crossfit``) runs K searches that each read a different part of the questions. A configuration that
one fold's search tries is run once on every question of the set and its per-question value of the objective
(``objective.Objective``: recall unless asked otherwise) and context tokens kept here; any search that proposes it
again reads its own questions' figures from here without running it. Which questions a reader may see is the
reader's business: ``mean`` and ``vector`` take the question indexes to read, and ``reads`` records, per reader,
every question it read (the tests check that no fold's search or selection ever read its held questions).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.sweep import ConfigResult


@dataclass
class ScoreBook:
    """Per-question values of the objective (NaN where the question does not count, e.g. has no reference) and
    context tokens of each configuration run, over ``qset``'s questions (by ``Question.index``)."""

    qset: QuestionSet
    objective: Objective = RECALL
    scores: dict[str, list[float]] = field(default_factory=dict)
    tokens: dict[str, list[float]] = field(default_factory=dict)
    reads: dict[str, set[int]] = field(default_factory=dict)  # who read → which questions

    def __post_init__(self) -> None:
        self.position = {q.index: i for i, q in enumerate(self.qset.questions)}

    def __contains__(self, key: str) -> bool:
        return key in self.scores

    def add(self, key: str, result: ConfigResult) -> None:
        """Keep ``result``'s per-question figures under ``key`` (it ran on every question of the set)."""
        scores = [math.nan] * len(self.position)
        tokens = [math.nan] * len(self.position)
        for row in result.rows:
            i = self.position.get(row.q_index)
            if i is None:
                continue
            scores[i] = self.objective.value(row.metrics)
            tokens[i] = float(row.metrics.context_tokens)
        self.scores[key], self.tokens[key] = scores, tokens

    def vector(self, key: str, indexes: Sequence[int], reader: str = "") -> np.ndarray:
        """``key``'s objective on the questions ``indexes`` (NaN where not counted); the read is recorded."""
        self.reads.setdefault(reader, set()).update(indexes)
        row = self.scores[key]
        return np.array([row[self.position[i]] for i in indexes], dtype=float)

    def mean(self, key: str, indexes: Sequence[int], reader: str = "") -> tuple[float, float, int]:
        """``(objective, tokens, questions counted)``: means of ``key`` over ``indexes`` (the objective over the
        questions it counts, e.g. those with references); the read is recorded."""
        r = self.vector(key, indexes, reader)
        tokens = np.array([self.tokens[key][self.position[i]] for i in indexes], dtype=float)
        covered = ~np.isnan(r)
        score = float(np.mean(r[covered])) if covered.any() else math.nan
        return score, float(np.nanmean(tokens)) if len(tokens) else math.nan, int(covered.sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the question indexes, the objective's name and each configuration's rounded figures (None for
        NaN), the objective's under its name (``recall``, ``iou`` …)."""
        return {"questions": [q.index for q in self.qset.questions], "objective": self.objective.name,
                self.objective.name: {k: _round(v) for k, v in self.scores.items()},
                "tokens": {k: _round(v, 1) for k, v in self.tokens.items()}}

    def restore(self, data: dict[str, Any], keys: Iterable[str] | None = None) -> None:
        """Take back the figures a record kept (when they cover the same questions in the same order, of the same
        objective: a book written before objectives existed holds recall)."""
        if [int(i) for i in data.get("questions", [])] != [q.index for q in self.qset.questions]:
            return
        if str(data.get("objective", DEFAULT_OBJECTIVE)) != self.objective.name:
            return
        wanted = None if keys is None else set(keys)
        for key, values in (data.get(self.objective.name) or {}).items():
            if (wanted is None or key in wanted) and key in (data.get("tokens") or {}):
                self.scores[key] = [math.nan if v is None else float(v) for v in values]
                self.tokens[key] = [math.nan if v is None else float(v) for v in data["tokens"][key]]


def _round(values: Sequence[float], digits: int = 4) -> list[float | None]:
    return [None if math.isnan(v) else round(v, digits) for v in values]
