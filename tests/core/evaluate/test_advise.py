"""The strategy advisor: the split, the space, the cost model, the search under a time limit, the confirm half's
verdict, the saved pick, the record and resuming it. Plumbing on the hashed embedder with small spaces."""

import json
import re

import numpy as np
import pytest
from advise_support import SMALL, topic_set
from fake_embedder import HashEmbedder

from workbench.cli import main
from workbench.commands.advise import parse_duration
from workbench.core.evaluate.advise.advice import pareto_front, plan_advice, resume_advice, run_advice
from workbench.core.evaluate.advise.confirm import ConfirmRow, _verdict, fixed_rows
from workbench.core.evaluate.advise.costs import Costs
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.space import Space, baseline, chunk_config, coarse_levels, preset_params
from workbench.core.evaluate.advise.split import DOCUMENT_GROUPS, document_of, split_questions
from workbench.core.evaluate.baseline import holm_adjust
from workbench.core.evaluate.datasets import index_corpora, load_question_set
from workbench.core.evaluate.metrics import QuestionMetrics
from workbench.core.evaluate.records import find_run, load_run
from workbench.core.evaluate.statistics import compare_paired
from workbench.core.evaluate.sweep import QuestionResult
from workbench.core.jobs import Cancelled, CancelToken
from workbench.core.store import Scope
from workbench.core.workspace import Workspace


@pytest.fixture
def advice_ws(tmp_path):
    ws = Workspace(tmp_path / "data", embedder=HashEmbedder())
    yield ws
    ws.close()


# ----- split ---------------------------------------------------------------------------------------------
def test_whole_documents_stay_together_and_the_split_is_seeded(tmp_path):
    qset = topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS + 3, per_doc=2)
    split = split_questions(qset, seed=3)
    assert split.method == "documents"
    fit, confirm = split.halves(qset)
    fit_docs, confirm_docs = {document_of(q) for q in fit.questions}, {document_of(q) for q in confirm.questions}
    assert not fit_docs & confirm_docs, "no document has questions in both halves"
    assert set(split.fit) | set(split.confirm) == {q.index for q in qset.questions}
    assert abs(len(split.fit) - len(split.confirm)) <= 2
    assert split_questions(qset, seed=3) == split, "the same seed gives the same split"
    assert any(split_questions(qset, seed=s) != split for s in range(4, 10))
    assert fit.searched_corpora() == qset.searched_corpora(), "both halves search every corpus of the set"


def test_few_documents_are_stratified_and_overlapping_references_stay_together(tmp_path):
    qset = topic_set(tmp_path / "set", documents=3, per_doc=6)  # each paragraph asked about twice
    split = split_questions(qset, seed=0)
    assert split.method == "stratified"
    for fit_n, confirm_n in split.per_corpus.values():
        assert abs(fit_n - confirm_n) <= 2, split.per_corpus
    side = {i: "fit" for i in split.fit} | {i: "confirm" for i in split.confirm}
    by_reference = {}
    for q in qset.questions:
        by_reference.setdefault((q.corpus_id, q.references[0].start), set()).add(side[q.index])
    assert all(len(sides) == 1 for sides in by_reference.values()), "questions about one passage stay together"


def test_one_question_on_each_of_a_few_documents_still_splits_in_two(tmp_path):
    qset = topic_set(tmp_path / "set", documents=3, per_doc=1)  # stratified: each document's one question
    for seed in range(12):  # dealt per document, every question once fell on one side (0 fit questions)
        split = split_questions(qset, seed=seed)
        assert split.fit and split.confirm and len(split.fit) + len(split.confirm) == 3, seed
    assert split_questions(qset, seed=5) == split_questions(qset, seed=5)
    one = topic_set(tmp_path / "one", documents=1, per_doc=4)  # questions 0 and 3 ask about one passage
    with pytest.raises(ValueError, match="split in two"):
        split_questions(one.subset(indexes=[0, 3]), seed=0)


