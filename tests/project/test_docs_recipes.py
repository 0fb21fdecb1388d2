"""The recipes of docs/architecture.md's "Extending" section run exactly as written: each code block marked
``# recipe:`` is executed as it stands in the file (no line added or changed), then the addition is used the way a
researcher would use it."""

from __future__ import annotations

import json
import re
import sys
import types

import pytest
from cli_support import run_cli, searched_both_ways
from conftest import ROOT, SAMPLE
from eval_support import sample_questions

from workbench.core.evaluate import metrics
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.ingest.chunkers import registry
from workbench.core.retrieve.steps.base import STEP_TYPES, unregister_step

DOC = ROOT / "docs" / "architecture.md"


def recipe(name: str) -> str:
    """The code block of the docs marked ``# recipe: NAME``, as written."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if b.startswith(f"# recipe: {name}\n")]
    assert len(found) == 1, f"docs/architecture.md has {len(found)} recipe(s) marked {name!r}"
    return found[0]


def run_recipe(name: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The recipe run as a module of its own (dataclasses look their module up while the class is made)."""
    module = types.ModuleType(f"recipe_{name}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(recipe(name), f"{DOC}:{name}", "exec"), module.__dict__)  # the docs' own text
    return module


@pytest.fixture
def clean_registries(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))  # the recipe's chunker goes with it
    metrics_before = dict(metrics.METRICS)
    yield
    for name in set(metrics.METRICS) - set(metrics_before):
        del metrics.METRICS[name]
    if "reverse" in STEP_TYPES:
        unregister_step("reverse")


def test_the_metric_recipe_reaches_the_eval_table(clean_registries, monkeypatch, capsys, tmp_path, hash_cli):
    run_recipe("metric", monkeypatch)
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", "--strategy", "plain", "--top-k", "2",
                             "--data-dir", tmp_path / "data", "--out", tmp_path / "out")
    assert code == 0, err
    assert "recall² %" in out.splitlines()[0]
    rows = json.loads((tmp_path / "out" / "questions.json").read_text())
    assert all(r["recall_squared"] == pytest.approx(r["recall"] ** 2) for r in rows if r["recall"] is not None)


def test_the_step_recipe_reverses_what_is_sent(clean_registries, monkeypatch, capsys, tmp_path, hash_cli):
    run_recipe("step", monkeypatch)
    forward, reversed_ = searched_both_ways(capsys, tmp_path / "data", SAMPLE, "--reverse-hits")
    assert len(forward) > 1 and [(h["doc_id"], h["start"]) for h in reversed_] == forward[::-1], \
        "the step's order is the order sent: the recipe returns the list reversed and nothing more"
    assert [h["rank"] for h in reversed_] == list(range(1, len(forward) + 1))


def test_the_chunker_recipe_cuts_and_searches(clean_registries, monkeypatch, hash_ws):
    run_recipe("chunker", monkeypatch)
    hash_ws.add_paths([str(SAMPLE)])
    result = hash_ws.search("How do I flush the cache?", {"chunker": {"name": "paragraphs", "min_chars": 20}})
    assert result.passages
    for p in result.passages:
        text = hash_ws.corpus.doc_text(p.span.doc_id)[p.span.start:p.span.end]
        assert "\n\n" not in text and len(text) >= 20 and text == text.strip()
    assert "paragraphs (min_chars=20)" in result.strategy.describe()
