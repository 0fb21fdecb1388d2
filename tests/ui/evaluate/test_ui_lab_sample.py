"""A question limit is a sample, not the first rows: the lab's limit takes a stratified sample by corpus
(seeded: the same every time), says so, and records which questions it ran so the run can be run again."""

from __future__ import annotations

from collections import Counter

from ui_support import sample_set

from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.records import find_run

pytest_plugins = ["ui_support"]


def test_a_stratified_sample_takes_each_corpus_its_share_the_same_every_time(tmp_path):
    qset = load_question_set(sample_set(tmp_path))
    per_corpus = Counter(q.corpus_id for q in qset.questions)
    n = len(per_corpus)
    first = Counter(q.corpus_id for q in qset.subset(limit=n).questions)
    assert len(first) < n, "the first rows come from fewer corpora (the old limit)"
    sample = qset.stratified(n, seed=0)
    assert Counter(q.corpus_id for q in sample.questions) == Counter(dict.fromkeys(per_corpus, 1))
    assert [q.index for q in sample.questions] == sorted(q.index for q in sample.questions), "order kept"
    assert sample.questions == qset.stratified(n, seed=0).questions, "seeded"
    assert len(qset.stratified(len(qset.questions) + 5).questions) == len(qset.questions)
    bigger = Counter(q.corpus_id for q in qset.stratified(n + 1).questions)
    assert sum(bigger.values()) == n + 1 and set(bigger) == set(per_corpus)
    assert all(bigger[c] <= per_corpus[c] for c in per_corpus)


def test_the_labs_limit_runs_a_stratified_sample_and_says_so(qtbot, make_window, hash_ws, tmp_path):
    window = make_window(hash_ws)
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    whole = window.model.question_set
    corpora = {q.corpus_id for q in whole.questions}
    view.limit.setValue(len(corpora))
    with qtbot.waitSignal(view.runFinished, timeout=180_000):
        assert view.start([hash_ws.records.resolve_strategy("plain")], grid="")
        status = view.sweep.inputs.status.text()
    assert f"{len(corpora)} of {len(whole.questions)} questions, stratified by corpus" in status
    asked = {r.question for r in view.results[0].rows}
    assert {q.corpus_id for q in whole.questions if q.question in asked} == corpora
    selection = find_run(hash_ws, window.model.run.run_id).config["dataset"]["selection"]
    assert selection["sample"] == "stratified, seed 0" and len(selection["questions"]) == len(corpora)