# ----- space and baselines -------------------------------------------------------------------------------
def test_every_configuration_runs_at_the_budget_and_the_presets_are_points_of_it():
    space = Space(budget=1000)
    sizes = set()
    for params in space.configurations():
        if params["chunker"] in ("semantic", "cluster_semantic", "late"):
            continue
        strategy = space.strategy(params)
        assert strategy.budget == 1000 and strategy.top_k == params["top_k"]
        assert strategy.chunk_size == params["size"]
        if params["expansion"] == "multi-granularity":
            assert strategy.search_config.coarse and all(level.size != params["size"]
                                                          for level in strategy.search_config.coarse)
        sizes.add(strategy.chunk_size)
    assert sizes == set(space.sizes)
    assert coarse_levels(64) == "100:1+200:1", "multi-granularity over 64-token chunks is the preset's"
    multi = space.strategy(preset_params(1000, space)[2])
    from workbench.core.retrieve.strategy.presets import PRESETS

    assert multi.chunk_configs() == PRESETS["multi-granularity"].chunk_configs()
    plain = baseline("plain", 1000)
    assert plain.budget == 1000 and plain.top_k * plain.chunk_size > 1000 and plain.name == "plain@1000"
    assert Space.from_dict(space.to_dict()) == space
    with pytest.raises(ValueError, match="chunkers"):
        Space(chunkers=("nope",))


# ----- cost model ----------------------------------------------------------------------------------------
def test_the_estimate_matches_the_built_set_and_a_built_set_costs_nothing(tmp_path, advice_ws):
    qset = topic_set(tmp_path / "set", documents=4)
    scope = Scope.of(index_corpora(advice_ws, qset).values())
    costs = Costs.for_scope(advice_ws, scope)
    for config in (chunk_config("fixed", 32), chunk_config("recursive", 64)):
        estimate = costs.estimate(config)
        assert estimate.seconds > 0 and estimate.to_embed <= estimate.chunks  # repeated texts embed once
        info = advice_ws.sets.ensure_chunk_set(config, scope=scope)
        assert info.chunk_count == estimate.chunks, "chunks are counted by cutting, before anything is embedded"
        assert costs.estimate(config).seconds == 0 and costs.build_seconds([config, config]) == 0
    again = Costs.for_scope(advice_ws, scope).estimate(chunk_config("fixed", 48))
    assert again.to_embed <= again.chunks
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "big.md").write_text("word " * 20000, encoding="utf-8")
    advice_ws.add_documents([str(tmp_path / "mine")])
    with_mine = Costs.for_scope(advice_ws, scope).estimate(chunk_config("fixed", 48))
    assert (with_mine.chunks, with_mine.to_embed) == (again.chunks, again.to_embed), \
        "the folder's other documents do not count for the scope"
    whole = advice_ws.sets.estimate_chunk_set(chunk_config("fixed", 48))
    assert whole.chunks > with_mine.chunks + 100, "the folder's own set would cut them too"


