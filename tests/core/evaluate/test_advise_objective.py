"""Any registered metric as the advisor's objective (``advise --objective METRIC``): the search, the selection,
the verdict, the report, the JSON and the Advise tab all read the metric asked for; one that cannot be
maximised is refused in one line naming those that can; a record or score book written before objectives reads
as recall. On the hashed embedder with a tiny space."""

import json
import math
from dataclasses import replace

import pytest
from advise_support import topic_set
from test_advise_folds import TINY

from workbench.cli import main
from workbench.core.evaluate.advise.advice import plan_advice, resume_advice, run_advice
from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.objective import objective_for, objective_names
from workbench.core.evaluate.advise.optimise import Trial, done_trials
from workbench.core.evaluate.advise.report import AdviceReport
from workbench.core.evaluate.advise.split import DOCUMENT_GROUPS
from workbench.core.evaluate.metrics import METRICS
from workbench.core.evaluate.records import find_run
from workbench.core.evaluate.sweep import SweepConfig, run_sweep

pytest_plugins = ["ui_support"]


def test_the_metrics_that_qualify_and_a_refusal_names_them():
    assert objective_names() == ["recall", "precision", "iou", "hit_rate", "mrr"]
    assert all(METRICS[n].higher_is_better is True for n in objective_names())
    for bad in ("context_tokens", "context_chars", "nope"):
        with pytest.raises(ValueError, match=r"choose from recall, precision, iou, hit_rate, mrr$"):
            objective_for(bad)
    assert objective_for("iou").label == "IoU" and objective_for("mrr").figure(0.5) == "0.500"
    assert objective_for("IoU").name == "iou" and objective_for("Hit Rate").name == "hit_rate", "a label reads too"


