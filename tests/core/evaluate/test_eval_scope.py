"""A question set's corpus is exactly its corpus: evaluation searches every corpus of the set (distractors no
question refers to included) and nothing else in the data folder, through chunk sets scoped to those
documents; ``--corpus`` narrows both the questions and what is searched. Plumbing on the hashed embedder."""

import json
import re
import shutil

import pytest
from fake_embedder import HashEmbedder

from workbench.cli import main
from workbench.core.evaluate.datasets import load_question_set, save_question_set
from workbench.core.evaluate.records import find_run, save_run
from workbench.core.evaluate.sweep import expand_grid, run_sweep
from workbench.core.store import Scope
from workbench.core.workspace import Workspace

ANSWER = ("The grey heron leaves the northern lakes in late autumn. Its migration to the southern marshes "
          "takes about three weeks, resting every few days on river banks.")
BIRDS = ("# Herons\n\nHerons nest in colonies near shallow water and feed on fish and frogs.\n\n" + ANSWER
         + "\n\nYoung herons stay with the colony for their first winter.\n")
DECOY = ("# Notes\n\nHow long does the grey heron migration take? How long does the grey heron migration take? "
         "The grey heron migration question is asked often.\n")
OTHER = ("# Field log\n\nHow long does the grey heron migration take? Nobody in this log knows how long the grey "
         "heron migration takes, zanzibarquux.\n")
TOP1 = json.dumps({"name": "top1", "top_k": 1, "size": 40})


