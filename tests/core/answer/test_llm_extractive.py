"""Extractive answers (no language model): the passages' sentences closest to the question, quoted with
exact spans, in passage order, each cited; ``auto`` picks them when no Ollama server answers; commands that
need a generative model (eval --answers, contextualize) refuse them in one line.

The corpus is written here (a "why" section followed by a "how" section, plus unrelated documents), so
the tests do not depend on the bundled sample's wording. The real MiniLM model scores the sentences where
which sentence wins is the point (``ws``); the plumbing tests use the hashed embedder (``hash_docs_ws``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from answer_support import BACKUP, COFFEE, DEPLOY, QUESTION, closed_host, corpus  # noqa: F401 - corpus is a fixture
from conftest import ROOT, TESTS

from workbench.cli import main
from workbench.core.answer.extractive import Sentence, passage_sentences, select
from workbench.core.llm import open_backend
from workbench.core.llm.no_model import (
    JUDGE_REFUSAL,
    LABEL,
    MAX_SENTENCES,
    ExtractiveBackend,
    NotGenerative,
)
from workbench.core.retrieve.strategy.presets import Strategy
from workbench.core.spans import Span


@pytest.fixture
def ws(corpus, fresh_ws):  # noqa: F811 - corpus is the fixture imported above
    report = fresh_ws.add_paths([str(corpus)])
    assert not report.failed
    return fresh_ws


@pytest.fixture
def hash_docs_ws(corpus, hash_ws):  # noqa: F811 - corpus is the fixture imported above
    report = hash_ws.add_paths([str(corpus)])
    assert not report.failed
    return hash_ws


def doc_by_name(ws, name):
    return next(ws.corpus.document(d["id"]) for d in ws.store.documents.rows() if d["path"].endswith(name))


def section(doc, title: str) -> tuple[int, int]:
    """The text between heading ``title`` and the next heading (from the stored heading offsets)."""
    heads = sorted(doc.headings, key=lambda h: h.start)
    i = next(i for i, h in enumerate(heads) if h.title == title)
    end = heads[i + 1].start if i + 1 < len(heads) else len(doc.text)
    return heads[i].end, end


def ask(ws, question: str = QUESTION, top_k: int = 3):
    from workbench.core.answer.answering import answer, prepare

    pieces: list[str] = []
    backend = open_backend("extractive")
    prompt, warnings = prepare(ws, question, Strategy(top_k=top_k), backend)
    result = answer(prompt, backend, on_token=pieces.append, warnings=warnings, ws=ws)
    return result, pieces


def test_sentences_come_from_the_why_section_with_exact_spans_in_passage_order(ws):
    result, pieces = ask(ws)
    deploy = doc_by_name(ws, "deploy.md")
    why = section(deploy, "Why the migration runs first")
    quotes = [c for c in result.citations if c.quote is not None]
    assert quotes and len(quotes) == len(result.citations)
    assert len(quotes) <= MAX_SENTENCES + 2  # the cap, plus a sentence or two brought in as context
    passages = {p.number: p for p in result.prompt.passages}
    for c in quotes:
        doc = ws.corpus.document(c.quote.doc_id)
        assert c.quote_text == doc.text[c.quote.start:c.quote.end]
        p = passages[c.number]
        assert c.passage == p and p.span.doc_id == c.quote.doc_id
        assert p.span.start <= c.quote.start < c.quote.end <= p.span.end, "the sentence lies inside its passage"
        assert result.text[c.answer_start:c.answer_end] == f"[{c.number}]"
    # every quote comes from the deploy guide, and the best one from the section that says why
    assert {c.quote.doc_id for c in quotes} == {deploy.id}
    best = max(quotes, key=lambda c: c.score)
    assert why[0] <= best.quote.start and best.quote.end <= why[1]
    order = [(c.number, c.quote.start) for c in quotes]
    assert order == sorted(order), "passage order, then position in the document"
    assert "".join(pieces) == result.text  # streamed through on_token like a generated answer
    s = result.stats
    assert (s.backend, s.prompt_tokens, s.output_tokens) == ("extractive", 0, 0) and s.total_s > 0
    assert result.backend_label == LABEL == "extractive — no language model"


def test_to_dict_carries_exact_sentence_spans(hash_docs_ws):
    ws = hash_docs_ws
    result, _ = ask(ws)
    doc = result.to_dict()
    assert {"answer", "citations", "passages", "stats"} <= set(doc)
    for c in doc["citations"]:
        text = ws.corpus.document(c["doc_id"]).text
        assert c["text"] == text[c["start"]:c["end"]]
        assert c["passage_start"] <= c["start"] < c["end"] <= c["passage_end"]


def test_passage_sentences_leave_out_headings_and_keep_exact_offsets(hash_docs_ws):
    ws = hash_docs_ws
    deploy = doc_by_name(ws, "deploy.md")
    sentences = passage_sentences(deploy, 1, Span(deploy.id, 0, len(deploy.text)))
    heading_spans = [(h.start, h.end) for h in deploy.headings]
    assert len(sentences) >= 6
    for s in sentences:
        assert s.text == deploy.text[s.span.start:s.span.end] and len(s.text.split()) >= 4
        assert not any(a < s.span.end and s.span.start < b for a, b in heading_spans)
    starts = [s.span.start for s in sentences]
    assert starts == sorted(starts)


def test_select_keeps_strong_sentences_and_the_one_a_kept_sentence_points_back_to():
    def sent(i: int, text: str, number: int = 1) -> Sentence:
        return Sentence(number, Span(1, i * 100, i * 100 + len(text)), text)

    cands = [sent(0, "The schema needs the new columns first."), sent(1, "This is why the migration runs first."),
             sent(2, "Coffee is on the second floor today."), sent(3, "Backups run nightly at two.", number=2)]
    scores = np.array([0.30, 0.70, 0.20, 0.60], dtype=np.float32)
    picked = select(cands, scores, max_sentences=3, cutoff=0.8)
    # 0.70 and 0.60 pass the cut (0.56); "This ..." brings its predecessor; 0.20 is left out
    assert [s.text for s in picked] == [cands[0].text, cands[1].text, cands[3].text]
    assert [s.score for s in picked] == pytest.approx([0.30, 0.70, 0.60])
    assert select(cands, scores, max_sentences=1, cutoff=0.8)[-1].text == cands[1].text
    # after a heading (another stretch of text) "This ..." does not reach back into the section before
    split = [cands[0], Sentence(1, cands[1].span, cands[1].text, region=1), *cands[2:]]
    assert [s.text for s in select(split, scores, max_sentences=2, cutoff=0.8)] == [cands[1].text, cands[3].text]
    assert select([], np.zeros(0)) == []


def test_auto_without_ollama_is_extractive_and_it_cannot_generate():
    backend = open_backend("auto", host=closed_host())
    assert isinstance(backend, ExtractiveBackend) and backend.label == LABEL
    with pytest.raises(NotGenerative, match="start Ollama"):
        backend.complete([{"role": "user", "content": "hi"}])


def test_judging_refuses_the_extractive_backend(hash_docs_ws):
    ws = hash_docs_ws
    from workbench.core.evaluate.judge import answer_and_judge

    with pytest.raises(NotGenerative) as err:
        answer_and_judge(ws, ExtractiveBackend(), None, None)  # refused before anything is read
    assert str(err.value) == JUDGE_REFUSAL


def test_ask_extractive_json_in_a_subprocess(hash_docs_ws):
    """The JSON a real process prints on its stdout (the hashed embedder scores the sentences there)."""
    ws = hash_docs_ws
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OLLAMA_HOST": closed_host()}
    data = str(ws.data_dir)
    ws.close()
    proc = subprocess.run([sys.executable, str(TESTS / "hashed_cli.py"), "ask", QUESTION, "--data-dir", data,
                           "--backend", "extractive", "--top-k", "3", "--json", "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {"answer", "citations", "passages", "stats"} <= set(doc)
    assert doc["stats"]["backend"] == "extractive" and doc["stats"]["backend_label"] == LABEL
    assert (doc["stats"]["prompt_tokens"], doc["stats"]["output_tokens"]) == (0, 0)
    passages = {p["number"]: p for p in doc["passages"]}
    assert doc["citations"]
    for c in doc["citations"]:
        p = passages[c["number"]]
        text = ws.corpus.document(c["doc_id"]).text
        assert c["text"] == text[c["start"]:c["end"]] and c["doc_path"] == p["doc_path"]
        assert p["start"] <= c["start"] < c["end"] <= p["end"]
        assert doc["answer"][c["answer_start"]:c["answer_end"]] == f"[{c['number']}]"
    assert all(c["doc_path"].endswith("deploy.md") for c in doc["citations"])


def test_generative_commands_refuse_extractive_in_one_line(capsys, hash_docs_ws, tmp_path, monkeypatch, hash_cli):
    ws = hash_docs_ws
    from workbench.core.evaluate.datasets import save_question_set

    deploy = doc_by_name(ws, "deploy.md")
    start, end = section(deploy, "Why the migration runs first")
    qset = save_question_set(tmp_path / "qs", [{"question": QUESTION, "corpus_id": "deploy",
                                                "references": [{"start_index": start, "end_index": end}]}],
                             {"deploy": DEPLOY})
    monkeypatch.setenv("OLLAMA_HOST", closed_host())
    data = str(tmp_path / "eval-data")
    for backend in ("extractive", "auto"):  # chosen, or what auto falls back to without Ollama
        code = main(["eval", str(qset.root), "--answers", "--backend", backend, "--data-dir", data, "--quiet"])
        err = capsys.readouterr().err
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        assert JUDGE_REFUSAL in err
    assert not (tmp_path / "eval-data").exists(), "refused before any question was searched"
    code = main(["contextualize", "--data-dir", str(ws.data_dir), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and err.strip() == ("workbench: error: contextualize needs a generative model; start Ollama "
                                         "or choose --llm embedded")
