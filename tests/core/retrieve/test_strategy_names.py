"""Strategies named for people: a run's configurations read as what they are (``neighbours · 120 tok``), never
``custom`` and ``custom #2``, and every name of a run is distinct."""

from __future__ import annotations

from dataclasses import replace

from workbench.core.evaluate.curves import sweep_configs
from workbench.core.retrieve.strategy.names import chips, descriptive_name, preset_of, run_names
from workbench.core.retrieve.strategy.presets import PRESETS


def test_a_preset_keeps_its_name_and_a_changed_one_says_what_differs():
    neighbours = PRESETS["neighbours"]
    assert preset_of(replace(neighbours, name="anything")) == "neighbours"
    assert descriptive_name(replace(neighbours, name="custom")) == "neighbours"
    wider = replace(neighbours.with_expansion(window=2), name="custom")
    assert descriptive_name(wider) == "neighbours · ±2"
    smaller = replace(neighbours.with_size(120), name="custom")
    assert descriptive_name(smaller) == "neighbours · 120 tok"
    assert ("budget", "no budget") in chips(neighbours) and dict(chips(wider))["expansion"] == "±2"


def test_a_runs_names_are_distinct_and_descriptive():
    neighbours, plain = PRESETS["neighbours"], PRESETS["plain"]
    a = replace(neighbours.with_size(120), name="custom")
    b = replace(neighbours.with_expansion(window=2), name="custom")
    assert run_names([a, b, plain]) == ["neighbours · 120 tok", "neighbours · ±2", "plain"]
    assert run_names([plain, plain]) == ["plain", "plain (2)"], "the same strategy twice is numbered"
    mine = replace(plain, name="my favourite")
    assert run_names([mine]) == ["my favourite"], "a name the user gave is kept"
    clash = replace(plain.with_size(64), name="plain")  # two strategies carrying one name, other settings
    assert run_names([plain, clash]) == ["plain", "plain · 64 tok"]


def test_sweep_keys_with_budgets_never_repeat():
    a = replace(PRESETS["neighbours"].with_size(120), name="custom")
    b = replace(PRESETS["neighbours"].with_expansion(window=2), name="custom")
    configs = sweep_configs([a, b], "top_k=3,5", "100,200")
    keys = [c.key for c in configs]
    assert len(keys) == len(set(keys)) == 8
    assert all(not k.startswith("custom") for k in keys), keys
