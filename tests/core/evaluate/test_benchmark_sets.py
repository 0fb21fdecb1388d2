"""The project's own question sets (``benchmarks/data``): each loads, every reference is the exact text its
``questions.json`` names, the distractors are searched and asked about by no question, and ``questions.csv`` is
what ``benchmarks/build_set.py`` writes from ``questions.json``."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from workbench.core.evaluate.datasets import load_question_set

DATA = Path(__file__).resolve().parents[3] / "benchmarks" / "data"
SETS = {"tech24": (44, 24, {"raft-log-replication", "tcp-flow-control"}),
        "field23": (40, 23, {"honey-harvest", "sailing-rigging", "sea-waves"}),
        "field22": (40, 22, {"snowpack-layers", "home-canning"})}


@pytest.mark.parametrize("name", sorted(SETS))
def test_a_project_set_loads_with_exact_references_and_its_distractors(name):
    questions, documents, distractors = SETS[name]
    folder = DATA / name
    qset = load_question_set(folder)
    spec = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    assert len(qset.questions) == len(spec) == questions
    for q, item in zip(qset.questions, spec, strict=True):
        text = (folder / "corpora" / f"{q.corpus_id}.md").read_text(encoding="utf-8")
        assert (q.question, q.corpus_id) == (item["question"], item["corpus"])
        assert [text[r.start:r.end] for r in q.references] == [item["reference"]]
    searched = set(qset.searched_corpora())
    assert len(searched) == documents and distractors <= searched
    assert not distractors & set(qset.needed_corpora())
    per_document = {c: sum(q.corpus_id == c for q in qset.questions) for c in qset.needed_corpora()}
    assert set(per_document.values()) == {2}


@pytest.mark.parametrize("name", sorted(SETS))
def test_build_set_writes_the_same_csv_and_refuses_a_reference_that_is_not_unique(tmp_path, name):
    questions, documents, distractors = SETS[name]
    spec = importlib.util.spec_from_file_location("build_set", DATA.parent / "build_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    copy = tmp_path / name
    shutil.copytree(DATA / name, copy)
    (copy / "questions.csv").unlink()
    assert module.build(copy) == (f"{questions} questions over {documents - len(distractors)} documents; "
                                  f"{documents} corpora searched")
    assert (copy / "questions.csv").read_bytes() == (DATA / name / "questions.csv").read_bytes()
    items = json.loads((copy / "questions.json").read_text(encoding="utf-8"))
    items[0]["reference"] = "the"  # occurs many times
    (copy / "questions.json").write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(SystemExit, match="exactly once"):
        module.build(copy)
