"""Adding a later step is one module: a step registered here (and only here) runs in the pipeline, reads and
writes its field in the strategy's JSON, and gets its option on the command line and its control in the window
from its declaration."""

import json
from dataclasses import dataclass, replace
from typing import ClassVar

import pytest
from cli_support import run_cli, searched_both_ways
from conftest import SAMPLE

from workbench.core.retrieve.knobs import Knob
from workbench.core.retrieve.steps.base import Described, Run, Step, register_step, unregister_step
from workbench.core.retrieve.strategy.json_form import from_dict
from workbench.core.retrieve.strategy.names import chips
from workbench.core.retrieve.strategy.presets import PRESETS


@dataclass(frozen=True)
class ReverseHits(Step):
    """A step for this test only: the hits in reverse order."""

    kind: ClassVar[str] = "reverse"
    order: ClassVar[int] = 50
    knobs: ClassVar[tuple[Knob, ...]] = (Knob("reverse_hits", "Reverse", 0, 1, 1,
                                              "Reverse the hits: the worst-ranked first.",
                                              cli_help="reverse the hits"),)

    reverse_hits: bool = False

    @property
    def active(self):
        return self.reverse_hits

    def describe(self, strategy: Described) -> str:
        return "hits reversed" if self.active else ""

    def chip(self):
        return ("reverse", "reversed") if self.active else None

    def reorder_hits(self, run: Run, hits):
        if not self.active:
            return None
        return [replace(h, rank=i) for i, h in enumerate(reversed(hits), start=1)]


@pytest.fixture
def registered():
    register_step(ReverseHits)
    yield ReverseHits
    unregister_step(ReverseHits.kind)


def test_a_registered_step_is_part_of_the_strategy_and_its_json(registered):
    plain = PRESETS["plain"]
    assert plain.setting("reverse_hits") is False and "reverse_hits" not in plain.to_dict(), \
        "registering a step changes no stored JSON: a step at its default is not written"
    reversed_plain = from_dict({"reverse_hits": True}, plain)
    assert reversed_plain.step(ReverseHits).active and reversed_plain != plain
    assert reversed_plain.to_dict()["reverse_hits"] is True and from_dict(reversed_plain.to_dict()) == reversed_plain
    assert reversed_plain.describe().endswith("hits reversed") and ("reverse", "reversed") in chips(reversed_plain)
    assert from_dict(plain.to_dict()) == plain, "a strategy made before the step was registered still equals"
    with pytest.raises(ValueError, match="reverse_hits"):
        from_dict({"reverse_hits": "yes"})


def test_a_registered_step_runs_and_gets_its_command_line_option(registered, capsys, tmp_path, hash_cli):
    forward, reversed_ = searched_both_ways(capsys, tmp_path / "data", SAMPLE, "--reverse-hits")
    assert [(h["doc_id"], h["start"]) for h in reversed_] == forward[::-1]


def test_a_registered_step_gets_its_control_in_the_window(registered, qtbot):
    from PySide6.QtWidgets import QCheckBox

    from workbench.ui.explore.strategy_panel import StrategyPanel
    from workbench.ui.model import WorkbenchModel

    model = WorkbenchModel(PRESETS["plain"], PRESETS["plain"])
    panel = StrategyPanel(model, "A")
    qtbot.addWidget(panel)
    seen = []
    model.strategyChanged.connect(lambda side, strategy: seen.append(strategy) if side == "A" else None)
    control = panel.steps.controls["reverse_hits"]
    assert isinstance(control, QCheckBox) and control.text() == "Reverse"
    assert control.toolTip() == "Reverse the hits: the worst-ranked first."
    control.setChecked(True)
    assert seen[-1].setting("reverse_hits") is True
    model.set_strategy("A", from_dict({"reverse_hits": False}, seen[-1]))
    assert not control.isChecked()


def test_the_built_in_steps_declare_the_window_and_command_line_knobs():
    from workbench.core.retrieve.steps.base import STEP_TYPES, step_knobs

    assert list(STEP_TYPES) == ["rerank", "summary", "per_doc_cap", "whole_documents"]
    assert [k.option for _, k in step_knobs()] == ["--rerank", "--rerank-parents", "--per-doc-cap",
                                                   "--whole-doc-tokens"]


@dataclass(frozen=True)
class KeepHits(Step):
    """A numeric step for this test only: the first ``keep_hits`` hits (0: all)."""

    kind: ClassVar[str] = "keep"
    order: ClassVar[int] = 60
    knobs: ClassVar[tuple[Knob, ...]] = (Knob("keep_hits", "Keep", 0, 10, 1, "Keep only the first hits, by rank.",
                                              special="all", cli_help="keep only the first N hits"),)

    keep_hits: int = 0

    @property
    def active(self):
        return self.keep_hits > 0

    def describe(self, strategy: Described) -> str:
        return f"first {self.keep_hits} hits kept" if self.active else ""

    def reorder_hits(self, run: Run, hits):
        return hits[: self.keep_hits] if self.active else None


@pytest.fixture
def keep_registered():
    register_step(KeepHits)
    yield KeepHits
    unregister_step(KeepHits.kind)


def test_a_registered_step_is_a_sweep_key_in_the_cli_table_and_the_lab(keep_registered, capsys, tmp_path, hash_cli,
                                                                        qtbot):
    """The step's number knob is a grid key of ``workbench eval`` and of the lab's *Sweep* field: each value a
    configuration, a row of the command line's table and of the lab's summary table."""
    from eval_support import sample_questions

    from workbench.core.evaluate.curves import sweep_configs
    from workbench.core.evaluate.datasets import save_question_set
    from workbench.ui.evaluate.eval_tables import fill_summary, make_table, summary_columns

    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    data, out = tmp_path / "data", tmp_path / "out"
    code, stdout, err = run_cli(capsys, "eval", tmp_path / "qs", "--strategy", "plain", "--top-k", "4",
                                "--grid", "keep_hits=0,1", "--data-dir", data, "--out", out)
    assert code == 0, err
    rows = {r["key"]: r for r in json.loads((out / "summary.json").read_text())["configs"]}
    assert set(rows) == {"plain · top-4 keep_hits=0", "plain · top-4 keep_hits=1"}, rows.keys()  # top-4: named so
    assert "plain · top-4 keep_hits=1" in stdout
    assert "first 1 hits kept" in rows["plain · top-4 keep_hits=1"]["description"]
    assert rows["plain · top-4 keep_hits=1"]["context_tokens"] < rows["plain · top-4 keep_hits=0"]["context_tokens"]

    lab = sweep_configs([PRESETS["plain"]], "keep_hits=0,1", None, [], budgets_field="Budgets")  # the lab's parse
    assert [c.strategy.setting("keep_hits") for c in lab] == [0, 1]
    table = make_table(summary_columns())
    qtbot.addWidget(table)
    fill_summary(table, list(rows.values()), {})
    shown = {table.item(i, 0).text(): table.item(i, 0).toolTip() for i in range(table.rowCount())}
    assert "first 1 hits kept" in shown["plain · top-4 keep_hits=1"]


def test_a_knob_says_what_it_does():
    with pytest.raises(ValueError, match="tooltip must say what it does in more than 30"):
        Knob("reverse_hits", "Reverse", 0, 1, 1, "Reverse the hits.")
