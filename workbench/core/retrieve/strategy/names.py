"""Strategies named for people: the chips of a strategy (``100 tok · ±1 · top-5 · no budget``) and
descriptive names built from what differs from the nearest preset (``neighbours · 100 tok``), so a run's
configurations read as what they are rather than ``custom`` and ``custom #2``.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.index.embedder_pool import model_label
from workbench.core.ingest.chunkers.choice import cut_chips
from workbench.core.ingest.chunkers.protocol import Chip
from workbench.core.retrieve.strategy.presets import PRESETS
from workbench.core.retrieve.strategy.value import Strategy

CUSTOM = "custom"


def chips(strategy: Strategy) -> list[Chip]:
    """The strategy's settings as short chips, in reading order, each with the aspect it shows: how it cuts,
    how hits grow, how many, how it searches, what it embeds, the budget (settings at their defaults that the
    knobs rarely change are left out)."""
    c = strategy.chunk
    out: list[Chip] = cut_chips(c)
    out.append(("expansion", strategy.expander.chip()))
    out.append(("top_k", f"top-{strategy.top_k}"))
    if strategy.search_config.mode != "dense":
        out.append(("mode", strategy.search_config.mode))
    if strategy.search_config.coarse:
        out.append(("coarse", "coarse " + "+".join(f"{s}:{h}" for s, h in strategy.search_config.coarse)))
    if c.heading_prefix:
        out.append(("headings", "headings"))
    if c.contextual:
        out.append(("contextual", "contextual"))
    out += [chip for chip in (step.chip() for step in strategy.steps) if chip is not None]
    if strategy.model:
        out.append(("model", model_label(strategy.model)))
    out.append(("budget", f"budget {strategy.budget} tok" if strategy.budget else "no budget"))
    return out


def _content(strategy: Strategy) -> dict[str, object]:
    return {**strategy.to_dict(), "name": ""}


def preset_of(strategy: Strategy) -> str:
    """The name of the preset ``strategy`` equals (whatever its own name), else ``custom``."""
    data = _content(strategy)
    return next((name for name, preset in PRESETS.items() if _content(preset) == data), CUSTOM)


def descriptive_name(strategy: Strategy) -> str:
    """A preset's name, else the nearest preset's name and the chips that differ from it, e.g.
    ``neighbours · ±2 · 100 tok`` (nearest: fewest differing chips, presets in their order on a tie)."""
    preset = preset_of(strategy)
    if preset != CUSTOM:
        return preset
    own = chips(strategy)
    best_name, best_diff = CUSTOM, [text for _aspect, text in own]
    for name, candidate in PRESETS.items():
        theirs = dict(chips(candidate))
        diff = [text for aspect, text in own if theirs.get(aspect) != text]
        if len(diff) < len(best_diff):
            best_name, best_diff = name, diff
    return " · ".join([best_name, *best_diff]) if best_diff else f"{best_name} (changed)"


def run_names(strategies: Sequence[Strategy]) -> list[str]:
    """One distinct name per strategy of a run: the name it carries (a preset's, or one the user gave it), unless
    that is ``custom`` or another strategy of the run carries it too with other settings — then its descriptive
    name; strategies that still share one (identical settings) are numbered ``(2)``, ``(3)`` …"""
    names = [s.name if s.name and s.name != CUSTOM else descriptive_name(s) for s in strategies]
    for i, name in enumerate(names):  # a name two different strategies share says what each one is
        clash = [j for j, other in enumerate(names) if other == name and j != i]
        if clash and any(_content(strategies[j]) != _content(strategies[i]) for j in clash):
            names[i] = descriptive_name(strategies[i])
    out: list[str] = []
    for name in names:
        unique, n = name, 2
        while unique in out:
            unique, n = f"{name} ({n})", n + 1
        out.append(unique)
    return out


__all__ = ["CUSTOM", "chips", "descriptive_name", "preset_of", "run_names"]
