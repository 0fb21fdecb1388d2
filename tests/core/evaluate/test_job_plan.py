"""One share per job: a sweep's stages (storing, cutting, embedding, scoring) each restart their own counts,
the whole job's ``overall`` share never goes down and ends at 1 (hashed embedder, real store and FAISS)."""

import pytest
from eval_support import copy_workspace, sotu_workspace

from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.sweep import expand_grid, run_sweep
from workbench.core.jobs import JobPlan, ProgressEvent


@pytest.fixture
def sotu(tmp_path_factory, tmp_path, hash_embedder):
    root, data = sotu_workspace(tmp_path_factory, hash_embedder)
    ws = copy_workspace(data, tmp_path, hash_embedder)
    yield load_question_set(root), ws
    ws.close()


def test_overall_share_is_monotone_over_a_real_sweep(sotu):
    qset, ws = sotu
    qset = qset.subset(limit=20)
    configs = expand_grid(["plain"], "chunk_size=150,250 window=0,1")  # two chunk sets built here, then scored
    events: list[ProgressEvent] = []
    run_sweep(ws, qset, configs, progress=events.append)
    stages = [e.stage for e in events if e.total]
    assert {"chunking", "embedding", "evaluating"} <= set(stages)
    restarts = sum(1 for a, b in zip(events, events[1:], strict=False) if b.total and b.done < a.done)
    assert restarts >= 2, "the stages' own counts start again (two sets cut and embedded, then scoring)"
    shares = [e.overall for e in events]
    assert all(s is not None for s in shares), "every event of a planned job carries the job's share"
    assert shares == sorted(shares), "the job's share never goes down"
    assert shares[-1] == pytest.approx(1.0)
    building = [e.overall for e in events if e.stage in ("chunking", "embedding")]
    assert min(building) > 0 and max(building) < 1, "building is a part of the job, not all of it"
    assert all(b.job_elapsed >= a.job_elapsed for a, b in zip(events, events[1:], strict=False))


def test_a_plan_weighs_stages_and_holds_its_share_when_a_stage_restarts():
    seen: list[ProgressEvent] = []
    plan = JobPlan(seen.append, [("cut", 1.0), ("embed", 3.0)])
    cut, embed = plan.stage("cut"), plan.stage("embed")
    cut(ProgressEvent("chunking", 5, 10))
    assert seen[-1].overall == pytest.approx(0.125)
    embed(ProgressEvent("embedding", 0, 100))
    assert seen[-1].overall == pytest.approx(0.25), "a later stage starts at the end of the earlier ones"
    embed(ProgressEvent("embedding", 50, 100))
    embed(ProgressEvent("embedding", 10, 100))  # a second batch counting from 0 again
    assert seen[-1].overall == pytest.approx(0.625), "a restarting count does not pull the share back"
    embed(ProgressEvent("estimate", 0, 0, "a notice"))
    assert seen[-1].overall == pytest.approx(0.625) and seen[-1].message == "a notice"
    plan.complete("embed")
    embed(ProgressEvent("embedding", 1, 100))
    assert seen[-1].overall == pytest.approx(1.0)
