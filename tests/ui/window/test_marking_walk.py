"""The marking walk (``benchmarks/marking_walk.py``) on the real window, embedding with the hashed embedder: each
question typed into the question bar, its passage dragged over in the document view (opened from the document
picker when another document is shown) and kept with Ctrl+R; every stored reference is exactly the passage meant,
and the actions a person would take are counted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

pytest_plugins = ["ui_support"]
ROOT = Path(__file__).resolve().parents[3]
TECH24 = ROOT / "benchmarks" / "data" / "tech24"


def _walk_module():
    spec = importlib.util.spec_from_file_location("marking_walk", ROOT / "benchmarks" / "marking_walk.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["marking_walk"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_walk_marks_each_question_exactly_and_counts_the_actions(qtbot, make_window, hash_ws):
    walk = _walk_module()
    hash_ws.add_documents([str(p) for p in sorted((TECH24 / "corpora").iterdir())])
    docs = {Path(str(r["path"])).stem: int(r["id"]) for r in hash_ws.records.documents()}
    chosen = walk.targets(TECH24, 5)
    window = make_window(hash_ws)
    qtbot.waitUntil(lambda: not window.compare.a.controller.building, timeout=20000)

    def wait(done):
        qtbot.waitUntil(lambda: bool(done()), timeout=30000)

    steps = walk.walk(window, wait, docs, chosen)
    stored = hash_ws.questions.read(walk.SET_NAME).questions
    assert [(q.text, [(r.doc_id, r.start, r.end) for r in q.references]) for q in stored] == [
        (t.question, [(docs[t.corpus], t.start, t.end)]) for t in chosen]
    summary = walk.totals(steps)
    assert summary["questions"] == 5
    assert summary["operators"]["K"] >= sum(len(t.question) + 3 for t in chosen)  # typed, Enter, Ctrl+R
    assert summary["operators"]["P"] >= 2 * 5  # at least the drag's two ends per question
    assert all(s > 0 for s in summary["per_question_seconds"])
    text = {t: hash_ws.corpus.doc_text(docs[t.corpus]) for t in chosen}
    assert summary["read_words"] >= sum(len(text[t][t.start:t.end].split()) for t in chosen)  # each passage read
    assert summary["klm_seconds"] >= sum(summary["per_question_seconds"])