def test_advise_refuses_context_tokens_as_its_objective_in_one_line_and_creates_nothing(tmp_path, capsys):
    data = tmp_path / "data"
    topic_set(tmp_path / "set", documents=2, per_doc=2)
    code = main(["advise", str(tmp_path / "set"), "--objective", "context_tokens", "--data-dir", str(data)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "cannot optimise 'context_tokens'" in err and "recall, precision, iou, hit_rate, mrr" in err
    assert not data.exists(), "a refused run creates nothing"


@pytest.fixture(scope="module")
def iou_run(tmp_path_factory, hash_embedder):
    """``(workspace, plan, result)``: one advice run on IoU (rule ``best``, fit/confirm halves), shared by the
    tests that read it."""
    from workbench.core.workspace import Workspace

    root = tmp_path_factory.mktemp("iou")
    ws = Workspace(root / "data", embedder=hash_embedder)
    qset = topic_set(root / "set", documents=DOCUMENT_GROUPS)
    plan = plan_advice(ws, qset, TINY, seed=1, time_limit_s=300, folds=2, rule="best", objective_name="iou")
    yield ws, plan, run_advice(ws, plan)
    ws.close()


def test_iou_is_what_the_advisor_optimises_and_what_it_says(iou_run):
    hash_ws, plan, result = iou_run
    assert plan.lines()[0].endswith("optimising IoU")
    done = done_trials(result.trials)
    assert len(done) == TINY.size
    fit, _ = plan.halves()  # every trial's score is its mean IoU on the fit half, not its recall
    sweep = run_sweep(hash_ws, fit, [SweepConfig(t.key, TINY.strategy(t.params), "check") for t in done])
    by_key = {cr.config.key: cr.summary for cr in sweep.results}
    for t in done:
        assert t.score == pytest.approx(by_key[t.key]["iou"].mean)
    assert any(not math.isclose(by_key[t.key]["iou"].mean, by_key[t.key]["recall"].mean) for t in done), \
        "the set tells IoU from recall"
    best_iou = max(by_key[t.key]["iou"].mean for t in done)
    assert result.selection is not None and result.selection.best is not None
    assert by_key[result.selection.best.key]["iou"].mean == pytest.approx(best_iou), "the pick maximises IoU"
    pick = result.confirmation.rows[0]
    assert pick.score == pytest.approx(result.confirmation.sweep.results[0].summary["iou"].mean)
    comparison = next(iter(result.confirmation.comparisons.values()))["hybrid@300"]
    assert set(comparison.metrics) == {"iou", "context_tokens"}, "paired on the objective and the tokens"

    text = "\n".join(result.lines())
    assert "optimising IoU" in text and "(IoU % against mean context tokens" in text
    assert "headline: IoU " in text and "IoU" in result.confirmation.verdict
    data = json.loads(json.dumps(result.to_dict()))
    assert data["objective"] == "iou" and data["objective_label"] == "IoU"
    assert "iou" in data["headline"] and "recall" not in data["headline"]
    assert all("iou" in t and "recall" not in t for t in data["trials"])
    assert all("iou" in r and "fit_iou" in r for r in data["confirm"]["rows"])
    assert "IoU" in data["selection"]["rule"] and data["units"].startswith("iou is a fraction")
    info = find_run(hash_ws, result.run_id)
    assert info.config["advice"]["objective"] == "iou" and info.summary["objective"] == "iou"
    assert [Trial.from_dict(t, "iou").score for t in info.summary["trials"]] == [t.score for t in result.trials]


def test_a_resumed_run_keeps_its_objective(iou_run):
    ws, _, result = iou_run
    with pytest.raises(ValueError, match=r"optimised iou; a resumed run keeps its objective"):
        resume_advice(ws, result.run_id, 30, objective_name="recall")


def same_report(result, ws) -> AdviceReport:
    """The report read from the run's objects, checked equal to the one read from its JSON and from its record
    (the trials' seconds are rounded there)."""
    live = AdviceReport.from_result(result)
    budget = result.plan.space.budget
    for summary in (json.loads(json.dumps(result.to_dict())), find_run(ws, result.run_id).summary):
        read = AdviceReport.from_record(summary, budget)
        assert read.rows and replace(read, trials=()) == replace(live, trials=())
        assert [(t.number, t.key, t.score, t.tokens, t.fold) for t in read.trials] == \
            [(t.number, t.key, t.score, t.tokens, t.fold) for t in live.trials]
    return live


def test_the_report_the_window_reads_is_the_same_from_the_run_and_from_its_record(iou_run):
    ws, _, result = iou_run
    report = same_report(result, ws)
    assert report.objective.name == "iou" and report.headline is not None and not report.crossfit
    assert report.rows[0].score == result.confirmation.rows[0].score
    assert [r.is_hybrid for r in report.rows].count(True) == 1
    assert all(r.versus_hybrid is not None for r in report.rows if not r.is_hybrid)
    old = json.loads(json.dumps(result.to_dict()).replace('"iou"', '"recall"').replace('fit_iou', 'fit_recall'))
    del old["objective"]  # as a record written before objectives: recall under "recall"
    assert AdviceReport.from_record(old, 300).rows[0].score == report.rows[0].score


def test_a_book_written_before_objectives_reads_as_recall(tmp_path):
    qset = topic_set(tmp_path / "set", documents=2, per_doc=1)
    questions = [q.index for q in qset.questions]
    old = {"questions": questions, "recall": {"a": [0.5, None]}, "tokens": {"a": [10.0, 20.0]}}
    book = ScoreBook(qset)
    book.restore(old)
    assert "a" in book and book.mean("a", questions)[0] == 0.5
    iou = ScoreBook(qset, objective_for("iou"))
    iou.restore(old)
    assert "a" not in iou, "recall figures are not read as IoU"
    iou.scores["b"], iou.tokens["b"] = [0.25, 0.75], [1.0, 2.0]
    again = ScoreBook(qset, objective_for("iou"))
    again.restore(iou.to_dict())
    assert again.mean("b", questions)[0] == 0.5 and iou.to_dict()["objective"] == "iou"


def test_the_advise_tab_picks_the_objective_and_labels_the_plot_and_tables_by_it(qtbot, make_window, iou_run):
    ws, plan, result = iou_run
    view = make_window(ws).eval_view.advise
    assert view.objective.currentData() == "recall"
    assert [view.objective.itemData(i) for i in range(view.objective.count())] == objective_names()
    view.show_result(result)
    item = view.plot.view.getPlotItem()
    assert item.getAxis("left").labelText == "IoU (%)" and "IoU vs context" in item.titleLabel.text
    headers = [view.table.horizontalHeaderItem(j).text() for j in range(view.table.columnCount())]
    assert headers[2] == "fit IoU % (in-sample)" and headers[4] == "IoU %"
    assert view.table.item(0, 4).text() == f"{100 * result.confirmation.rows[0].score:.1f}"
    assert view.verdict.toPlainText().startswith("Headline: IoU ")


def test_cli_advise_objective_iou_says_what_it_optimised(tmp_path, capsys, hash_cli):
    topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS)
    code = main(["advise", str(tmp_path / "set"), "--data-dir", str(tmp_path / "data"), "--chunkers", "fixed",
                 "--sizes", "32", "--searches", "hybrid", "--expansions", "none", "--top-k", "3", "--budget", "300",
                 "--folds", "2", "--objective", "iou", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "optimising IoU" in out and "\nheadline: IoU " in out and "fit IoU" in out
    assert "recall" not in out.split("confirm half:")[0], "the search's figures are IoU"


@pytest.mark.slow
def test_the_picked_objective_is_what_the_tab_runs(qtbot, make_window, hash_ws, tmp_path):
    topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS)
    window = make_window(hash_ws)
    lab = window.eval_view
    assert lab.load_question_set(tmp_path / "set")
    view = lab.advise
    view.space_for = lambda budget: replace(TINY, budget=budget)
    view.budget.setValue(300)
    view.folds.setValue(2)
    view.objective.setCurrentIndex(view.objective.findText("IoU"))
    with qtbot.waitSignal(view.strategySaved, timeout=120_000):
        assert view.start()
    assert view.verdict.toPlainText().startswith("Headline: IoU ")
    run = find_run(hash_ws, view.recorded.currentData())
    assert run.config["advice"]["objective"] == "iou" and "optimising IoU" in view.log.toPlainText()
