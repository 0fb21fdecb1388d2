"""Strategy JSON written by earlier versions (flat and composed forms, captured before the later steps became
step values) still reads to the same strategy: same value both ways, same composed JSON, same description."""

import json
from pathlib import Path

import pytest

from workbench.core.retrieve.strategy.json_form import from_dict, to_flat_dict

STORED = json.loads((Path(__file__).parent / "data" / "strategy_json_before_steps.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", STORED, ids=[e["composed"]["name"] for e in STORED])
def test_stored_json_reads_to_the_same_strategy(entry):
    flat, composed = from_dict(entry["flat"]), from_dict(entry["composed"])
    assert flat == composed
    assert composed.to_dict() == entry["composed"]
    assert composed.describe() == entry["describe"]
    assert from_dict(to_flat_dict(composed)) == composed
