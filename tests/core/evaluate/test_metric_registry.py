"""Adding a metric is one ``register_metric``: a metric registered here (and only here) is summarised, exported,
compared and shown in the command line's table and the lab's tables."""

import json

import pytest
from cli_support import run_cli
from eval_support import sample_questions

from workbench.core.evaluate import metrics
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.metrics import Metric, QuestionMetrics, summarize
from workbench.core.evaluate.records import load_run
from workbench.core.evaluate.statistics import compare_paired
from workbench.core.workspace import Workspace


def _recall_squared(m: QuestionMetrics) -> float | None:
    return None if m.recall is None else m.recall ** 2


SQUARED = Metric("recall_squared", "recall squared", "recall² %", "points", _recall_squared, spread=True,
                 per_question=True)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(metrics.METRICS, SQUARED.name, SQUARED)  # removed again after the test
    return SQUARED


def test_register_refuses_a_taken_name():
    with pytest.raises(ValueError, match="registered twice"):
        metrics.register_metric(Metric("recall", "recall", "recall %", "points", lambda m: m.recall))


def test_a_registered_metric_reaches_the_cli_table_export_statistics_and_the_lab(registered, capsys, tmp_path,
                                                                                  hash_cli, qtbot):
    from workbench.ui.evaluate.eval_tables import (
        fill_questions,
        fill_summary,
        make_table,
        question_columns,
        summary_columns,
    )

    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    data, out = tmp_path / "data", tmp_path / "out"
    code, stdout, err = run_cli(capsys, "eval", tmp_path / "qs", "--strategy", "plain", "--top-k", "2",
                                "--data-dir", data, "--out", out)
    assert code == 0, err
    head = stdout.splitlines()[0]
    assert "recall² % ± sd" in head
    per_q = json.loads((out / "questions.json").read_text())
    assert all(f in per_q[0] for f in QuestionMetrics.__dataclass_fields__), "every recorded field is exported"
    assert all(r["recall_squared"] == pytest.approx(r["recall"] ** 2) for r in per_q if r["recall"] is not None)
    summary = json.loads((out / "summary.json").read_text())
    row = summary["configs"][0]
    expected = [r["recall"] ** 2 for r in per_q if r["recall"] is not None]
    assert row["recall_squared"] == pytest.approx(sum(expected) / len(expected))
    assert f"{100 * row['recall_squared']:.1f} ± " in stdout

    ws = Workspace(data)
    try:
        _info, results = load_run(ws, _only_run(capsys, data))
    finally:
        ws.close()
    stats = summarize([r.metrics for r in results[0].rows])
    assert stats["recall_squared"].mean == pytest.approx(row["recall_squared"])
    comparison = compare_paired(results[0].rows, results[0].rows)
    assert "recall squared" in comparison.metrics["recall_squared"].sentence()

    summary_table = make_table(summary_columns())
    qtbot.addWidget(summary_table)
    fill_summary(summary_table, [row], {})
    headings = [summary_table.horizontalHeaderItem(i).text() for i in range(summary_table.columnCount())]
    column = headings.index("recall² %")
    assert summary_table.item(0, column).text() == f"{100 * row['recall_squared']:.1f}"
    questions_table = make_table(question_columns())
    qtbot.addWidget(questions_table)
    fill_questions(questions_table, results[0].rows, {})
    headings = [questions_table.horizontalHeaderItem(i).text() for i in range(questions_table.columnCount())]
    column = headings.index("recall² %")
    first = results[0].rows[0].metrics
    assert questions_table.item(0, column).text() == ("-" if first.recall is None else f"{100 * first.recall ** 2:.1f}")


def _only_run(capsys, data) -> str:
    code, stdout, _ = run_cli(capsys, "runs", "--data-dir", data, "--json")
    assert code == 0
    (run,) = json.loads(stdout)
    return str(run["id"])


def test_a_registered_metric_can_be_the_advisors_objective(registered):
    from workbench.core.evaluate.advise.objective import objective_for, objective_names

    assert "recall_squared" in objective_names()
    goal = objective_for("recall_squared")
    assert goal.label == "recall squared" and goal.value(QuestionMetrics(0.5, 1, 1, True, 1, 1, 9, 9, 9, 9, 9)) == 0.25
