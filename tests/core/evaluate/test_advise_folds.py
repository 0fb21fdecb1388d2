"""Cross-fitted advice (``advise --folds K``) and the selection rules, on the hashed embedder: folds keep documents
together, no fold's search or selection ever reads its held questions, two folds are today's split, the rules
differ where they should, a stopped cross-fitted run resumes, and the Advise tab shows one row per fold."""

import json
import re

import numpy as np
import pytest
from advise_support import SMALL, topic_set

from workbench.cli import main
from workbench.core.evaluate.advise.advice import plan_advice, resume_advice, run_advice
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.selection import choose, simplicity
from workbench.core.evaluate.advise.space import Space, preset_params
from workbench.core.evaluate.advise.split import (
    FOLD_DOCUMENTS,
    default_folds,
    document_of,
    fold_questions,
    split_questions,
)
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.records import find_run
from workbench.core.jobs import Cancelled, CancelToken

pytest_plugins = ["ui_support"]

TINY = Space(chunkers=("fixed",), sizes=(32, 64), searches=("hybrid",), expansions=("none", "neighbours-1"),
             top_ks=(3,), budget=300)


# ----- folds ----------------------------------------------------------------------------------------------
def test_folds_keep_whole_documents_together_and_are_seeded(tmp_path):
    qset = topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS + 2)
    folds = fold_questions(qset, 5, seed=3)
    assert folds.method == "documents" and folds.k == 5
    assert sorted(i for f in folds.folds for i in f) == sorted(q.index for q in qset.questions), "each once"
    where = {}
    for f, fold in enumerate(folds.folds):
        for q in qset.questions:
            if q.index in fold:
                assert where.setdefault(document_of(q), f) == f, "a document's questions share one fold"
    assert fold_questions(qset, 5, seed=3) == folds and fold_questions(qset, 5, seed=4) != folds
    for f in range(5):
        assert not set(folds.training(f)) & set(folds.folds[f])
        assert set(folds.training(f)) | set(folds.folds[f]) == set(folds.everything())


def paragraph_set(root, documents=3, paragraphs=10):
    """``documents`` corpora of ``paragraphs`` paragraphs each, one question per paragraph (no two overlap)."""
    corpora, questions = {}, []
    for d in range(documents):
        paras = [f"Paragraph {p} of topic {d} talks about lantern{d}x{p} and meadow{d}x{p} at length." * 2
                 for p in range(paragraphs)]
        text = "\n\n".join(paras) + "\n"
        corpora[f"doc{d:02d}"] = text
        for para in paras:
            start = text.index(para)
            questions.append({"question": f"What about {para.split()[6]}?", "corpus_id": f"doc{d:02d}",
                              "references": [{"start_index": start, "end_index": start + len(para)}]})
    return save_question_set(root, questions, corpora)


def test_few_documents_give_stratified_folds_and_a_tiny_set_falls_back_to_two(tmp_path):
    qset = paragraph_set(tmp_path / "set")
    folds = fold_questions(qset, 5)
    assert folds.method == "stratified" and all(folds.folds)
    for fold in folds.folds:  # every fold draws from every corpus
        assert {document_of(q) for q in qset.questions if q.index in fold} == {"doc00", "doc01", "doc02"}
    assert default_folds(qset) == 5
    tiny = topic_set(tmp_path / "tiny", documents=2, per_doc=2)
    assert default_folds(tiny) == 2
    with pytest.raises(ValueError):
        fold_questions(tiny, 2)


def test_two_folds_are_todays_fit_confirm_split(tmp_path, hash_ws):
    qset = topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS)
    plan = plan_advice(hash_ws, qset, TINY, seed=7, folds=2)
    assert plan.folds is None and plan.split == split_questions(qset, seed=7)
    cross = plan_advice(hash_ws, qset, TINY, seed=7, folds=4)
    assert cross.split is None and cross.folds is not None and cross.folds.k == 4


def _deal_before_folds(groups, rng):
    """The fit/confirm deal as it was before K folds (kept here to pin ``--folds 2`` to it)."""
    order = list(range(len(groups)))
    rng.shuffle(order)
    order.sort(key=lambda i: -len(groups[i]))
    halves = ([], [])
    for i in order:
        sizes = len(halves[0]), len(halves[1])
        side = rng.randrange(2) if sizes[0] == sizes[1] else 0 if sizes[0] < sizes[1] else 1
        halves[side].extend(groups[i])
    return halves


def test_dealing_into_two_is_the_old_fit_confirm_deal():
    import random

    from workbench.core.evaluate.advise.split import _deal

    for seed in range(30):
        sizes = random.Random(seed).choices(range(1, 6), k=random.Random(seed + 100).randrange(2, 25))
        groups = [[f"g{g}q{i}" for i in range(n)] for g, n in enumerate(sizes)]
        assert _deal(groups, random.Random(seed)) == _deal_before_folds(groups, random.Random(seed))


