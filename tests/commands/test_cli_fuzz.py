"""Issue #35 item 7: no traceback from any command. Hypothesis drives every sub-command with generated bad
values for every option that takes one (huge, negative, NaN, empty, unicode, deep JSON) over a copy of an
indexed data folder (hashed embedder, in this process): the command ends with exit 0, or with one line on
stderr and exit 1 or 2, and never with an exception."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "sample"

# What each command needs besides the option under test, so that the option is what decides the outcome.
BASE: dict[str, list[str]] = {
    "search": ["search", "how do I roll back"], "ask": ["ask", "how do I roll back", "--llm", "extractive"],
    "index": ["index", str(SAMPLE / "deploy-guide.md")], "remove": ["remove", str(SAMPLE / "no-such.md")],
    "docs": ["docs"], "verify": ["verify"], "runs": ["runs"], "strategies": ["strategies"],
    "chunk-stats": ["chunk-stats"], "chunkers": ["chunkers"], "datasets": ["datasets"],
    "advise": ["advise", "sample", "--plan-only"], "eval": ["eval", "sample", "--limit", "2"],
    "models": ["models"], "make-questions": ["make-questions", "--out", "OUT", "--n", "1", "--llm", "extractive"],
    "contextualize": ["contextualize", "--llm", "extractive"],
    "cuts diff": ["cuts", "diff", "plain", "neighbours"],
}
SLOW = {"eval", "make-questions", "contextualize", "ask"}  # an example may run a sweep or an LLM step: fewer
NO_DATA_DIR = {"chunkers", "datasets", "models"}
SKIP_DESTS = {"help", "version", "json", "quiet", "data_dir", "llm_host", "old_host"}  # hosts: the network guard

deep = "[" * 5000 + "]" * 5000
BAD_VALUES = st.one_of(
    st.sampled_from(["", " ", "-1", "0", "-0", "1e400", "-1e400", "nan", "NaN", "inf", "-inf", "9" * 300,
                     "1" * 20, "2.5", "0x10", "1_000", "\x00", "\x1b[31m", "\u202e", "é", "😀" * 3, "{",
                     '{"name": 1}', deep, json.dumps({"a": json.loads("[" * 50 + "]" * 50)}),
                     "custom:no_such_module_xyz:cut", "fast-custom:no_such_module_xyz:cut",
                     '{"name": "recursive", "max_tokens": 1e400}', '{"chunk": {"size": 1e400}}',
                     '{"name": "late", "base": {"name": "recursive", "max_tokens": 1e400}}', "a=1e400",
                     "window=" + ",".join(map(str, range(50))), "/", "/dev/zero", "..", "x" * 5000]),
    st.text(max_size=30),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def _options(command: str) -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parser = sub.choices[command.split()[0]]
    for name in command.split()[1:]:  # an action of a command ("cuts diff")
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    out = []
    for action in parser._actions:
        if action.dest in SKIP_DESTS or not action.option_strings or action.nargs == 0:
            continue
        out.append(action.option_strings[-1])
    return out


@pytest.fixture
def data(tmp_path, hash_sample_data_dir) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(hash_sample_data_dir, folder)
    return folder


def _check(capsys, tmp_path: Path, data: Path, command: str, option: str | None, value: str) -> None:
    base = [tmp_path.joinpath("out").as_posix() if a == "OUT" else a for a in BASE[command]]
    args = [*base, *([option, value] if option else [value])]
    if command not in NO_DATA_DIR:
        args += ["--data-dir", str(data), "--quiet"]
    code, _, err = run_cli(capsys, *args)
    assert "Traceback" not in err and "internal error" not in err, (args, err)
    if code:
        assert code in (1, 2), (args, code, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("workbench"), (args[:6], err[-600:])


def _fuzz(command: str, examples: int):
    options = _options(command)

    @settings(max_examples=examples, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(option=st.sampled_from(options) if options else st.none(), value=BAD_VALUES)
    def run(capsys, tmp_path, data, option, value):
        if option is None:
            return
        _check(capsys, tmp_path, data, command, option, value)

    return run


@pytest.mark.parametrize("command", sorted(set(BASE) - SLOW))
def test_every_option_of_a_fast_command_takes_bad_values_without_a_traceback(capsys, tmp_path, data, hash_cli,
                                                                             command):
    _fuzz(command, 60)(capsys, tmp_path, data)


@pytest.mark.parametrize("command", sorted(SLOW))
def test_every_option_of_a_slower_command_takes_bad_values_without_a_traceback(capsys, tmp_path, data, hash_cli,
                                                                             command, standin_llm):
    _fuzz(command, 25)(capsys, tmp_path, data)


@pytest.mark.parametrize("args", [
    ["index", str(SAMPLE), "--chunker", '{"name": "recursive", "max_tokens": 1e400}'],
    ["search", "q", "--chunker", '{"name": "recursive", "max_tokens": 1e400}'],
    ["search", "q", "--strategy", '{"chunker": {"name": "recursive", "max_tokens": 1e400}}'],
    ["search", "q", "--chunker", '{"name": "late", "base": "recursive", "base_params": {"max_tokens": 1e400}}'],
    ["search", "q", "--strategy",
     '{"chunker": {"name": "late", "base": "recursive", "base_params": "{\\"max_tokens\\": 1e400}"}}'],
    ["chunk-stats", "--chunker", '{"name": "recursive", "max_tokens": 1e400}'],
    ["index", str(SAMPLE), "--chunker", '{"name": "recursive", "max_tokens": 10000000000000000000000}'],
])
def test_a_huge_integer_chunker_parameter_is_one_line(capsys, data, hash_cli, args):
    """Issue #35: ``1e400`` for an integer chunker parameter was an OverflowError traceback (8 commands)."""
    code, _, err = run_cli(capsys, *args, "--data-dir", data, "--quiet")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "max_tokens" in err, err