# ----- search, confirm, save, record ---------------------------------------------------------------------
@pytest.mark.slow
def test_advise_end_to_end_saves_the_pick_and_records_every_trial(tmp_path, advice_ws):
    qset = topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS + 2)
    events = []
    plan = plan_advice(advice_ws, qset, SMALL, seed=2, time_limit_s=300, progress=events.append)
    assert any("fixed" in line and "32" in line for line in plan.lines()), "the plan lists the chunkings"
    assert "configurations at 300 tokens" in "\n".join(plan.lines())
    result = run_advice(advice_ws, plan, progress=events.append)
    done = [t for t in result.trials if t.state == "done"]
    assert len({tuple(t.params.values()) for t in done}) == len(done) == SMALL.size, "each tried once"
    assert result.stopped == "exhausted"
    assert all(t.tokens <= 300 for t in done), "every configuration runs at the budget"
    best = max(done, key=lambda t: t.score)
    assert result.pareto[-1].score == best.score
    for t in done:  # nothing on the front is beaten on both axes
        assert not any(p for p in result.pareto if t.score > p.score and t.tokens < p.tokens)
    conf = result.confirmation
    assert [r.role for r in conf.rows][:3] == ["pick", "runner-up", "third"]
    assert conf.questions == len(plan.split.confirm)
    assert len([c for by in conf.comparisons.values() for c in by.values()]) == 6
    assert result.pick == "advised-set"
    saved = advice_ws.records.saved_strategies()["advised-set"]
    assert saved.chunk == conf.pick.strategy.chunk and saved.budget == 300
    assert advice_ws.search("What about harbour?", "advised-set").strategy.name == "advised-set"
    info = find_run(advice_ws, result.run_id)
    assert info.kind == "advice" and info.summary["state"] == "done" and info.summary["pick"] == "advised-set"
    assert len(info.summary["trials"]) == len(result.trials)
    advice = info.config["advice"]
    assert advice["split"]["fit"] == list(plan.split.fit) and advice["space"] == SMALL.to_dict()
    assert advice["seed"] == 2 and advice["budget"] == 300
    _, results = load_run(advice_ws, result.run_id)
    assert [r.config.key for r in results] == [r.key for r in conf.rows], "the confirm rows are the run's rows"
    assert any("trial 1:" in e.message for e in events), "progress names each trial"


def test_the_time_limit_is_honoured_and_a_stopped_run_resumes_without_running_trials_again(tmp_path, advice_ws):
    qset = topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS)
    token = CancelToken()

    def stop_after_three(event):
        if re.match(r"trial 3: .* → recall", event.message):
            token.cancel()

    plan = plan_advice(advice_ws, qset, SMALL, seed=5, time_limit_s=300)
    with pytest.raises(Cancelled):
        run_advice(advice_ws, plan, progress=stop_after_three, cancel=token)
    run = next(r for r in (find_run(advice_ws, "last"),) if r.kind == "advice")
    assert run.summary["state"] == "stopped" and len(run.summary["trials"]) == 3
    first = [t["key"] for t in run.summary["trials"]]
    resumed = resume_advice(advice_ws, run.id, time_limit_s=300)
    keys = [t.key for t in resumed.trials]
    assert keys[:3] == first and len(keys) == len(set(keys)), "the recorded trials are kept, none run twice"
    assert resumed.run_id == run.id and find_run(advice_ws, run.id).summary["state"] == "done"

    out_of_time = plan_advice(advice_ws, qset, SMALL, seed=5, time_limit_s=1e-3, name="late-pick")
    nothing = run_advice(advice_ws, out_of_time)
    assert nothing.stopped == "time" and not [t for t in nothing.trials if t.state == "done"]
    assert nothing.pick == "" and "late-pick" not in advice_ws.records.saved_strategies(), "nothing tried: none saved"
    assert any("nothing saved" in line for line in nothing.lines())
    assert find_run(advice_ws, nothing.run_id).summary.get("pick", "") == ""


def test_a_configuration_whose_chunk_sets_cannot_be_built_in_time_is_skipped(tmp_path, advice_ws, monkeypatch):
    import workbench.core.index.estimate as estimate

    qset = topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS)
    scope = Scope.of(index_corpora(advice_ws, qset).values())
    advice_ws.sets.ensure_chunk_set(chunk_config("fixed", 32), scope=scope)  # built: free
    for _, _, strategy in fixed_rows(SMALL.budget):  # the confirm half's baselines: built, so nothing to reserve
        for config in strategy.chunk_configs():
            advice_ws.sets.ensure_chunk_set(config, scope=scope)
    monkeypatch.setattr(estimate, "embedding_rate", lambda _store, _model: 1e-4)  # every other set: days
    plan = plan_advice(advice_ws, qset, SMALL, seed=1, time_limit_s=120)
    result = run_advice(advice_ws, plan)
    ran = {(t.params["chunker"], t.params["size"]) for t in result.trials if t.state == "done"}
    assert ran == {("fixed", 32), ("fixed", 64)}, "only chunkings built before (64: multi-granularity's own) ran"
    skipped = [t for t in result.trials if t.state == "skipped"]
    assert skipped and all("to build" in t.note for t in skipped)
    advice_ws.remove_paths([str(qset.root / "corpora" / "doc00.md")])  # a new scope: nothing built for it
    other = topic_set(tmp_path / "other", documents=DOCUMENT_GROUPS, seed=9)
    short = plan_advice(advice_ws, other, SMALL, seed=1, time_limit_s=60)
    assert any("longer than the time limit" in line for line in short.lines()), "the plan says it will run over"


