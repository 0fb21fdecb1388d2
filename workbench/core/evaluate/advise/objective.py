"""What the advisor optimises: one registered metric (``metrics.METRICS``), recall unless asked otherwise.

The objective is a metric's registry name. The advisor keeps each configuration's per-question values of it (the
score book, the trials' means), its search maximises their mean, the selection rules compare them, the confirm
half and the cross-fitted report test it (paired, with context tokens) against the baselines, and the report, the
verdict and the JSON name it. A metric qualifies when more of it is better (``higher_is_better is True``), the
paired statistics test it (``compared``) and its figure over a run is the mean of its per-question values (the
default aggregate): the advisor ranks configurations by that mean. Sizes (context tokens) do not qualify: they are
what every configuration is held to by its budget.

The JSON names each figure by the objective (``recall``, ``fit_recall``, ``out_of_fold_recall`` …; with ``iou``:
``iou``, ``fit_iou``, ``out_of_fold_iou``), so a record written before objectives existed (recall under
``recall``) reads as a recall run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.core.evaluate.metrics import METRICS, Metric, QuestionMetrics, mean_and_sd

DEFAULT_OBJECTIVE = "recall"


def qualifies(metric: Metric) -> bool:
    """True when the advisor can optimise ``metric`` (see the module docstring)."""
    return metric.higher_is_better is True and metric.compared and metric.aggregate is mean_and_sd


def objective_names() -> list[str]:
    """The registered metrics the advisor can optimise, in registration order."""
    return [name for name, metric in METRICS.items() if qualifies(metric)]


@dataclass(frozen=True)
class Objective:
    """The metric the advisor optimises, and how its figures read (see the module docstring)."""

    metric: Metric

    @property
    def name(self) -> str:
        """The registry name: the key of its figures in summaries and JSON."""
        return self.metric.name

    @property
    def label(self) -> str:
        """In sentences (``recall``, ``IoU``, ``hit rate``)."""
        return self.metric.label

    @property
    def unit(self) -> str:
        """``points`` (a fraction 0–1, shown × 100) or ``score`` (shown as is)."""
        return self.metric.unit

    @property
    def percent(self) -> bool:
        """True when its figures are shown as percent (a fraction 0–1 in the JSON)."""
        return self.unit == "points"

    @property
    def column(self) -> str:
        """Its heading in tables, from the registry: ``recall %``, ``IoU %``, ``hit %``, ``MRR``."""
        return self.metric.column

    def value(self, metrics: QuestionMetrics) -> float:
        """One question's value (NaN when the question does not count, e.g. no reference)."""
        v = self.metric.value(metrics)
        return math.nan if v is None else float(v)

    def figure(self, x: float | None) -> str:
        """A mean as the text shows it: ``86.7`` (percent), ``0.512`` (a score); ``0.0`` for none."""
        v = 0.0 if x is None else x
        return f"{100 * v:.1f}" if self.percent else f"{v:.3f}"

    def difference(self, diff: float) -> str:
        """A difference with its unit: ``+2.1 points``, ``+0.012``."""
        from workbench.core.evaluate.statistics import signed_value  # numpy: not on the command line's start

        text = signed_value(diff, self.unit)
        return f"{text} points" if self.percent else text

    def interval(self, low: float, high: float) -> str:
        """``[−0.8, +5.0]`` in the objective's unit."""
        from workbench.core.evaluate.statistics import interval_end

        return f"[{interval_end(low, self.unit)}, {interval_end(high, self.unit)}]"

    def key(self, prefix: str = "") -> str:
        """A JSON key for a figure of it: ``key("fit_")`` → ``fit_recall``."""
        return f"{prefix}{self.name}"


def objective_for(name: str = DEFAULT_OBJECTIVE) -> Objective:
    """The objective ``name`` (its registry name, or its label, in any case: ``IoU``, ``hit rate``; ``ValueError``,
    in one line naming those that qualify, when it cannot be one)."""
    wanted = name.strip().casefold()
    metric = METRICS.get(name) or next((m for m in METRICS.values()
                                        if wanted in (m.name.casefold(), m.label.casefold())), None)
    if metric is None or not qualifies(metric):
        why = "no metric of that name is registered" if metric is None else "more of it is not better"
        raise ValueError(f"the advisor cannot optimise {name!r} ({why}); choose from {', '.join(objective_names())}")
    return Objective(metric)


RECALL = objective_for()
"""The default objective."""
