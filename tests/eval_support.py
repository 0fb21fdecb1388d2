"""Helpers for the evaluation-lab tests: an independent metric implementation and small question sets.

The reference implementation here deliberately shares no code with ``workbench.core.evaluate.metrics``
or ``workbench.core.spans``: it paints characters into numpy boolean masks, one per document.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from conftest import CHROMA, SAMPLE

SOTU = "state_of_the_union"

# (question, phrase in the corpus file that answers it); phrases are cut from the sample corpus.
SAMPLE_QUESTIONS = {
    "deploy-guide": [
        ("How do I roll back a bad deployment?", "If the error rate rises"),
        ("How are database migrations applied during a deploy?", "Run the migration from the release folder"),
    ],
    "transit-prices": [
        ("How much does a monthly transit pass cost?", "It costs 49 euros"),
    ],
    "lab-safety": [
        ("What should I do after a chemical spill?", "Small spills of less than"),
        ("Why must the fume hood sash stay low?", "The fume hood only protects you"),
    ],
}


def mask_metrics(retrieved, references) -> dict:
    """Recall, precision, IoU by painting characters: spans are (doc, start, end) tuples or Span values."""
    def as_tuples(spans):
        return [(s.doc_id, s.start, s.end) if hasattr(s, "doc_id") else tuple(s) for s in spans]

    retrieved, references = as_tuples(retrieved), as_tuples(references)
    size = max([e for _, _, e in retrieved + references] + [1])
    docs = {d for d, _, _ in retrieved + references}
    got = {d: np.zeros(size, dtype=bool) for d in docs}
    ref = {d: np.zeros(size, dtype=bool) for d in docs}
    for d, s, e in retrieved:
        got[d][s:e] = True
    for d, s, e in references:
        ref[d][s:e] = True
    g = sum(int(got[d].sum()) for d in docs)
    r = sum(int(ref[d].sum()) for d in docs)
    both = sum(int((got[d] & ref[d]).sum()) for d in docs)
    either = sum(int((got[d] | ref[d]).sum()) for d in docs)
    return {
        "recall": both / r if r else 0.0,
        "precision": both / g if g else 0.0,
        "iou": both / either if either else 0.0,
        "retrieved": g, "reference": r, "covered": both,
    }


def first_touching_rank(passages, references):
    """Rank (1-based) of the first passage sharing a character with any reference, by brute force."""
    refs = {(s.doc_id, c) for s in references for c in range(s.start, s.end)}
    for rank, p in enumerate(passages, start=1):
        if any((p.doc_id, c) in refs for c in range(p.start, p.end)):
            return rank
    return None


def sample_questions(corpus_ids=None) -> tuple[list[dict], dict[str, Path]]:
    """Questions over the sample corpus (references found by phrase) and the corpus files they use."""
    questions, corpora = [], {}
    for cid, items in SAMPLE_QUESTIONS.items():
        if corpus_ids and cid not in corpus_ids:
            continue
        path = SAMPLE / f"{cid}.md"
        text = path.read_text(encoding="utf-8")
        corpora[cid] = path
        for question, phrase in items:
            start = text.find(phrase)
            assert start >= 0, (cid, phrase)
            end = text.find("\n", start)  # the reference is the rest of the paragraph line
            questions.append({"question": question, "corpus_id": cid,
                              "references": [{"start_index": start, "end_index": end if end > 0 else len(text)}]})
    return questions, corpora


def sotu_set(tmp_path: Path, limit: int | None = None) -> Path:
    """A question set folder with Chroma's state-of-the-union corpus and (the first ``limit`` of) its questions."""
    import csv

    root = tmp_path / "sotu-set"
    (root / "corpora").mkdir(parents=True)
    shutil.copy(CHROMA / "corpora" / f"{SOTU}.md", root / "corpora" / f"{SOTU}.md")
    with open(CHROMA / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["corpus_id"] == SOTU]
    rows = rows[:limit] if limit else rows
    with open(root / "questions.csv", "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["question", "references", "corpus_id"])
        w.writeheader()
        w.writerows(rows)
    return root


_BUILT: dict[str, tuple[Path, Path]] = {}


def sotu_workspace(tmp_path_factory, embedder) -> tuple[Path, Path]:
    """``(question set folder, data folder)``: the state-of-the-union set with its corpus indexed at 100- and
    200-token chunks by ``embedder``, built once per test session and embedder (copy the data folder before
    changing it)."""
    key = f"sotu:{embedder.model_id}"
    if key not in _BUILT:
        from workbench.core.evaluate.datasets import index_corpora, load_question_set
        from workbench.core.ingest.values import ChunkConfig
        from workbench.core.workspace import Workspace

        root = sotu_set(tmp_path_factory.mktemp("sotu-qs"))
        data = tmp_path_factory.mktemp("sotu-data")
        ws = Workspace(data, embedder=embedder)
        index_corpora(ws, load_question_set(root), ChunkConfig(size=100))
        ws.sets.ensure_chunk_set(ChunkConfig(size=200))
        ws.close()
        _BUILT[key] = (root, data)
    return _BUILT[key]


def copy_workspace(data: Path, tmp_path: Path, embedder):
    """A private Workspace over a copy of ``data``."""
    from workbench.core.workspace import Workspace

    copy = tmp_path / "ws"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("*.lock"))
    return Workspace(copy, embedder=embedder)
