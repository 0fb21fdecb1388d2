"""Synthetic question sets: parsing model output, locating excerpts only inside their passage, drops with
reasons, the Chroma-format set loading back with exact references, the recorded run, the cache, the CLI,
and one short run with the embedded model."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE
from question_support import SCRIPT, ScriptedLLM

from workbench.core.evaluate import synthetic as syn
from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.records import list_runs

DOCS = [SAMPLE / "deploy-guide.md", SAMPLE / "lab-safety.md"]
REASONS = {"no_question", "not_a_question", "no_excerpt", "excerpt_not_found", "excerpt_too_short",
           "excerpt_too_long", "duplicate", "copied_example", "question_copies_text", "llm_failed",
           "two_part_one_excerpt", "two_part_same_part"}


@pytest.fixture
def docs_ws(hash_ws):
    hash_ws.add_paths([str(p) for p in DOCS])
    return hash_ws


def test_parse_json_lines_and_garbage():
    p = syn.parse_generation('Sure! {"question": "Why flush?", "excerpts": ["A b c d.", "E f g h."]} done')
    assert p == syn.Parsed("Why flush?", ("A b c d.", "E f g h."))
    p = syn.parse_generation("1. **Question:** How do I roll back?\n**Excerpt A:** [3] Roll back with the tool.\n"
                             "continued here\n\nExcerpt B: Second part.")
    assert p.question == "How do I roll back?" and p.excerpts == ("[3] Roll back with the tool.\ncontinued here",
                                                                 "Second part.")
    assert syn.parse_generation("Question: Q one?\nAnswer: the answer line").excerpts == ("the answer line",)
    for junk in ("", "no labels at all", "{not json", "Question:", "[1, 2]"):
        assert syn.parse_generation(junk).excerpts == ()


def test_locate_only_inside_the_passage():
    text = "Alpha beta gamma.\n\nThe  cache is\nflushed after   the “rollout”. Tail text. The cache is flushed."
    start = text.index("The  cache")
    end = text.index(" Tail")
    got = syn.locate_excerpt(text, start, end, 'The cache is flushed after the "rollout".')
    assert got is not None and text[got[0] : got[1]] == "The  cache is\nflushed after   the “rollout”."
    assert syn.locate_excerpt(text, start, end, "[2] The  cache is") == (start, start + len("The  cache is"))
    assert syn.locate_excerpt(text, start, end, "Alpha beta gamma.") is None, "never searched outside the passage"
    assert syn.locate_excerpt(text, end, len(text), "The cache is flushed after") is None


def test_drops_with_reasons_and_set_loads_back(docs_ws, tmp_path):
    llm = ScriptedLLM(SCRIPT)
    deploy = docs_ws.store.documents.document_by_path(str(DOCS[0].resolve()))["id"]
    result = syn.make_question_set(docs_ws, tmp_path / "qs", llm, n=10, seed=3, doc_ids=[deploy],
                                   max_attempts=len(SCRIPT), passage_tokens=48)
    assert llm.calls == result.attempts == len(SCRIPT)
    assert result.reasons == {"excerpt_not_found": 1, "duplicate": 1, "excerpt_too_short": 1, "no_question": 1}
    assert len(result.questions) == 2 and not (set(result.reasons) - REASONS)
    drop = next(d for d in result.dropped if d.reason == "excerpt_not_found")
    assert "not in its passage" in drop.detail and drop.question == "Which gloves should I wear?"

    qset = load_question_set(tmp_path / "qs")  # strict: every reference equals its corpus text
    assert [q.question for q in qset.questions] == [q["question"] for q in result.questions]
    doc = docs_ws.corpus.document(deploy)
    for q in qset.questions:
        (ref,) = q.references
        assert (ref.content == doc.text[ref.start : ref.end]
                == qset.corpora[q.corpus_id].read_text()[ref.start : ref.end])
    assert " ".join(qset.questions[1].references[0].content.split()) in " ".join(doc.text.split())

    run = list_runs(docs_ws)[0]
    assert run.id == result.run_id and run.kind == "questions"
    assert run.summary["kept"] == 2 and run.summary["reasons"]["duplicate"] == 1 and run.config["seed"] == 3
    assert run.config["llm"]["model"] == "scripted-v1" and run.config["prompt_version"] == syn.PROMPT_VERSION
    record = json.loads((tmp_path / "qs" / "generation.json").read_text())
    assert len(record["drops"]) == 4 and {d["reason"] for d in record["drops"]} <= REASONS

    # the same seed again: every answer comes from the cache (a backend that must not be called)
    again = syn.generate_questions(docs_ws, ScriptedLLM([]), n=10, seed=3, doc_ids=[deploy],
                                   max_attempts=len(SCRIPT), passage_tokens=48)
    assert again.usage.calls == 0 and again.usage.cached == len(SCRIPT) and again.questions == result.questions


def test_sampling_is_seeded_and_stratified(docs_ws):
    ids = [d["id"] for d in docs_ws.store.documents.rows()]
    passages = syn.candidate_passages(docs_ws, ids, 48)
    one = syn.sample_units(passages, seed=5)
    assert one == syn.sample_units(passages, seed=5) and one != syn.sample_units(passages, seed=6)
    assert {one[0][0], one[1][0]} == set(ids), "documents take turns"
    pairs = syn.sample_units(passages, seed=5, two_part=True)
    assert all(len(spans) == 2 and spans[0][1] <= spans[1][0] for _, spans in pairs)


def test_two_part_needs_both_parts(docs_ws, tmp_path):
    both = lambda lines: (f"Question: Why is it done, and how?\nExcerpt A: [1] {lines[0]}\n"  # noqa: E731
                          f"Excerpt B: [9] {lines[-1]}")
    same = lambda lines: f"Question: Why and how, really?\nExcerpt A: {lines[0]}\nExcerpt B: {lines[1]}"  # noqa: E731
    one = lambda lines: f"Question: Why is that so?\nExcerpt A: {lines[0]}"  # noqa: E731
    result = syn.generate_questions(docs_ws, ScriptedLLM([both, same, one]), n=5, seed=1, two_part=True,
                                    max_attempts=3, passage_tokens=48)
    assert result.reasons == {"two_part_same_part": 1, "two_part_one_excerpt": 1}
    (kept,) = result.questions
    (a, b) = [(r["start_index"], r["end_index"]) for r in kept["references"]]
    assert a[1] < b[0], "two separate parts of the window"


def test_cli_make_questions_from_a_folder(tmp_path, capsys, monkeypatch, hash_cli):
    from workbench.cli import main
    from workbench.commands import make_questions

    monkeypatch.setattr(make_questions, "open_llm", lambda *a, **kw: ScriptedLLM(SCRIPT[:1] * 3))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deploy-guide.md").write_bytes(DOCS[0].read_bytes())
    args = ["make-questions", str(folder), "--n", "1", "--out", str(tmp_path / "qs"), "--data-dir",
            str(tmp_path / "data"), "--json", "--quiet"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kept"] == 1 and out["run_id"] and load_question_set(out["out"]).questions
    assert main(args) == 1 and "exists" in capsys.readouterr().err
    assert main(["make-questions", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 1


@pytest.mark.llm
def test_short_real_run(docs_ws, tmp_path):
    from workbench.core.llm.embedded import EmbeddedBackend

    result = syn.make_question_set(docs_ws, tmp_path / "real", EmbeddedBackend(), n=1, seed=0, max_attempts=2)
    assert 1 <= result.attempts <= 2 and len(result.questions) + len(result.dropped) == result.attempts
    assert all(d.reason in REASONS and d.detail for d in result.dropped)
    assert result.usage.calls + result.usage.cached == result.attempts
    qset = load_question_set(tmp_path / "real")
    assert len(qset.questions) == len(result.questions)


def test_cli_make_questions_into_a_stored_set_as_unreviewed_drafts(tmp_path, capsys, monkeypatch, hash_cli):
    from workbench.cli import main
    from workbench.commands import make_questions

    monkeypatch.setattr(make_questions, "open_llm", lambda *a, **kw: ScriptedLLM(SCRIPT[:1] * 3))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deploy-guide.md").write_bytes(DOCS[0].read_bytes())
    data = str(tmp_path / "data")
    assert main(["make-questions", str(folder), "--n", "1", "--set", "drafts", "--data-dir", data, "--json",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["kept"] == 1
    assert main(["questions", "show", "drafts", "--json", "--data-dir", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    prov = shown["questions"][0]["provenance"]
    assert prov["origin"] == "drafted" and prov["reviewed"] is False and prov["passage"][1] < prov["passage"][2]
    assert shown["summary"]["unreviewed"] == 1
    ref = shown["questions"][0]["references"][0]
    assert prov["passage"][1] <= ref["start"] < ref["end"] <= prov["passage"][2]
    # eval says how many drafts are unreviewed; --reviewed-only leaves them out (none left: refused in one line)
    assert main(["eval", "drafts", "--data-dir", data, "--quiet", "--json"]) == 0
    captured = capsys.readouterr()
    assert "1 unreviewed draft(s)" in captured.err
    run = json.loads(captured.out)[0]["run_id"]
    assert main(["eval", "drafts", "--reviewed-only", "--data-dir", data, "--quiet"]) == 1
    assert "no question to score" in capsys.readouterr().err
    from workbench.core.evaluate.records import find_run
    from workbench.core.workspace import Workspace

    ws = Workspace(data, embedder=hash_cli)
    recorded = find_run(ws, run).config["dataset"]
    assert recorded["stored"] and recorded["provenance"]["0"]["origin"] == "drafted"
    ws.close()
    assert main(["make-questions", str(folder), "--n", "1", "--data-dir", data]) == 1
    assert "give --set NAME" in capsys.readouterr().err