# ----- the verdict ---------------------------------------------------------------------------------------
def _rows(values):
    return [QuestionResult(i, f"q{i}", "c", [], QuestionMetrics(v, v, v, v > 0, 1.0, 1, 900, 3600, 10, 10,
                                                                 round(10 * v))) for i, v in enumerate(values)]


def _judge(pick_recall, hybrid_recall, n=60):
    rng = np.random.default_rng(4)
    noise = rng.normal(0, 0.05, n)
    pick = _rows(np.clip(pick_recall + noise, 0, 1))
    hybrid = _rows(np.clip(hybrid_recall + rng.normal(0, 0.05, n), 0, 1))
    plain = _rows(np.clip(hybrid_recall - 0.3 + noise, 0, 1))
    comps = {"#1 x": {"plain@1000": compare_paired(plain, pick, ("recall", "context_tokens")),
                      "hybrid@1000": compare_paired(hybrid, pick, ("recall", "context_tokens"))}}
    holm_adjust(list(comps["#1 x"].values()))
    rows = [ConfirmRow("#1 x", "pick (best on fit)", baseline("hybrid", 1000), float(np.mean(pick_recall)),
                       900, 0.9, 900),
            ConfirmRow("plain@1000", "baseline", baseline("plain", 1000), 0.5, 900),
            ConfirmRow("hybrid@1000", "baseline", baseline("hybrid", 1000), float(hybrid_recall), 900)]
    return _verdict(rows, comps, 1000, n)


def test_the_verdict_never_names_a_winner_the_confirm_half_cannot_tell_apart():
    pick, verdict, mdd = _judge(0.80, 0.79)
    assert pick.key == "#1 x" and "not distinguishable from hybrid@1000" in verdict
    assert re.search(r"60 questions detect about \d+ points", verdict) and mdd > 0
    assert "better than hybrid" not in verdict
    pick, verdict, _ = _judge(0.90, 0.60)
    assert "better than hybrid@1000" in verdict and "best on fit" in verdict
    pick, verdict, _ = _judge(0.50, 0.85)
    assert pick.key == "hybrid@1000" and "worse than hybrid@1000" in verdict and "is the pick" in verdict


def test_the_best_preset_stays_the_pick_unless_the_fit_half_tells_a_better_one_apart():
    from workbench.core.evaluate.advise.selection import select
    from workbench.core.evaluate.sweep import ConfigResult, SweepConfig

    space = Space(budget=1000)
    preset_params_ = preset_params(1000, space)[2]  # multi-granularity
    other = {"chunker": "recursive", "size": 100, "search": "hybrid", "expansion": "none", "top_k": 10}
    rng = np.random.default_rng(7)
    base = np.clip(rng.normal(0.8, 0.2, 80), 0, 1)

    def trial(number, params, values):
        t = Trial(number, params, "done", float(np.mean(values)), 900.0)
        return t, ConfigResult(SweepConfig(t.key, space.strategy(params), "advise", params), _rows(values))

    preset, preset_rows = trial(1, preset_params_, base)
    close, close_rows = trial(2, other, np.clip(base + rng.normal(0.01, 0.05, 80), 0, 1))
    chosen = select(None, None, [preset, close], space, rows={preset.key: preset_rows, close.key: close_rows},
                    rule="preset")
    assert close.score > preset.score and chosen.kept_preset and chosen.ranked[0] is preset
    assert "kept because the best on fit" in chosen.how() and "could not be told apart" in chosen.how()
    far, far_rows = trial(3, {**other, "top_k": 20}, np.clip(base + 0.15, 0, 1))
    chosen = select(None, None, [preset, close, far], space,
                    rows={preset.key: preset_rows, close.key: close_rows, far.key: far_rows}, rule="preset")
    assert not chosen.kept_preset and chosen.ranked[0] is far and chosen.how().startswith("best on fit")