class RecordingEmbedder(HashEmbedder):
    """The hashed embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def encode(self, texts, progress=None, cancel=None):
        self.seen += list(texts)
        return super().encode(texts, progress, cancel)


def _set(root, distractor: bool = True):
    start = BIRDS.index(ANSWER)
    corpora = {"birds": BIRDS, **({"decoy": DECOY} if distractor else {})}
    return save_question_set(root, [{"question": "How long does the grey heron migration take?", "corpus_id": "birds",
                                     "references": [{"start_index": start, "end_index": start + len(ANSWER)}]}],
                             corpora)


def _recall(ws, qset):
    sweep = run_sweep(ws, qset, expand_grid([TOP1]))
    return sweep, sweep.results[0].summary["recall"].mean


def test_a_distractor_no_question_refers_to_is_searched_and_can_cost_recall(tmp_path):
    with_decoy = _set(tmp_path / "with", distractor=True)
    without = _set(tmp_path / "without", distractor=False)
    assert with_decoy.searched_corpora() == ["birds", "decoy"] and with_decoy.needed_corpora() == ["birds"]
    ws_a, ws_b = Workspace(tmp_path / "a", embedder=HashEmbedder()), Workspace(tmp_path / "b", embedder=HashEmbedder())
    sweep, recall_with = _recall(ws_a, with_decoy)
    _, recall_without = _recall(ws_b, without)
    assert set(sweep.doc_ids) == {"birds", "decoy"}
    assert recall_with < recall_without, "the distractor outranks the reference and is searched"
    assert "2 corpora" in sweep.scope_line and "1 that no question refers to" in sweep.scope_line


def test_the_same_set_scores_the_same_in_a_fresh_folder_and_beside_other_documents(tmp_path):
    qset = _set(tmp_path / "set")
    fresh = Workspace(tmp_path / "fresh", embedder=HashEmbedder())
    sweep_fresh, _ = _recall(fresh, qset)
    shared_embedder = RecordingEmbedder()
    shared = Workspace(tmp_path / "shared", embedder=shared_embedder)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "log.md").write_text(OTHER, encoding="utf-8")
    shared.add_paths([str(tmp_path / "mine")])  # the user's own document, outranking the reference if searched
    own_sets = {s.id: s.chunk_count for s in shared.store.sets.chunk_sets()}
    shared_embedder.seen.clear()
    sweep_shared, _ = _recall(shared, qset)

    def by_corpus(sweep):
        names = {doc_id: cid for cid, doc_id in sweep.doc_ids.items()}
        return [[(names[s.doc_id], s.start, s.end) for s in r.spans] + [r.metrics] for r in sweep.results[0].rows]

    assert by_corpus(sweep_shared) == by_corpus(sweep_fresh)
    assert not any("zanzibarquux" in t for t in shared_embedder.seen), "the user's document was not embedded"
    assert {s.id: s.chunk_count for s in shared.store.sets.chunk_sets() if not s.scope} == own_sets, \
        "the folder's own chunk sets are not changed by the evaluation"
    scoped = [s for s in shared.store.sets.chunk_sets() if s.scope]
    assert scoped and all(set(s.scope) == set(sweep_shared.doc_ids.values()) for s in scoped)
    assert "1 other document in the data folder is not searched" in sweep_shared.scope_line


def test_a_scoped_search_ranks_only_its_documents_and_the_plain_search_all(tmp_path):
    ws = Workspace(tmp_path / "ws", embedder=HashEmbedder())
    (tmp_path / "docs").mkdir()
    for name, text in (("birds.md", BIRDS), ("log.md", OTHER), ("decoy.md", DECOY)):
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    ws.add_paths([str(tmp_path / "docs")])
    ids = {d["path"].rsplit("/", 1)[-1]: d["id"] for d in ws.records.documents()}
    question = "How long does the grey heron migration take?"
    strategy = json.loads(TOP1) | {"top_k": 3}
    everything = ws.search(question, strategy)
    assert {p.span.doc_id for p in everything.passages} >= {ids["log.md"], ids["decoy.md"]}
    only_birds = ws.search(question, strategy, scope=Scope.of([ids["birds.md"]]))
    assert {p.span.doc_id for p in only_birds.passages} == {ids["birds.md"]}
    alone = Workspace(tmp_path / "alone", embedder=HashEmbedder())
    (tmp_path / "one").mkdir()
    shutil.copy(tmp_path / "docs" / "birds.md", tmp_path / "one" / "birds.md")
    alone.add_paths([str(tmp_path / "one")])
    expect = alone.search(question, strategy)
    assert [(p.span.start, p.span.end) for p in only_birds.passages] == \
        [(p.span.start, p.span.end) for p in expect.passages], "the top-k within the scope, not a filtered global one"
    assert ws.search(question, strategy, scope=Scope.of(ids.values())).strategy == everything.strategy
    assert ws.sets.set_scope(Scope.of(ids.values())) is None, "a scope of every stored document is the folder's own set"


def test_corpus_narrows_questions_and_searched_documents_and_the_record_lists_them(tmp_path, capsys, hash_cli):
    start = BIRDS.index(ANSWER)
    root = tmp_path / "set"
    save_question_set(root, [
        {"question": "How long does the grey heron migration take?", "corpus_id": "birds",
         "references": [{"start_index": start, "end_index": start + len(ANSWER)}]},
        {"question": "What is asked often?", "corpus_id": "decoy",
         "references": [{"start_index": DECOY.index("The grey"), "end_index": len(DECOY) - 1}]},
    ], {"birds": BIRDS, "decoy": DECOY, "spare": OTHER})
    qset = load_question_set(root).subset(corpus="birds")
    assert qset.searched_corpora() == ["birds"] and len(qset.questions) == 1
    data = tmp_path / "data"
    assert main(["eval", str(root), "--corpus", "birds", "--strategy", TOP1, "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "searching 1 of the set's 3 corpora (birds: chosen with --corpus)" in out
    ws = Workspace(data, embedder=hash_cli)
    info = find_run(ws, "last")
    searched = {d["corpus_id"]: d["sha256"] for d in info.config["documents"].values()}
    assert searched == {"birds": qset.corpus_hashes["birds"]}
    assert info.config["searched"]["corpora"] == ["birds"]
    assert main(["eval", str(root), "--strategy", TOP1, "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "searching the set's 3 corpora (1 that no question refers to)" in out
    full = find_run(ws, re.search(r"run (\S+) recorded", out).group(1))
    assert {d["corpus_id"] for d in full.config["documents"].values()} == {"birds", "decoy", "spare"}


def test_the_lab_and_eval_search_the_same_documents(tmp_path, hash_embedder):
    qset = _set(tmp_path / "set")
    ws = Workspace(tmp_path / "ws", embedder=hash_embedder)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "log.md").write_text(OTHER, encoding="utf-8")
    ws.add_paths([str(tmp_path / "mine")])
    from workbench.core.jobs import CancelToken
    from workbench.ui.evaluate.sweep_job import sweep_and_record

    run_id, results = sweep_and_record(ws, qset, expand_grid([TOP1]), lambda e: None, CancelToken())
    sweep = run_sweep(ws, qset, expand_grid([TOP1]))
    assert [r.spans for r in results[0].rows] == [r.spans for r in sweep.results[0].rows]
    cli_id = save_run(ws, qset, sweep)
    assert find_run(ws, run_id).config["documents"] == find_run(ws, cli_id).config["documents"]


@pytest.mark.parametrize("name", ["bad name.md"])
def test_a_file_that_is_not_a_corpus_is_named_and_not_searched(tmp_path, name):
    qset = _set(tmp_path / "set")
    (qset.root / "corpora" / name).write_text("stray", encoding="utf-8")
    again = load_question_set(qset.root)
    assert "bad name" not in " ".join(again.searched_corpora())
    assert any(name in line for line in again.skipped)
