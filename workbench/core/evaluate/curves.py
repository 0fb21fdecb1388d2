"""Recall per context token: every strategy at several context budgets, as curves.

``budget_configs`` runs each configuration once per budget (``budget=N`` joins its key and parameters).
``budget_curves`` turns the results into one curve per configuration: a point per budget with the mean
recall, IoU and mean context tokens over the same questions, overall and per corpus.

Two figures summarise a curve, both read on recall against *mean context tokens* (what was sent), not
against the budget asked for:

* ``recall_at_1000``: the recall at 1,000 mean context tokens, linearly interpolated between the two
  points around it. A curve that never reaches 1,000 tokens (the strategy has nothing more to send) keeps
  its last recall from there on.
* ``auc_2000``: the area under the recall curve from 0 to 2,000 tokens, by the trapezoid rule, divided by
  2,000, so it is the mean recall over that range (0–1; 1 = full recall from the first token). The curve
  starts at (0 tokens, recall 0), joins the points in order of tokens, is interpolated at 2,000 when a point
  lies beyond it, and stays flat after its last point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.metrics import QuestionMetrics
from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, config_key, expand_grid, parse_grid

if TYPE_CHECKING:
    from workbench.core.retrieve.strategy.presets import Strategy

AT_TOKENS = 1000
AUC_TOKENS = 2000


def parse_budgets(text: str, field: str = "--budgets") -> list[int]:
    """``"250,500,1000"`` → ``[250, 500, 1000]`` (positive whole numbers, duplicates removed); a refusal names
    ``field``, where the budgets were typed (the CLI's option, the lab's *Budgets* field)."""
    try:
        budgets = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise ValueError(f"{field} must be whole numbers separated by commas, not {text[:40]!r}") from None
    if not budgets or any(b <= 0 for b in budgets):
        raise ValueError(f"{field} needs at least one budget, each a positive number of tokens")
    return list(dict.fromkeys(budgets))


def budget_configs(configs: Sequence[SweepConfig], budgets: Sequence[int]) -> list[SweepConfig]:
    """Every configuration at every budget (its own budget replaced); the keys stay distinct because the
    configurations' keys were (``budget=N`` joins each)."""
    out = []
    for c in configs:
        for b in budgets:
            params = {**c.params, "budget": b}
            out.append(SweepConfig(config_key(c.base, params), replace(c.strategy, budget=b), c.base, params))
    return out


def sweep_configs(strategies: Sequence[Strategy | str], grid: str | None, budgets: str | None,
                  warnings: list[str] | None = None, budgets_field: str = "--budgets") -> list[SweepConfig]:
    """The configurations of a sweep: every strategy × every grid combination (``grid`` as ``parse_grid``
    reads it) and, when ``budgets`` is given (``"250,500,1000"``), each of those at every budget; the CLI's
    ``eval --grid --budgets`` and the lab's Sweep and Budgets fields both plan their runs here
    (``budgets_field`` names where the budgets were typed, in a refusal)."""
    configs = expand_grid(strategies, parse_grid(grid), warnings)
    return budget_configs(configs, parse_budgets(budgets, budgets_field)) if budgets else configs


def has_budgets(results: Sequence[ConfigResult]) -> bool:
    """True when the configurations were run at set budgets (``budget`` among their parameters)."""
    return any("budget" in cr.config.params for cr in results)


@dataclass(frozen=True)
class CurvePoint:
    """One budget of one curve: means over the questions (rates 0–1)."""

    budget: int
    key: str
    recall: float
    iou: float
    context_tokens: float


@dataclass(frozen=True)
class Curve:
    """The points of one configuration (by tokens) and their two summary figures."""

    points: tuple[CurvePoint, ...]
    recall_at_1000: float
    auc_2000: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"recall_at_1000": self.recall_at_1000, "auc_2000": self.auc_2000,
                "points": [vars(p) for p in self.points]}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _point(budget: int, key: str, metrics: Sequence[QuestionMetrics]) -> CurvePoint:
    covered = [m for m in metrics if m.recall is not None]
    return CurvePoint(budget, key, _mean([float(m.recall or 0.0) for m in covered]),
                      _mean([float(m.iou or 0.0) for m in covered]), _mean([float(m.context_tokens) for m in metrics]))