# ----- out-of-fold bookkeeping -------------------------------------------------------------------------------
def out_line(cf) -> str:
    """The report's line that compares the rules."""
    return next(line for line in cf.lines() if line.startswith("each selection rule replayed"))



@pytest.mark.slow
def test_no_folds_pick_ever_saw_its_own_questions(tmp_path, hash_ws):
    qset = topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS + 2)
    plan = plan_advice(hash_ws, qset, SMALL, seed=1, time_limit_s=300, folds=4, rule="best")
    result = run_advice(hash_ws, plan)
    cf, folds = result.crossfit, plan.folds
    assert cf is not None and result.confirmation is None and len(cf.rows) == 4
    reads = cf.book.reads
    for f, held in enumerate(folds.folds):
        read = reads[f"fold {f + 1}"]
        assert read and not read & set(held), "fold f's search and selection read none of its held questions"
        assert read <= set(folds.training(f))
        assert all(t.fold == f for t in result.trials if t.fold == f)
        row = cf.rows[f]
        assert row.questions == len(held)
        recall, _, _ = cf.book.mean(row.pick, held)  # (a test's read: the run is over)
        assert row.held_score == pytest.approx(recall), "the held score is the pick's on the held questions"
    for rule in ("best", "one-se", "preset"):  # the rules replayed on the same folds read only training questions
        for f, held in enumerate(folds.folds):
            assert not reads[f"rule {rule}, fold {f + 1}"] & set(held)
    replayed = {o.rule: o for o in cf.rules}
    assert set(replayed) == {"best", "one-se", "preset"} and replayed["best"].versus_used is None
    assert replayed["best"].score == pytest.approx(cf.score), "the run's own rule replays to its own figure"
    assert list(replayed["best"].picks) == [r.pick for r in cf.rows]
    assert replayed["preset"].versus_used is not None and "this run's rule" in out_line(cf)
    assert sorted(r.q_index for r in cf.out_of_fold) == sorted(folds.everything()), "every question held once"
    assert cf.score == pytest.approx(np.nanmean([r.metrics.recall for r in cf.out_of_fold]))
    assert set(cf.comparisons) == {"plain@300", "hybrid@300"}
    assert all(c.metrics["recall"].comparisons == 2 for c in cf.comparisons.values()), "Holm over both"
    out = result.to_dict()
    assert out["out_of_fold_recall"] == pytest.approx(cf.score) and out["headline"]["kind"] == "out-of-fold"
    assert result.pick and cf.table[0].role == "final pick (in-sample)"
    text = "\n".join(result.lines())
    assert "in-sample" in text and re.search(r"headline: recall [\d.]+ at \d+ tokens, out-of-fold, 4 folds", text)
    info = find_run(hash_ws, result.run_id)
    assert info.config["advice"]["folds"] == folds.to_dict() and info.summary["crossfit"]["out_of_fold_recall"]
    # every configuration ran once on every question; the folds read it from the book
    assert len(cf.book.scores) == len({t.key for t in result.trials if t.state == "done"}) <= SMALL.size


@pytest.mark.slow
def test_a_stopped_cross_fitted_run_resumes_without_running_trials_again(tmp_path, hash_ws):
    qset = topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS)
    token = CancelToken()

    def stop_in_fold_two(event):
        if event.message.startswith("fold 2 of 3") or "searching for fold 2" in event.message:
            token.cancel()

    plan = plan_advice(hash_ws, qset, TINY, seed=2, time_limit_s=300, folds=3)
    with pytest.raises(Cancelled):
        run_advice(hash_ws, plan, progress=stop_in_fold_two, cancel=token)
    run = find_run(hash_ws, "last")
    assert run.summary["state"] == "stopped" and run.summary["book"]["recall"]
    first = [(t["fold"], t["key"]) for t in run.summary["trials"]]
    assert first and {f for f, _ in first} == {0}
    resumed = resume_advice(hash_ws, run.id, time_limit_s=300)
    pairs = [(t.fold, t.key) for t in resumed.trials]
    assert pairs[: len(first)] == first and len(pairs) == len(set(pairs)), "recorded trials kept, none twice"
    assert resumed.crossfit is not None and len(resumed.crossfit.rows) == 3
    assert find_run(hash_ws, run.id).summary["state"] == "done"