# ----- saved strategies are data ---------------------------------------------------------------------------
def test_a_saved_strategy_names_no_code_that_runs_without_consent(tmp_path, advice_ws, capsys, hash_cli):
    from workbench.core.consent import NotTrusted
    from workbench.core.retrieve.strategy.presets import resolve

    custom = resolve({"preset": "plain", "chunker": "custom:no_such_module_xyz:cut"})
    advice_ws.records.save_strategy("mine", custom, source="test")
    loaded = advice_ws.records.saved_strategies()["mine"]  # reading it imports nothing
    assert "no_such_module_xyz" in loaded.chunk.chunker
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nSome text about lanterns.\n", encoding="utf-8")
    advice_ws.add_paths([str(tmp_path / "docs")])
    with pytest.raises(NotTrusted):
        advice_ws.search("lanterns", "mine")
    code = main(["search", "lanterns", "--strategy", "mine", "--data-dir", str(advice_ws.data_dir), "--quiet"])
    assert code != 0 and "--trust-custom" in capsys.readouterr().err
    for bad in ("plain", "has space", ""):
        with pytest.raises(ValueError):
            advice_ws.records.save_strategy(bad, custom)


def test_cli_advise_json_pick_time_limit_and_strategy_name(tmp_path, capsys, hash_cli):
    topic_set(tmp_path / "set", documents=DOCUMENT_GROUPS)
    data = tmp_path / "data"
    code = main(["advise", str(tmp_path / "set"), "--data-dir", str(data), "--chunkers", "fixed", "--sizes", "32,64",
                 "--searches", "hybrid", "--expansions", "none", "--top-k", "3,5", "--budget", "300",
                 "--time-limit", "2m", "--name", "topic-pick", "--folds", "2", "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data_json = json.loads(out)
    assert data_json["pick"] == "topic-pick" and data_json["split"]["fit"] + data_json["split"]["confirm"] == 24
    assert "space:" in err, "the plan is shown before the search (on stderr with --json)"
    assert main(["search", "What about harbour?", "--strategy", "topic-pick", "--data-dir", str(data), "--quiet",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
    assert main(["strategies", "--data-dir", str(data)]) == 0
    assert "topic-pick" in capsys.readouterr().out
    assert main(["eval", "--rerun", data_json["run_id"], "--data-dir", str(data), "--json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)
    pick = next(r for r in data_json["confirm"]["rows"] if r["role"].startswith("pick"))
    again = next(r for r in rows if r["key"] == pick["key"])
    assert again["recall"] == pytest.approx(pick["recall"]) and again["questions"] == data_json["split"]["confirm"]


def test_durations():
    assert parse_duration("1800") == 1800 and parse_duration("5m") == 300 and parse_duration("1h30m") == 5400
    assert parse_duration("90s") == 90 and parse_duration("1.5h") == 5400 and parse_duration("2 min") == 120
    import argparse

    for bad in ("", "soon", "5x", "-3", "0"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_duration(bad)


def test_pareto_front_is_the_non_dominated_trials():
    trials = [Trial(i, {"chunker": "fixed", "size": 64, "search": "hybrid", "expansion": "none", "top_k": i}, "done",
                    r, t) for i, (r, t) in enumerate([(0.5, 300), (0.6, 500), (0.55, 600), (0.7, 900), (0.4, 200)], 1)]
    assert [t.number for t in pareto_front(trials)] == [5, 1, 2, 4]
    assert load_question_set  # imported for the set helpers
