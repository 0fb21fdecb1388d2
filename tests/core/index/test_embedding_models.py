"""The embedding model as a dimension of a chunk set: ``ollama:NAME`` embedders, ``Strategy.model``, one chunk
set per model in a workspace, and ``eval --grid model=...`` with one row per model.

Ollama embeddings come from a loopback stand-in server (``ollama_embed_standin``: real HTTP through the
official ``ollama`` client, deterministic hashed bag-of-words vectors); the default model is the hashed
embedder of 384 dimensions (``hash_embedder``, ``hash_cli``), the stand-in's has 256.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from eval_support import sample_questions
from ollama_embed_standin import EMBED_MODEL, EmbedStandIn, closed_port

from workbench.cli import main
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.sweep import expand_grid, parse_grid, run_sweep
from workbench.core.index.embedder_pool import model_label, normalise_model_spec, open_embedder
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.values import ChunkConfig
from workbench.core.llm import BackendUnavailable, ModelNotFound
from workbench.core.llm.base import RemoteHostRefused
from workbench.core.llm.ollama_backend import OllamaEmbedder
from workbench.core.retrieve.strategy.presets import PRESETS, override, resolve

OLLAMA = f"ollama:{EMBED_MODEL}"
QUESTION = "How much does a monthly transit pass cost?"


@pytest.fixture
def standin():
    server = EmbedStandIn()
    yield server
    server.close()


# ----- the Ollama hash_embedder against the loopback stand-in ------------------------------------------------
def test_ollama_embedder_batches_normalises_and_is_deterministic(standin):
    emb = open_embedder(OLLAMA, standin.host)
    assert isinstance(emb, OllamaEmbedder) and emb.model_id == OLLAMA and emb.model_path is None
    assert standin.requests == [], "nothing is contacted before the first encode"
    emb.batch_size = 2
    texts = ["flush the page cache", "monthly pass price", "sensor drift"]
    vecs = emb.encode(texts)
    assert vecs.dtype == np.float32 and vecs.shape == (3, 256) and emb.dim == 256
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs, standin.embedder.encode(texts), atol=1e-5)
    assert [len(b["input"]) for p, b in standin.requests if p == "/api/embed"] == [2, 1]
    assert all(b["model"] == EMBED_MODEL for p, b in standin.requests if p == "/api/embed")


def test_ollama_embedder_errors_say_what_to_do(standin):
    with pytest.raises(ModelNotFound, match=r"`ollama pull nomic-embed-text`"):
        open_embedder("ollama:nomic-embed-text", standin.host).encode(["x"])
    gone = f"127.0.0.1:{closed_port()}"
    with pytest.raises(BackendUnavailable) as info:
        open_embedder(OLLAMA, gone).encode(["x"])
    assert str(info.value) == (f"Ollama is not running at {gone}: the embedding model {OLLAMA} needs it "
                               "(start it with `ollama serve`)")
    with pytest.raises(RemoteHostRefused, match="not on this machine"):
        open_embedder(OLLAMA, "192.0.2.1:11434")  # refused before anything connects
    assert open_embedder(OLLAMA, "192.0.2.1:11434", allow_remote=True).model_id == OLLAMA


def test_model_specs():
    assert normalise_model_spec(None) == normalise_model_spec(" default ") == normalise_model_spec("") == ""
    assert normalise_model_spec(" ollama: nomic-embed-text ") == "ollama:nomic-embed-text"
    with pytest.raises(ValueError, match="needs a name"):
        normalise_model_spec("ollama:")
    assert [model_label(s) for s in ("", OLLAMA, "/models/bge-small/")] == ["default", OLLAMA, "bge-small"]


# ----- strategies -----------------------------------------------------------------------------------
def test_strategy_model_field_round_trips_and_is_absent_by_default():
    plain = PRESETS["plain"]
    assert plain.model == "" and "model" not in plain.to_dict() and '"model"' not in plain.to_json()
    assert "model" not in plain.to_dict()
    assert resolve({"preset": "plain", "model": "default"}) == plain  # the default is no model at all
    other = resolve({"preset": "plain", "model": OLLAMA})
    assert other.model == OLLAMA and other.to_dict()["model"] == OLLAMA and other != plain
    assert resolve(other.to_json()) == other and resolve(json.dumps(other.to_dict())) == other
    assert other.describe().endswith(f"embedded by {OLLAMA}")
    assert other.chunk == plain.chunk and other.search_config == plain.search_config
    for bad, message in ((3, "must be a string"), ("ollama:", "needs a name")):
        with pytest.raises(ValueError, match=message):
            resolve({"preset": "plain", "model": bad})


def test_grid_parses_models():
    assert parse_grid(f"model=default,{OLLAMA} window=0,1") == {"model": ["default", OLLAMA], "window": [0, 1]}
    configs = expand_grid(["plain"], f"model=default,{OLLAMA}")
    assert [(c.key, c.strategy.model) for c in configs] == [("plain model=default", ""),
                                                            (f"plain model={OLLAMA}", OLLAMA)]
    with pytest.raises(ValueError, match="needs a name"):
        parse_grid("model=ollama:")


# ----- a workspace with two models -------------------------------------------------------------------
def test_one_chunk_set_per_model_searched_by_its_own_model(hash_sample_ws, standin, hash_embedder):
    ws = hash_sample_ws
    ws.models.use_ollama_host(standin.host)
    plain = PRESETS["plain"]
    other = override(plain, model=OLLAMA)
    default_set = chunk_set_id(ChunkConfig(), hash_embedder.model_id)  # the identity of the existing chunk set is kept

    a = ws.search(QUESTION, plain)
    assert a.set_id == default_set and not standin.requests, "the default model never talks to Ollama"
    b = ws.search(QUESTION, other)
    assert b.set_id == chunk_set_id(ChunkConfig(), OLLAMA) != a.set_id
    infos = {i.id: i for i in ws.store.sets.chunk_sets()}
    assert infos[a.set_id].model_id == hash_embedder.model_id and infos[b.set_id].model_id == OLLAMA
    assert infos[b.set_id].state == "ready" and infos[b.set_id].chunk_count > 0
    assert ws.sets.find_chunk_set(ChunkConfig(), OLLAMA).id == b.set_id == ws.sets.find_chunk_set(
        ChunkConfig(), "ollama: " + EMBED_MODEL).id

    # the question was embedded by each set's own model (the stand-in saw it once: then cached per model)
    assert standin.embedded_texts().count(QUESTION) == 1
    assert np.allclose(ws.corpus.query_vector(QUESTION, OLLAMA), standin.embedder.encode([QUESTION])[0], atol=1e-5)
    assert np.allclose(ws.corpus.query_vector(QUESTION), hash_embedder.encode([QUESTION])[0], atol=1e-5)
    top = b.hits[0]  # scored by the stand-in's vectors of the question and of the chunk's text
    chunk_text = ws.corpus.doc_text(top.span.doc_id)[top.span.start : top.span.end]
    expected = standin.embedder.encode([QUESTION])[0] @ standin.embedder.encode([chunk_text])[0]
    assert top.score == pytest.approx(float(expected), abs=1e-4)

    # the hit cache keeps the two apart: the same question again returns each model's own hits
    requests = len(standin.requests)
    assert [h.chunk_id for h in ws.search(QUESTION, other).hits] == [h.chunk_id for h in b.hits]
    assert [h.chunk_id for h in ws.search(QUESTION, plain).hits] == [h.chunk_id for h in a.hits]
    assert len(standin.requests) == requests, "nothing is embedded twice"
    assert {key[0] for key in ws.retriever.hit_cache} >= {a.set_id, b.set_id}


def test_grid_gives_one_row_per_model(hash_sample_ws, standin, tmp_path):
    questions, corpora = sample_questions()
    qset = save_question_set(tmp_path / "qs", questions, corpora)
    hash_sample_ws.models.use_ollama_host(standin.host)
    result = run_sweep(hash_sample_ws, qset, expand_grid(["plain"], f"model=default,{OLLAMA}"))
    assert [r.config.key for r in result.results] == ["plain model=default", f"plain model={OLLAMA}"]
    assert all(len(r.rows) == len(qset.questions) for r in result.results)
    embedded_questions = [t for t in standin.embedded_texts() if t in {q.question for q in qset.questions}]
    assert sorted(embedded_questions) == sorted(q.question for q in qset.questions), "one batch, once each"
    spans = [[row.spans for row in r.rows] for r in result.results]
    assert spans[0] != spans[1], "two models retrieve differently"


def test_cli_eval_grid_and_search_with_an_ollama_model(capsys, hash_sample_ws, standin, tmp_path, hash_cli):
    questions, corpora = sample_questions(["transit-prices"])
    dataset = save_question_set(tmp_path / "qs", questions, corpora).root
    data = str(hash_sample_ws.data_dir)
    code = main(["eval", str(dataset), "--grid", f"model=default,{OLLAMA}", "--data-dir", data, "--llm-host",
                 standin.host, "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["strategy"], r["model"]) for r in rows] == [("plain", "default"), ("plain", OLLAMA)]
    assert main(["search", QUESTION, "--model", OLLAMA, "--data-dir", data, "--llm-host", standin.host, "--json",
                 "--quiet"]) == 0
    passages = json.loads(capsys.readouterr().out)
    hash_sample_ws.models.use_ollama_host(standin.host)
    expected = hash_sample_ws.search(QUESTION, override(PRESETS["plain"], model=OLLAMA))  # the same chunk set
    assert [(p["chunk_id"], p["score"]) for p in passages] == [(h.chunk_id, round(h.score, 6)) for h in expected.hits]
    assert main(["search", QUESTION, "--model", "ollama:nomic-embed-text", "--data-dir", data, "--llm-host",
                 standin.host, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: model 'nomic-embed-text' is not pulled") and len(err.splitlines()) == 1
    assert main(["search", QUESTION, "--model", OLLAMA, "--data-dir", data, "--llm-host", "192.0.2.1:11434"]) == 1
    assert "not on this machine" in capsys.readouterr().err


def test_removing_a_document_while_the_ollama_server_is_away(hash_sample_ws, standin, hash_embedder):
    from workbench.core.workspace import Workspace

    hash_sample_ws.models.use_ollama_host(standin.host)
    other = override(PRESETS["plain"], model=OLLAMA)
    built = hash_sample_ws.search(QUESTION, other)
    ws = Workspace(hash_sample_ws.data_dir, embedder=hash_embedder)  # a later session: the Ollama model is not open yet
    ws.models.use_ollama_host(f"127.0.0.1:{closed_port()}")
    doc_id = built.hits[0].span.doc_id
    ws.remove_document(doc_id)  # no crash: the Ollama set waits to be brought up to date
    states = {i.model_id: i.state for i in ws.store.sets.chunk_sets()}
    assert states == {hash_embedder.model_id: "ready", OLLAMA: "building"}
    ws.models.use_ollama_host(standin.host)
    before = len(standin.embedded_texts())
    again = ws.search(QUESTION, other)
    assert again.set_id == built.set_id and all(h.span.doc_id != doc_id for h in again.hits)
    assert set(standin.embedded_texts()[before:]) <= {"dimension probe"}, "chunks come from the vector cache"
    ws.close()