def _plant_advice(data: Path, config: object, summary: object) -> str:
    """An advice run record written straight into the database, as a damaged or hostile copy would hold."""
    import sqlite3

    run_id = "20260101-000000-abcdef"
    with sqlite3.connect(data / "workbench.sqlite3") as db:
        db.execute("INSERT INTO runs (id, kind, label, config_json, dataset_hash, code_version, started, finished, "
                   "summary_json) VALUES (?, 'advice', 'x', ?, '', '', '2026-01-01', NULL, ?)",
                   [run_id, json.dumps(config), json.dumps(summary)])
    return run_id


ADVICE = {"budget": 1000, "name": "x", "seed": 0, "time_limit_s": 5.0,
          "space": {"budget": 1000, "chunkers": ["fixed"], "expansions": ["none"], "searches": ["dense"],
                    "sizes": [64], "top_ks": [5]},
          "split": {"confirm": [0], "fit": [1], "method": "stratified", "seed": 0}}


@pytest.mark.parametrize("config, summary, field", [
    ({"advice": ADVICE, "dataset": {"path": 5}}, {"trials": []}, "dataset path 5"),
    ({"advice": ADVICE, "dataset": {"path": "sample"}}, {"trials": [1, "x", None]}, "summary_json"),
    ({"advice": ADVICE, "dataset": {"path": "sample"}}, {"trials": "abc"}, "summary_json"),
    ({"dataset": {"path": "sample"}}, {"trials": []}, "'advice'"),
    ({"advice": {**ADVICE, "split": {"confirm": [0]}}, "dataset": {"path": "sample"}}, {"trials": []}, "'fit'"),
    ([1, 2], {}, "config_json"),
])
def test_resuming_a_damaged_advice_record_names_the_record_and_field(capsys, data, hash_cli, config, summary, field):
    """Issue #35: ``advise --resume`` of a record whose dataset.path is an integer or whose trials hold
    non-objects was a TypeError traceback; a missing key said "error: advice"."""
    run_id = _plant_advice(data, config, summary)
    code, _, err = run_cli(capsys, "advise", "--resume", run_id, "--data-dir", data, "--quiet")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert f"run '{run_id}'" in err and field in err and "runs --delete" in err, err