def recall_at(points: Sequence[CurvePoint], tokens: float) -> float:
    """Recall at ``tokens`` mean context tokens on the curve from (0, 0) (see module doc)."""
    xs = [0.0, *(p.context_tokens for p in points)]
    ys = [0.0, *(p.recall for p in points)]
    for i in range(1, len(xs)):
        if xs[i] >= tokens:
            span = xs[i] - xs[i - 1]
            return ys[i] if span <= 0 else ys[i - 1] + (ys[i] - ys[i - 1]) * (tokens - xs[i - 1]) / span
    return ys[-1]


def area_under(points: Sequence[CurvePoint], limit: float = AUC_TOKENS) -> float:
    """Trapezoid area under the curve from 0 to ``limit`` tokens, divided by ``limit`` (see module doc)."""
    xs = [0.0] + [p.context_tokens for p in points if p.context_tokens < limit] + [float(limit)]
    area = 0.0
    for a, b in zip(xs, xs[1:], strict=False):
        area += (b - a) * (recall_at(points, a) + recall_at(points, b)) / 2
    return area / limit


def make_curve(points: Sequence[CurvePoint]) -> Curve:
    """The curve through ``points`` (sorted by tokens) and its summary figures."""
    ordered = tuple(sorted(points, key=lambda p: (p.context_tokens, p.budget)))
    return Curve(ordered, recall_at(ordered, AT_TOKENS), area_under(ordered))


def budget_curves(results: Sequence[ConfigResult]) -> list[dict[str, Any]]:
    """One entry per configuration without its budget: ``key``, the overall curve, and ``corpora``
    (corpus id → its curve over that corpus's questions)."""
    groups: dict[str, list[ConfigResult]] = {}
    for cr in results:
        rest = {k: v for k, v in cr.config.params.items() if k != "budget"}
        groups.setdefault(config_key(cr.config.base, rest), []).append(cr)
    out = []
    for key, members in groups.items():
        budget_of = {id(cr): int(cr.config.params.get("budget", cr.config.strategy.budget)) for cr in members}
        overall = make_curve([_point(budget_of[id(cr)], cr.config.key, [r.metrics for r in cr.rows]) for cr in members])
        corpora = sorted({r.corpus_id for cr in members for r in cr.rows})
        per_corpus = {c: make_curve([_point(budget_of[id(cr)], cr.config.key,
                                            [r.metrics for r in cr.rows if r.corpus_id == c]) for cr in members])
                      for c in corpora}
        out.append({"key": key, **overall.to_dict(), "corpora": {c: v.to_dict() for c, v in per_corpus.items()}})
    return out


def curve_lines(curves: Sequence[dict[str, Any]]) -> list[str]:
    """The curves as text: one line per configuration (recall at 1,000 tokens, AUC) with its points, and
    the two figures per corpus."""
    lines = ["", f"recall per context token (recall at {AT_TOKENS:,} mean context tokens; AUC = mean recall "
                 f"over 0–{AUC_TOKENS:,} tokens, trapezoid):"]
    for c in curves:
        points = ", ".join(f"{p['budget']}→{p['recall'] * 100:.1f}%/{p['context_tokens']:.0f}tok" for p in c["points"])
        lines.append(f"  {c['key']}: recall@{AT_TOKENS} {c['recall_at_1000'] * 100:.1f}  "
                     f"AUC {c['auc_2000'] * 100:.1f}  [{points}]")
        lines += [f"      {name}: recall@{AT_TOKENS} {v['recall_at_1000'] * 100:.1f}  AUC {v['auc_2000'] * 100:.1f}"
                  for name, v in c["corpora"].items()]
    return lines


__all__ = ["AT_TOKENS", "AUC_TOKENS", "Curve", "CurvePoint", "area_under", "budget_configs", "budget_curves",
           "curve_lines", "has_budgets", "make_curve", "parse_budgets", "recall_at", "sweep_configs"]
