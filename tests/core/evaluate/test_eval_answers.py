"""``eval --answers`` as the seeds run it, end to end through the real Ollama client over real HTTP: the
``ask`` prompt, seed 000's labels and table, a separate judge model, judge agreement, answers kept in run
records, ``runs --show``, exports, ``--compare`` (seed 004's accounting) and ``--rerun``.

The LLM is a loopback stand-in speaking Ollama's API (``http.server`` on 127.0.0.1, random port) whose
replies are scripted: the answering model answers fully when its prompt holds a third passage (top_k=3) and
briefly otherwise, or invents for the question the corpus does not cover; the judge model labels by what it
is shown. Every request is recorded with its model name.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cli_support import run_cli
from eval_support import sample_questions

from workbench.core.answer.prompt import SYSTEM_PROMPT
from workbench.core.evaluate.datasets import save_question_set

ANSWERER, JUDGE = "answerer:1b", "judge:7b"
UNCOVERED = "How many days of annual leave do lab members get?"
GARBLED = "Why must the fume hood sash stay low?"  # the judge never gives a usable label for it


def answerer_reply(prompt: str) -> str:
    if UNCOVERED in prompt:
        return "Lab members get 30 days of leave."
    return "FULL answer [1][3]." if 'id="3"' in prompt else "SHORT answer [1]."


def judge_reply(prompt: str) -> str:
    if GARBLED in prompt:
        return "hmm, hard to say"
    if "do NOT contain" in prompt:
        return "PADDED: states a number the documents do not give"
    if "FULL answer" in prompt:
        return "ANSWERED: matches the reference"
    return "NO: misses the main point"


class Server(ThreadingHTTPServer):
    requests: list[dict]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _json(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/api/version":
            return self._json({"version": "0.12.6"})
        details = {"format": "gguf", "family": "llama", "parameter_size": "1B", "quantization_level": "Q4"}
        return self._json({"models": [{"name": m, "model": m, "size": 1, "modified_at": "2025-01-01T00:00:00Z",
                                       "digest": "0" * 64, "details": details} for m in (ANSWERER, JUDGE)]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path == "/api/show":
            return self._json({"template": "{{ .System }}{{ .Prompt }}", "details": {"family": "llama"},
                               "model_info": {"llama.context_length": 8192}, "capabilities": ["completion"]})
        self.server.requests.append(body)
        prompt = "\n".join(m["content"] for m in body["messages"])
        text = judge_reply(prompt) if body["model"] == JUDGE else answerer_reply(prompt)
        now = datetime.now(timezone.utc).isoformat()
        final = {"model": body["model"], "created_at": now, "message": {"role": "assistant", "content": text},
                 "done": True, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5}
        if not body.get("stream", True):
            return self._json(final)
        data = (json.dumps(final) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def ollama():
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.requests = []
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def run_ok(capsys, *args):
    """stdout of a command that must succeed."""
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def test_answers_labels_table_agreement_records_compare_and_rerun(capsys, tmp_path, ollama, embedder):
    questions, corpora = sample_questions(["transit-prices", "lab-safety"])
    questions[0]["reference_answer"] = "49 euros a month"
    questions.append({"question": UNCOVERED, "corpus_id": "lab-safety", "references": []})
    qset = save_question_set(tmp_path / "qs", questions, corpora)
    assert qset.questions[0].reference_answer == "49 euros a month" and not qset.questions[3].covered
    host = f"127.0.0.1:{ollama.server_address[1]}"
    llm = ["--llm", "ollama", "--llm-model", ANSWERER, "--llm-host", host, "--data-dir", tmp_path / "data", "--quiet"]
    rows = json.loads(run_ok(capsys, "eval", tmp_path / "qs", "--strategy", "plain", "--grid", "top_k=1,3",
                              "--answers", "--judge-model", JUDGE, "--json", *llm))

    # the answerer answers with the ask prompt, the separate judge grades (the reference answer included)
    answers = [r for r in ollama.requests if r["model"] == ANSWERER]
    judged = [r for r in ollama.requests if r["model"] == JUDGE]
    assert len(answers) == 8 and len(judged) == 8 + 2  # the garbled question is asked twice, per configuration
    assert all(r["messages"][0]["content"] == SYSTEM_PROMPT and "<passage-" in r["messages"][1]["content"]
               for r in answers)
    first = [r for r in judged if "monthly transit pass" in r["messages"][-1]["content"]]
    assert first and all("Reference answer" in r["messages"][-1]["content"]
                         and "49 euros a month" in r["messages"][-1]["content"] for r in first)

    # seed 000's labels and counts: top_k=1 answers briefly (clean no), top_k=3 fully (answered)
    one, three = rows
    assert one["answers"]["covered"] == {"answered": 0, "partial": 0, "clean_no": 2}
    assert three["answers"]["covered"] == {"answered": 2, "partial": 0, "clean_no": 0}
    for r in rows:
        a = r["answers"]
        assert a["not_covered"] == {"partial": 0, "clean_no": 0, "padded": 1}
        assert a["unjudged"] == 1 and a["unjudged_share"] == pytest.approx(0.25)
        assert a["median_input_tokens"] > 50
        by_q = {x["question"]: x for x in r["judged_answers"]}
        assert by_q[UNCOVERED]["label"] == "padded" and "does not give" not in by_q[UNCOVERED]["answer"]
        assert by_q[UNCOVERED]["reason"] == "states a number the documents do not give"
        assert by_q[GARBLED]["label"] == "unjudged"

    # the record reproduces the table; the agreement figure matches span coverage computed from the export
    run_id = one["run_id"]
    shown = run_ok(capsys, "runs", "--show", run_id, "--data-dir", tmp_path / "data", "--out", tmp_path / "out")
    assert "answers: covered (3 q): answered / partial / clean no | not covered (1 q)" in shown
    assert "1/4 (25%)" in shown and "judge agrees" in shown
    per_q = json.loads((tmp_path / "out" / "questions.json").read_text())
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (tmp_path / "out" / "answers.csv").exists()
    for key, a in summary["answers"].items():
        mine = [q for q in per_q if q["key"] == key and q["recall"] is not None
                and q["label"] in ("answered", "partial", "clean_no") and (q["recall"] >= 0.8 or q["recall"] == 0)]
        agree = sum((q["label"] == "answered") if q["recall"] >= 0.8 else (q["label"] == "clean_no") for q in mine)
        assert (a["agreement"]["agree"], a["agreement"]["of"]) == (agree, len(mine))
        assert f"{agree}/{len(mine)}" in shown
    assert {q["answer"] for q in per_q} >= {"FULL answer [1][3].", "SHORT answer [1]."}
    assert all(q["reason"] for q in per_q)
    shown_json = json.loads(run_ok(capsys, "runs", "--show", run_id, "--data-dir", tmp_path / "data", "--json"))
    assert [r["answers"] for r in shown_json] == [r["answers"] for r in rows]

    # seed 004's accounting between the two configurations, with the judge's reasons in the text
    compared = run_ok(capsys, "eval", "--compare", f"{run_id}:1", f"{run_id}:2", *llm)
    assert "answers: 0 both correct, 1 both wrong, 2 fixed, 0 broke, 1 unjudged on either side" in compared
    assert "fixed #0    clean_no → answered" in compared
    assert "judge agrees with span coverage: A 0/2 (0%), B 2/2 (100%)" in compared
    assert "unjudged: A 1/4 (25%), B 1/4 (25%)" in compared
    assert "A: misses the main point" in compared and "B: matches the reference" in compared

    # --rerun answers again and is recorded as an answers run with both models
    before = len(ollama.requests)
    again = json.loads(run_ok(capsys, "eval", "--rerun", run_id, "--judge-model", JUDGE, "--json", *llm))
    assert len(ollama.requests) - before == 18
    assert [r["answers"]["covered"] for r in again] == [r["answers"]["covered"] for r in rows]
    listed = json.loads(run_ok(capsys, "runs", "--data-dir", tmp_path / "data", "--json"))
    assert [r["kind"] for r in listed[:2]] == ["answers", "answers"]
    from workbench.core.evaluate.records import find_run
    from workbench.core.workspace import Workspace

    ws = Workspace(tmp_path / "data", embedder=embedder)
    try:
        recorded = find_run(ws, again[0]["run_id"]).config["llm"]
        assert recorded["model"].startswith(ANSWERER) and recorded["judge_model"].startswith(JUDGE)
    finally:
        ws.close()
