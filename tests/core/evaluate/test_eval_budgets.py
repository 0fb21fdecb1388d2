"""``workbench eval --budgets``: one row per (strategy, budget), the curves and their summary figures."""

import json

import pytest
from eval_support import sample_questions

from workbench.cli import main
from workbench.core.evaluate.curves import CurvePoint, area_under, make_curve, parse_budgets, recall_at
from workbench.core.evaluate.datasets import save_question_set


def point(tokens, recall, budget=0):
    return CurvePoint(budget, f"b{budget}", recall, 0.0, tokens)


def test_recall_at_interpolates_and_stays_flat_after_the_last_point():
    points = [point(500, 0.6), point(1500, 0.8)]
    assert recall_at(points, 1000) == pytest.approx(0.7)
    assert recall_at(points, 250) == pytest.approx(0.3)  # from (0, 0)
    assert recall_at(points, 3000) == pytest.approx(0.8)


def test_area_is_the_mean_recall_over_0_to_2000_tokens_by_trapezoids():
    assert area_under([point(2000, 1.0)]) == pytest.approx(0.5)  # a straight line from (0, 0)
    # (0,0)-(1000,0.8): 400; (1000,0.8)-(2000,0.8) flat: 800 → 1200 / 2000
    assert area_under([point(1000, 0.8)]) == pytest.approx(0.6)
    # a point beyond the limit is interpolated at 2,000: recall 0.5 there, area 500 / 2000
    assert area_under([point(4000, 1.0)]) == pytest.approx(0.25)
    curve = make_curve([point(1500, 0.8, 2), point(500, 0.6, 1)])
    assert [p.budget for p in curve.points] == [1, 2] and curve.recall_at_1000 == pytest.approx(0.7)


def test_budgets_are_checked():
    assert parse_budgets("250, 500,250") == [250, 500]
    for bad in ("", "0,100", "a,b"):
        with pytest.raises(ValueError, match="--budgets"):
            parse_budgets(bad)


def test_eval_budgets_gives_a_row_per_strategy_and_budget_and_the_curves(capsys, tmp_path, hash_cli):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    budgets = [40, 80, 160]
    code = main(["eval", str(tmp_path / "qs"), "--strategy", "plain", "--strategy", "segments-balanced",
                 "--chunk-size", "40", "--top-k", "8", "--budgets", ",".join(map(str, budgets)),
                 "--data-dir", str(tmp_path / "data"), "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    rows = data["rows"]
    names = [rows[0]["strategy"], rows[-1]["strategy"]]  # changed on the command line: named by what differs
    assert names[0].startswith("plain · ") and names[1].startswith("segments-balanced · ")
    assert all("40 tok" in n and "top-8" in n for n in names)
    assert [(r["strategy"], r["budget"]) for r in rows] == [(s, b) for s in names for b in budgets]
    for r in rows:
        assert r["context_tokens"] <= r["budget"]
    assert [c["key"] for c in data["curves"]] == names
    for c in data["curves"]:
        assert len(c["points"]) == len(budgets) and 0 <= c["auc_2000"] <= c["recall_at_1000"] <= 1
        assert c["corpora"] and all("auc_2000" in v for v in c["corpora"].values())
    code = main(["eval", str(tmp_path / "qs"), "--strategy", "plain", "--chunk-size", "40", "--top-k", "8",
                 "--budgets", "80", "--data-dir", str(tmp_path / "data"), "--quiet"])
    out, _ = capsys.readouterr()
    assert code == 0 and f"{names[0]} budget=80" in out and "recall@1000" in out and "AUC" in out
