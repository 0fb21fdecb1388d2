"""Which question a configuration opens in Explore: the first where it scores differently from the
configuration it is compared with (the lab's *compare with* choice, else the run's first configuration),
else its first question."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.evaluate.sweep import ConfigResult, QuestionResult

SCORES = ("recall", "precision", "iou")


def other_configuration(results: Sequence[ConfigResult], key: str, compare_key: str | None) -> ConfigResult | None:
    """The configuration ``key`` is compared with: ``compare_key`` when it is another one, else the first
    configuration of the run that is not ``key`` (None when the run has only ``key``)."""
    others = [r for r in results if r.config.key != key]
    chosen = next((r for r in others if r.config.key == compare_key), None)
    return chosen or (others[0] if others else None)


def _scores(row: QuestionResult) -> tuple[float | None, ...]:
    return tuple(getattr(row.metrics, name) for name in SCORES)


def first_differing_question(result: ConfigResult, other: ConfigResult | None) -> int | None:
    """The q_index of ``result``'s first question scored differently under ``other`` (else its first
    question; None when it has none)."""
    if not result.rows:
        return None
    theirs = {r.q_index: _scores(r) for r in other.rows} if other is not None else {}
    differing = (r.q_index for r in result.rows if r.q_index in theirs and _scores(r) != theirs[r.q_index])
    return next(differing, result.rows[0].q_index)
