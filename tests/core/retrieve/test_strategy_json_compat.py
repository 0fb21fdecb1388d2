"""Strategy JSON written by earlier versions (flat and composed forms, captured before the later steps became
step values) still reads to the same strategy: same value both ways, same composed JSON, same description."""

import json
from pathlib import Path

import pytest

from workbench.core.retrieve.steps import STEP_TYPES
from workbench.core.retrieve.strategy.json_form import from_dict, to_flat_dict

STEP_DEFAULTS = {k: v for cls in STEP_TYPES.values() for k, v in cls().to_dict().items()}

STORED = json.loads((Path(__file__).parents[2] / "data" / "strategy_json_before_steps.json")
                    .read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", STORED, ids=[e["composed"]["name"] for e in STORED])
def test_stored_json_reads_to_the_same_strategy(entry):
    flat, composed = from_dict(entry["flat"]), from_dict(entry["composed"])
    assert flat == composed
    written = composed.to_dict()
    assert {k: v for k, v in entry["composed"].items() if k in written} == written
    left_out = {k: v for k, v in entry["composed"].items() if k not in written}
    assert left_out == {k: v for k, v in STEP_DEFAULTS.items() if k in left_out}, \
        "only later steps at their defaults are left out of the JSON written now"
    assert from_dict(written) == composed
    assert composed.describe() == entry["describe"]
    assert from_dict(to_flat_dict(composed)) == composed