def test_cli_folds_json_names_the_out_of_fold_recall(tmp_path, capsys, hash_cli):
    topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS)
    code = main(["advise", str(tmp_path / "set"), "--data-dir", str(tmp_path / "data"), "--chunkers", "fixed",
                 "--sizes", "32", "--searches", "hybrid", "--expansions", "none,neighbours-1", "--top-k", "3",
                 "--budget", "300", "--folds", "3", "--rule", "one-se", "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert 0 <= data["out_of_fold_recall"] <= 1 and data["rule"] == "one-se" and data["split"] is None
    assert len(data["crossfit"]["fold_rows"]) == 3 and "hybrid@300" in data["crossfit"]["comparisons"]
    assert data["headline"]["measured_on"].startswith("out-of-fold, 3 folds")
    assert set(data["crossfit"]["stability"]) == {"chunker", "expansion"}
    assert "cross-fitted" in err and "selection rule one-se" in err
    assert main(["advise", str(tmp_path / "set"), "--data-dir", str(tmp_path / "data"), "--folds", "1"]) == 2


# ----- selection rules ------------------------------------------------------------------------------------
def test_the_rules_differ_where_they_should():
    space = Space(budget=1000)
    preset = preset_params(1000, space)[2]  # multi-granularity
    rng = np.random.default_rng(11)
    base = np.clip(rng.normal(0.7, 0.2, 40), 0, 1)
    params = {"best": {"chunker": "recursive", "size": 128, "search": "hybrid", "expansion": "segments", "top_k": 10},
              "simple": {"chunker": "fixed", "size": 200, "search": "dense", "expansion": "none", "top_k": 5},
              "preset": preset,
              "far": {"chunker": "fixed", "size": 64, "search": "dense", "expansion": "none", "top_k": 5}}
    values = {"best": np.clip(base + 0.05 + rng.normal(0, 0.3, 40), 0, 1),
              "simple": np.clip(base + 0.02 + rng.normal(0, 0.02, 40), 0, 1),
              "preset": base, "far": np.clip(base - 0.4, 0, 1)}
    trials = [Trial(i, params[name], "done", float(np.mean(values[name])), 900.0) for i, name in enumerate(params, 1)]
    by_key = {t.key: values[name] for t, name in zip(trials, params, strict=True)}
    assert trials[0].score == max(t.score for t in trials), "the constructed best is best"

    def pick(rule):
        return choose(rule, trials, lambda t: by_key[t.key], space).ranked[0]

    assert pick("best") is trials[0]
    assert pick("one-se") is trials[1], "the simplest within one standard error"
    chosen = choose("preset", trials, lambda t: by_key[t.key], space)
    assert chosen.kept_preset and chosen.ranked[0] is trials[2], "the preset stays: the best is not told apart"
    assert simplicity(trials[1]) < simplicity(trials[0])
    assert choose("one-se", trials[:1], lambda t: by_key[t.key], space).ranked[0] is trials[0]
    assert "within one standard error" in choose("one-se", trials, lambda t: by_key[t.key], space).how()
    with pytest.raises(ValueError):
        choose("worst", trials, lambda t: by_key[t.key], space)


# ----- the Advise tab ------------------------------------------------------------------------------------
def test_the_advise_tab_shows_one_row_per_fold_and_every_row_differs_from_hybrid(qtbot, make_window, hash_ws,
                                                                                    tmp_path):
    qset = topic_set(tmp_path / "set", documents=FOLD_DOCUMENTS)
    window = make_window(hash_ws)
    view = window.eval_view.advise
    plan = plan_advice(hash_ws, qset, TINY, seed=0, time_limit_s=300, folds=3)
    result = run_advice(hash_ws, plan)
    view.show_result(result)
    from test_advise_objective import same_report

    report = same_report(result, hash_ws)  # the report from the run's objects is the one its record gives
    assert report.crossfit and len(report.folds) == 3 and report.out_of_fold_versus_hybrid is not None
    assert view.fold_table.rowCount() == 3
    assert [view.fold_table.item(i, 0).text() for i in range(3)] == ["1", "2", "3"]
    assert all(view.fold_table.item(i, 4).text() not in ("", "-") for i in range(3)), "held-out recall per fold"
    summary = view.fold_summary.text()
    assert "Out-of-fold recall" in summary and "of 3" in summary and "against hybrid" in summary
    assert "Headline" in view.verdict.toPlainText() and "out-of-fold" in view.verdict.toPlainText()
    keys = [view.table.item(i, 0).text() for i in range(view.table.rowCount())]
    assert any(k.startswith("plain@") for k in keys) and "in-sample" in view.table_title.text()
    assert view.lower_tabs.tabText(0) == "All questions"  # not "Confirm": the final pick was chosen on them
    for i, key in enumerate(keys):  # the reference rows show their differences too
        cell = view.table.item(i, 6).text()
        assert cell == "(itself)" if key.startswith("hybrid@") else re.search(r"\[.*\]", cell), (key, cell)
    # the plot: the search on all questions only (the folds' trial numbers start again in each fold), in-sample
    assert view.plot.trials and all(t.fold is None for t in view.plot.trials)
    assert len({t.number for t in view.plot.trials}) == len(view.plot.trials)
    assert any(t.fold is not None for t in result.trials)
    assert view.plot.view.getPlotItem().titleLabel.text.startswith("all questions, in-sample")
    view.open_record(result.run_id)
    assert view.fold_table.rowCount() == 3, "a recorded cross-fitted run reopens with its folds"
    assert all(t.fold is None for t in view.plot.trials)
