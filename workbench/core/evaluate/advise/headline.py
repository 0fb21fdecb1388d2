"""The figure an advice run stands on (its headline): the objective's value and the context tokens, what they were
measured on, and how (out-of-fold, or on the confirm half). Its own module: the run (``advice``) makes it and the
window's report (``report``) shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Headline:
    """The figure the advice stands on: the objective's and the tokens, and what they were measured on."""

    score: float | None
    tokens: float | None
    measured_on: str
    kind: str  # "out-of-fold" or "confirm half"
    questions: int

    def to_dict(self, objective: str) -> dict[str, Any]:
        """JSON-ready (``AdviceResult.to_dict``'s ``headline``)."""
        return {objective: self.score, "tokens": self.tokens, "measured_on": self.measured_on, "kind": self.kind,
                "questions": self.questions, "objective": objective}
