"""Issue #35 item 8: costs stated up front. A chunking making far more chunks than its size implies, a sweep
of many configurations and a long advice plan state their estimate and need ``--yes`` (the lab asks)."""

from __future__ import annotations

import random

import pytest
from cli_support import run_cli

from workbench.core.index.estimate import OVERSIZE_LEAST, BuildEstimate, about, duration

GRID = "window=" + ",".join(map(str, range(10))) + " top_k=" + ",".join(map(str, range(1, 101)))


@pytest.fixture
def spaceless(tmp_path):
    """Text without spaces: a recursive splitter falls back to pieces far smaller than its size."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    rng = random.Random(1)
    (folder / "one.txt").write_text("".join(rng.choice("abcdefghij") for _ in range(120_000)), encoding="utf-8")
    return folder


def test_a_chunking_far_over_its_size_needs_yes(capsys, tmp_path, spaceless, hash_cli):
    data = tmp_path / "data"
    args = ["index", spaceless, "--chunker", '{"name": "langchain_recursive", "max_tokens": 64}', "--data-dir",
            data, "--quiet"]
    code, _, err = run_cli(capsys, *args)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "its size implies" in err and "--yes" in err
    code, out, err = run_cli(capsys, *args, "--yes")
    assert code == 0, err
    code, out, err = run_cli(capsys, "index", spaceless, "--chunker", '{"name": "recursive", "max_tokens": 64}',
                             "--data-dir", data, "--quiet")
    assert code == 0, "a chunking at its size is not asked about"


def test_the_oversize_rule():
    assert BuildEstimate(OVERSIZE_LEAST * 9, 0, 0.0, expected=OVERSIZE_LEAST).oversized()
    assert not BuildEstimate(OVERSIZE_LEAST * 7, 0, 0.0, expected=OVERSIZE_LEAST).oversized()
    assert not BuildEstimate(900, 0, 0.0, expected=10).oversized(), "a small corpus is never asked about"
    assert not BuildEstimate(OVERSIZE_LEAST * 9, 0, 0.0).oversized(), "no size to match (sentences, headings)"


def test_a_large_grid_states_its_size_and_needs_yes(capsys, tmp_path):
    code, _, err = run_cli(capsys, "eval", "sample", "--grid", GRID, "--data-dir", tmp_path / "d", "--quiet")
    assert code == 1 and "1,000 configurations over 17 questions" in err and "--yes" in err, err
    assert not (tmp_path / "d").exists(), "refused before the store is opened"


def test_a_long_advice_plan_needs_yes(capsys, tmp_path, hash_cli):
    code, out, err = run_cli(capsys, "advise", "sample", "--time-limit", "10h", "--data-dir", tmp_path / "d",
                             "--quiet", "--sizes", "100", "--chunkers", "fixed")
    assert code == 1 and "time limit" in out and "--yes" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("seconds, said", [(1e300, "more than 3 years"), (float("inf"), "more than 3 years"),
                                           (float("nan"), "an unknown time"), (200_000, "about 2 days")])
def test_an_estimate_is_said_sensibly(seconds, said):
    """Issue #35 item 9: a 300-digit estimate (``about 115341666666 h`` and worse)."""
    assert about(seconds) == said and len(duration(seconds)) < 20
