"""``workbench ask`` and ``workbench models`` in-process on the sample corpus (hashed embedder), answering
with the stand-in LLM where ``--backend embedded`` is asked for (``standin_llm``), and a socket guard proving
that no connection leaves loopback while answering — that one with the real embedded GGUF model, the only
test here that loads it."""

from __future__ import annotations

import ipaddress
import json
import socket

import pytest
from cli_support import run_cli

Q = "How do I flush the cache?"




def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def data(hash_sample_ws, hash_cli):
    return str(hash_sample_ws.data_dir)


def test_ask_streams_an_answer_with_sources_and_json_agrees(capsys, data, standin_llm):
    common = ["--data-dir", data, "--backend", "embedded", "--top-k", "2", "--max-tokens", "8", "--quiet"]
    code, out, err = run_cli(capsys, "ask", Q, *common)
    assert code == 0, err
    assert "\nSources:" in out and "2 passage(s)" in out and "stand-in stand-in-llm" in out
    code, out_json, _ = run_cli(capsys, "ask", Q, *common, "--json")
    assert code == 0
    doc = json.loads(out_json)
    assert {"answer", "citations", "passages", "stats"} <= set(doc)
    assert out.startswith(doc["answer"]) and doc["answer"].strip()  # greedy: the same text both times
    stats = doc["stats"]
    assert stats["backend"] == "stand-in" and 0 < stats["output_tokens"] <= 8 and stats["prompt_tokens"] > 0
    assert stats["output_tokens"] == 8 and stats["stop_reason"] == "length", "--max-tokens reaches the model"
    assert "Question: How do I flush the cache?" in standin_llm.requests[-1][-1]["content"]
    assert stats["time_to_first_token_s"] > 0 and stats["interrupted"] is False
    assert [p["number"] for p in doc["passages"]] == [1, 2]
    code, out, _ = run_cli(capsys, "search", Q, "--data-dir", data, "--top-k", "2", "--json", "--quiet")
    hits = json.loads(out)
    assert [(p["doc_id"], p["start"], p["end"]) for p in doc["passages"]] == \
        [(h["doc_id"], h["start"], h["end"]) for h in hits]
    assert doc["passages"][0]["label"].startswith("[deploy-guide.md]")
    for c in doc["citations"]:
        if c["valid"]:
            p = doc["passages"][c["number"] - 1]
            assert (c["doc_id"], c["start"], c["end"]) == (p["doc_id"], p["start"], p["end"])


def test_ask_context_budget_drops_passages_and_warns(capsys, data, standin_llm):
    code, out, err = run_cli(capsys, "ask", Q, "--data-dir", data, "--backend", "embedded", "--top-k", "3",
                             "--max-tokens", "2", "--context-budget", "260", "--json", "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["dropped"] and len(doc["passages"]) + len(doc["dropped"]) == 3
    assert sum(p["tokens"] for p in doc["passages"]) <= 260
    assert any("dropped" in w for w in doc["warnings"])


def test_errors_are_one_line_without_traceback(capsys, data, tmp_path, standin_llm):
    host = f"127.0.0.1:{closed_port()}"
    code, out, err = run_cli(capsys, "ask", Q, "--data-dir", data, "--llm", "ollama", "--llm-host", host)
    assert code == 1 and not out
    assert err == (f"workbench: error: Ollama is not running at {host} — start it with `ollama serve`, "
                   "or use the embedded model (--llm embedded)\n")
    code, _, err = run_cli(capsys, "ask", Q, "--data-dir", str(tmp_path / "empty"), "--llm", "embedded")
    assert code == 1 and "is no such folder" in err and len(err.splitlines()) == 1
    code, _, err = run_cli(capsys, "ask", Q, "--data-dir", data, "--llm", "embedded", "--llm-model", "/no/such.gguf")
    assert code == 1 and "GGUF" in err and "Traceback" not in err


def test_models_lists_backends(capsys):
    host = f"127.0.0.1:{closed_port()}"
    code, out, _ = run_cli(capsys, "models", "--host", host, "--json")
    assert code == 0
    rows = {r["backend"]: r for r in json.loads(out)}
    assert not rows["ollama"]["available"] and f"not running at {host}" in rows["ollama"]["detail"]
    assert rows["embedded"]["available"] and rows["embedded"]["models"][0]["size"] > 50_000_000
    assert rows["extractive"]["available"] and "extractive — no language model" in rows["extractive"]["detail"]
    code, out, _ = run_cli(capsys, "models", "--host", host)
    assert code == 0 and "embedded: available" in out and "SmolLM2-135M-Instruct.Q4_1" in out
    assert "extractive: available" in out and "tiny plumbing demo" in out


@pytest.mark.llm
@pytest.mark.slow
def test_no_connection_leaves_loopback_during_ask(capsys, data, monkeypatch):
    """With the real embedded model: llama.cpp runs in this process and must open no connection at all."""
    seen: list[object] = []
    outside: list[object] = []
    real_connect = socket.socket.connect
    real_create = socket.create_connection

    def loopback(address) -> bool:
        if isinstance(address, (str, bytes)):  # a Unix socket: local by definition
            return True
        try:
            return ipaddress.ip_address(address[0]).is_loopback
        except ValueError:
            return address[0] == "localhost"

    def guarded_connect(self, address):
        seen.append(address)
        if not loopback(address):
            outside.append(address)
            raise OSError(f"blocked: {address}")
        return real_connect(self, address)

    def guarded_create(address, *args, **kwargs):
        seen.append(address)
        if not loopback(address):
            outside.append(address)
            raise OSError(f"blocked: {address}")
        return real_create(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "create_connection", guarded_create)
    host = f"127.0.0.1:{closed_port()}"
    code, out, err = run_cli(capsys, "ask", Q, "--data-dir", data, "--backend", "auto", "--host", host,
                             "--top-k", "1", "--max-tokens", "4", "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out)["stats"]["backend"] == "extractive"  # auto fell back: no Ollama at that port
    code, out, err = run_cli(capsys, "ask", Q, "--data-dir", data, "--backend", "embedded", "--top-k", "1",
                             "--max-tokens", "4", "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out)["stats"]["backend"] == "embedded"  # the tiny model, chosen explicitly, stays local
    assert outside == []
    assert any(isinstance(a, tuple) and a[1] == int(host.split(":")[1]) for a in seen)  # the probe was seen
