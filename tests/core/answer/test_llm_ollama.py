"""The Ollama backend through the real official ``ollama`` client over real HTTP.

No Ollama server can exist in CI, so these tests run a loopback stand-in: ``http.server`` in a thread on
127.0.0.1 (random port) implementing Ollama's API — ``/api/version``, ``/api/tags``, ``/api/show``,
``/api/chat`` and ``/api/generate`` streaming newline-delimited JSON, ``/api/embed``, and Ollama's error
bodies (``{"error": "model 'x' not found"}`` with 404). Answers come from the deterministic stand-in LLM
(``llm_standin``), embeddings from the hashed embedder: the client and the protocol are the point here.
Failure modes: connection refused, a model that is not pulled, a stream
cut mid-answer, a server slower than the client's timeout, and a prompt longer than ``num_ctx``.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone

import numpy as np
import pytest
from llm_standin import StandInLLM
from ollama_embed_standin import OllamaHandler, closed_port, serve, tag

from workbench.core.jobs import CancelToken
from workbench.core.llm import (
    BackendTimeout,
    BackendUnavailable,
    ContextTooLong,
    GenerateOptions,
    ModelNotFound,
    list_backends,
    open_backend,
)
from workbench.core.llm.ollama_backend import OllamaBackend, OllamaEmbedder, make_client, server_version

MODEL = "smollm2:135m"
TEMPLATE = "{{ if .System }}<|im_start|>system\n{{ .System }}<|im_end|>\n{{ end }}{{ .Prompt }}"
SHORT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Name a colour."}]


class StandIn:
    """A loopback server speaking Ollama's API, answering with ``backend`` (the stand-in LLM)."""

    def __init__(self, backend: StandInLLM, embedder) -> None:
        self.backend, self.embedder = backend, embedder
        self.mode = "normal"  # "cut": drop the connection after 3 tokens; "slow": wait before answering
        self.requests: list[tuple[str, dict]] = []
        self.disconnects = 0
        self.release = threading.Event()
        self.httpd = serve(self, _Handler)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    def tags(self) -> list[dict]:
        """The one chat model, as ``/api/tags`` lists it."""
        return [tag(MODEL, 98_362_432, {"format": "gguf", "family": "llama", "parameter_size": "135M",
                                        "quantization_level": "Q4_1"})]

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(OllamaHandler):
    def do_POST(self) -> None:
        body = self._read()
        if self.path == "/api/embed":
            return self._embed(body)
        if body.get("model") != MODEL:
            return self._json(404, {"error": f"model '{body.get('model')}' not found"})
        if self.path == "/api/show":
            return self._json(200, {"template": TEMPLATE, "model_info": {"llama.context_length": 8192},
                                    "details": {"family": "llama"}, "capabilities": ["completion"]})
        if self.path not in ("/api/chat", "/api/generate"):
            return self._json(404, {"error": "not found"})
        if self.s.mode == "slow":
            self.s.release.wait(5)
        messages = body.get("messages") or [{"role": "user", "content": body.get("prompt", "")}]
        opts = body.get("options") or {}
        n_ctx = opts.get("num_ctx")
        if n_ctx and self.s.backend.prompt_tokens(messages) > n_ctx:
            n = self.s.backend.prompt_tokens(messages)
            return self._json(400, {"error": f"request ({n} tokens) exceeds the available context size "
                                             f"({n_ctx} tokens), try increasing it"})
        self._answer(body, messages, opts)

    def _answer(self, body: dict, messages: list[dict], opts: dict) -> None:
        chat = self.path == "/api/chat"
        gen = self.s.backend.generate(messages, GenerateOptions(
            max_tokens=opts.get("num_predict", 32), temperature=opts.get("temperature", 0.8),
            seed=opts.get("seed", 0)), stream=body.get("stream", True))
        started = time.perf_counter_ns()

        def line(piece: str, done: bool, **extra) -> dict:
            now = datetime.now(timezone.utc).isoformat()
            part = {"message": {"role": "assistant", "content": piece}} if chat else {"response": piece}
            return {"model": MODEL, "created_at": now, **part, "done": done, **extra}

        if not body.get("stream", True):
            text = gen.run()
            return self._json(200, line(text, True, **_final(gen, started)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i, piece in enumerate(gen):
                if self.s.mode == "cut" and i == 3:
                    self.close_connection = True
                    return  # no terminating chunk: the connection just ends
                self._chunk(line(piece, False))
            self._chunk(line("", True, **_final(gen, started)))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.s.disconnects += 1
            self.close_connection = True

    def _chunk(self, obj: dict) -> None:
        data = (json.dumps(obj) + "\n").encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _final(gen, started: int) -> dict:
    s = gen.stats
    return {"done_reason": "length" if s.stop_reason == "length" else "stop",
            "total_duration": time.perf_counter_ns() - started, "prompt_eval_count": s.prompt_tokens,
            "eval_count": s.output_tokens}


@pytest.fixture(scope="module")
def embedded():
    """The model behind the server: a word per token (so "6 tokens" are 6 pieces), 1 ms each, 400 of them."""
    return StandInLLM("A colour: blue, like the sky on a clear and cloudless summer day. " * 30)


@pytest.fixture
def standin(embedded, hash_embedder):
    server = StandIn(embedded, hash_embedder)
    yield server
    server.close()


def test_version_tags_and_auto_pick_ollama(standin):
    assert server_version(standin.host) == "0.12.6"
    backend = open_backend("auto", host=standin.host)
    assert (backend.name, backend.model) == ("ollama", MODEL)
    infos = {i.name: i for i in list_backends(standin.host)}
    assert infos["ollama"].available and infos["ollama"].models[0]["name"] == MODEL
    assert "0.12.6" in infos["ollama"].detail and infos["embedded"].available


def test_streaming_chat_matches_the_model_and_fills_stats(standin, embedded):
    backend = OllamaBackend(MODEL, standin.host)
    gen = backend.generate(SHORT, GenerateOptions(max_tokens=6, temperature=0.0))
    pieces = list(gen)
    assert len(pieces) >= 2 and gen.text == "".join(pieces)
    assert gen.text == embedded.complete(SHORT, max_tokens=6)  # greedy: the same answer as in-process
    s = gen.stats
    assert (s.backend, s.model, s.interrupted) == ("ollama", MODEL, False)
    assert s.prompt_tokens == embedded.prompt_tokens(SHORT) and s.output_tokens == 6
    assert 0 < s.time_to_first_token_s <= s.total_s
    path, body = next(r for r in standin.requests if r[0] == "/api/chat")
    assert body["options"]["num_predict"] == 6 and body["options"]["temperature"] == 0.0
    assert body["messages"][0]["role"] == "system"  # the template has .System: no folding
    assert backend.complete(SHORT, max_tokens=6) == gen.text


def test_generate_endpoint_streams_ndjson_through_the_client(standin):
    parts = list(make_client(standin.host, 10).generate(MODEL, "Name a colour.", stream=True,
                                                        options={"num_predict": 4, "temperature": 0}))
    assert parts[-1].done and parts[-1].eval_count == 4 and "".join(p.response for p in parts)


def test_no_server_is_one_actionable_message():
    host = f"127.0.0.1:{closed_port()}"
    with pytest.raises(BackendUnavailable) as err:
        open_backend("ollama", host=host)
    assert str(err.value) == (f"Ollama is not running at {host} — start it with `ollama serve`, "
                              "or use the embedded model (--llm embedded)")
    assert open_backend("auto", host=host).name == "extractive"  # never the tiny embedded model
    with pytest.raises(BackendUnavailable):
        OllamaBackend(MODEL, host, check=False).complete(SHORT, max_tokens=2)


def test_model_not_pulled_names_the_pull_command(standin):
    with pytest.raises(ModelNotFound, match=r"run `ollama pull llama3\.2`"):
        open_backend("ollama", model="llama3.2", host=standin.host)
    with pytest.raises(ModelNotFound, match=r"ollama pull nope"):  # the server's 404 body, mid-session
        OllamaBackend("nope", standin.host, check=False).complete(SHORT, max_tokens=2)


def test_stream_cut_mid_answer_keeps_the_partial_answer(standin):
    standin.mode = "cut"
    gen = OllamaBackend(MODEL, standin.host).generate(SHORT, GenerateOptions(max_tokens=20))
    pieces = list(gen)
    assert len(pieces) == 3 and gen.text == "".join(pieces)
    assert gen.stats.interrupted and "connection to Ollama" in gen.stats.stop_reason


def test_slow_server_hits_the_timeout(standin):
    standin.mode = "slow"
    backend = OllamaBackend(MODEL, standin.host, timeout=0.5)
    started = time.perf_counter()
    with pytest.raises(BackendTimeout, match="did not answer in time"):
        backend.complete(SHORT, max_tokens=2)
    assert time.perf_counter() - started < 30, "the timeout ended the wait, not the server (which never answers)"
    standin.release.set()


def test_prompt_longer_than_num_ctx(standin):
    backend = OllamaBackend(MODEL, standin.host, num_ctx=16)
    with pytest.raises(ContextTooLong, match="exceeds the available context size"):
        backend.complete([{"role": "user", "content": "word " * 40}], max_tokens=2)


def test_stop_closes_the_stream(standin):
    cancel = CancelToken()
    gen = OllamaBackend(MODEL, standin.host).generate(SHORT, GenerateOptions(max_tokens=200), cancel=cancel)
    for i, _ in enumerate(gen):
        if i == 1:
            cancel.cancel()
    assert gen.stats.interrupted and gen.stats.stop_reason == "cancelled" and len(gen.pieces) <= 3
    deadline = time.monotonic() + 10
    while standin.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert standin.disconnects == 1  # the server saw the client go away and stopped generating


def test_ollama_embedder_matches_the_model_and_normalises(standin, hash_embedder):
    embedder = hash_embedder
    emb = OllamaEmbedder("all-minilm", standin.host, batch_size=2)
    texts = ["flush the page cache", "monthly pass price", "sensor drift"]
    vecs = emb.encode(texts)
    assert vecs.dtype == np.float32 and vecs.shape == (3, embedder.dim) == (3, emb.dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs, embedder.encode(texts), atol=1e-5)
    assert emb.model_id == "ollama:all-minilm" and emb.model_path is None
    assert sum(1 for p, _ in standin.requests if p == "/api/embed") >= 2  # batches of 2


def test_workbench_ask_answers_through_the_ollama_api(capsys, standin, hash_sample_ws, hash_cli):
    sample_ws = hash_sample_ws
    from workbench.cli import main

    args = ["ask", "How do I flush the cache?", "--data-dir", str(sample_ws.data_dir), "--host", standin.host,
            "--top-k", "1", "--max-tokens", "5", "--quiet"]
    assert main([*args, "--backend", "auto", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["stats"]["backend"], doc["stats"]["model"], doc["stats"]["output_tokens"]) == ("ollama", MODEL, 5)
    assert doc["answer"] and doc["passages"][0]["label"].startswith("[deploy-guide.md]")
    _, body = [r for r in standin.requests if r[0] == "/api/chat"][-1]
    assert "Question: How do I flush the cache?" in body["messages"][1]["content"]
    assert main([*args, "--backend", "ollama", "--model", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: model 'nope' is not pulled") and "`ollama pull nope`" in err
    assert len(err.splitlines()) == 1
