"""Both answers side by side (pytest-qt, offscreen): "Answer from A and B" answers from each side's own
passages one after the other, shown in two columns (stacked when narrow); each answer's citations open its
own side's passages. A question-set question gets each answer judged by the same model, label and reason
under the answer; the extractive backend says it cannot judge.

The generative model is a loopback stand-in speaking Ollama's API (``http.server`` on 127.0.0.1, random port)
with scripted replies: the answer is full when its prompt holds a second passage (side B, top 3) and short
otherwise (side A, one passage); the judge labels what it is shown.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from answer_support import DEPLOY, QUESTION, corpus  # noqa: F401 - corpus is a fixture
from ui_support import WAIT_MS

from workbench.core.retrieve.strategy.presets import Strategy, override
from workbench.core.spans import Span, merge_spans

pytest_plugins = ["ui_support"]

MODEL = "answerer:1b"
UNCOVERED = "How many days of annual leave do lab members get?"
STRATEGY_A = override(Strategy(top_k=1), size=32, window=1)  # one passage: the best chunk and its neighbours
STRATEGY_B = override(Strategy(top_k=3), size=32)  # three bare chunks


def reply(prompt: str) -> str:
    """The scripted model: answers, or (a judge prompt) labels the candidate answer."""
    if "Candidate answer:" in prompt:
        if "do NOT contain" in prompt:
            return ("CLEAN_NO: says the passages do not give it" if "do not say" in prompt
                    else "PADDED: states a number the documents do not give")
        return ("ANSWERED: explains why the schema must exist first" if "FULL answer" in prompt
                else "PARTIAL: misses why old servers are safe")
    if UNCOVERED in prompt:
        return "The passages do not say." if 'id="2"' in prompt else "Lab members get 30 days [1]."
    return "FULL answer [1][2]." if 'id="2"' in prompt else "SHORT answer [1]."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _send(self, body: bytes, kind: str = "application/json") -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/api/version":
            return self._send(json.dumps({"version": "0.12.6"}).encode())
        details = {"format": "gguf", "family": "llama", "parameter_size": "1B", "quantization_level": "Q4"}
        return self._send(json.dumps({"models": [{"name": MODEL, "model": MODEL, "size": 1, "details": details,
                                                  "modified_at": "2025-01-01T00:00:00Z",
                                                  "digest": "0" * 64}]}).encode())

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path == "/api/show":
            return self._send(json.dumps({"template": "{{ .System }}{{ .Prompt }}", "details": {"family": "llama"},
                                          "model_info": {"llama.context_length": 8192},
                                          "capabilities": ["completion"]}).encode())
        prompt = "\n".join(m["content"] for m in body["messages"])
        self.server.prompts.append(prompt)
        final = {"model": body["model"], "created_at": datetime.now(timezone.utc).isoformat(), "done": True,
                 "message": {"role": "assistant", "content": reply(prompt)}, "done_reason": "stop",
                 "prompt_eval_count": 10, "eval_count": 5}
        if not body.get("stream", True):
            return self._send(json.dumps(final).encode())
        return self._send((json.dumps(final) + "\n").encode(), "application/x-ndjson")


@pytest.fixture
def ollama():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.prompts = []
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def ws(corpus, hash_ws):  # noqa: F811 - the imported fixture is used here
    assert not hash_ws.add_paths([str(corpus)]).failed
    return hash_ws


def reference_span(ws) -> Span:
    """The "why the migration runs first" section of deploy.md: the reference of QUESTION."""
    doc = next(d for d in ws.store.documents.rows() if d["path"].endswith("deploy.md"))
    text = ws.corpus.doc_text(doc["id"])
    start = text.index("The new release reads")
    return Span(doc["id"], start, text.index("## How to roll out"))


def open_set_question(qtbot, window, question: str, spans: list) -> None:
    """Open ``question`` as the lab's drill-down does (side by side, reference spans) and wait for both sides."""
    compare = window.compare
    with qtbot.waitSignals([compare.a.resultShown, compare.b.resultShown], timeout=WAIT_MS):
        window._drill_down(question, spans)


def ask_both(qtbot, panel) -> list:
    panel.set_sides("A and B")
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS) as done:
        panel.ask.click()
        assert panel.stop.isEnabled() and not panel.ask.isEnabled() and not panel.sides.isEnabled()
    jobs = done.args[0]
    assert [j.side for j in jobs] == ["A", "B"]
    assert panel.ask.isEnabled() and not panel.stop.isEnabled()
    return jobs


def passage_spans(side) -> set:  # SidePanel
    return {(p.span.doc_id, p.span.start, p.span.end) for p in side.controller.result.passages}


def test_extractive_answers_from_a_and_b_cite_their_own_passages(qtbot, make_window, ws, ui_settings):
    from workbench.ui.answer.answer_column import SPAN_ROLE
    from workbench.ui.answer.answer_judging import NOT_GENERATIVE
    from workbench.ui.explore.render import rendered_spans

    ui_settings.setValue("llm/backend", "extractive")
    window = make_window(ws)
    window.model.set_strategy("A", STRATEGY_A)
    window.model.set_strategy("B", STRATEGY_B)
    panel, compare = window.answer, window.compare
    open_set_question(qtbot, window, QUESTION, [reference_span(ws)])
    sides = {"A": compare.a, "B": compare.b}
    assert not passage_spans(compare.a) & passage_spans(compare.b), "the two sides read different passages"
    jobs = ask_both(qtbot, panel)
    for job in jobs:
        side, column = sides[job.side], panel.columns[job.side]
        assert job.extractive and job.sources and job.quotes
        assert all(span in passage_spans(side) for _, span in job.sources), f"{job.side} cites its own passages"
        assert column.isVisibleTo(panel) and column.answer.toPlainText() == job.text
        assert column.sources.count() == len(job.sources) and "tokens in/out n/a" in column.stats.text()
        assert column.verdict.text() == NOT_GENERATIVE and column.verdict.isVisibleTo(panel)
        quotes = [Span(*q) for q in job.quotes]
        assert all(any(p.span.doc_id == q.doc_id and p.span.start <= q.start and q.end <= p.span.end
                       for p in side.controller.result.passages) for q in quotes)
        assert rendered_spans(side.results.document(), side.results.pmap, "quote") == merge_spans(quotes)
        assert "quote" in side.legend.kinds
    # a citation of B opens B's passage in the document view
    item = panel.columns["B"].sources.item(panel.columns["B"].sources.count() - 1)
    with qtbot.waitSignal(panel.sourceActivated, timeout=WAIT_MS) as opened:
        panel.columns["B"].sources.itemActivated.emit(item)
    assert opened.args[0] == Span(*item.data(SPAN_ROLE))
    assert compare.bottom_tabs.currentWidget() is compare.doc_pane
    # a citation [n] in B's answer is a link: B's passage scrolls into view and flashes
    from PySide6.QtCore import QUrl

    cited = Span(*panel.columns["B"].sources.item(0).data(SPAN_ROLE))
    number = int(panel.columns["B"].sources.item(0).text()[1:].split("]")[0])
    assert f"cite:{number}" in panel.columns["B"].answer.toHtml()
    panel.columns["B"].answer.anchorClicked.emit(QUrl(f"cite:{number}"))
    flashed = compare.b.results.flashed
    assert flashed is not None and compare.b.controller.result.passages[flashed].span.start <= cited.start
    # … at the sentence the answer quoted from it, not the passage's top: that sentence is selected and in view
    job_b = next(j for j in jobs if j.side == "B")
    quoted = sorted((q for q in (Span(*t) for t in job_b.quotes) if q.doc_id == cited.doc_id
                     and cited.start <= q.start < cited.end), key=lambda q: q.start)
    assert quoted, "an extractive answer quotes the passages it cites"
    view = compare.b.results
    selection = view.textCursor()
    assert selection.selectionStart() == view.pmap.position_of(quoted[0].doc_id, quoted[0].start, tag=flashed)
    top = view.cursorRect(selection).top()
    assert 0 <= top < view.viewport().height(), "the quoted sentence is in view"
    # narrow: the answers stack; wide: side by side
    window.set_library_shown(False)
    compare.show_bottom_tab(window.answer_page)
    window.resize(700, 700)
    qtbot.waitUntil(lambda: panel.column_box.direction().name == "TopToBottom", timeout=WAIT_MS)
    window.resize(1400, 800)
    qtbot.waitUntil(lambda: panel.column_box.direction().name == "LeftToRight", timeout=WAIT_MS)
    # one side on request: only B's column answers
    panel.set_sides("B")
    assert not panel.columns["A"].isVisibleTo(panel) and panel.columns["B"].isVisibleTo(panel)
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS) as done:
        panel.ask.click()
    assert [j.side for j in done.args[0]] == ["B"]
    # a typed question is not from the question set: no judge line
    window.model.set_question("How do I descale the coffee machine?")
    panel.set_sides("A and B")
    with qtbot.waitSignal(panel.runFinished, timeout=WAIT_MS):
        panel.ask.click()
    assert all(not c.verdict.isVisibleTo(panel) for c in panel.columns.values())


def test_generative_answers_are_judged_with_labels_and_reasons(qtbot, make_window, ws, ui_settings, ollama):
    host = f"127.0.0.1:{ollama.server_address[1]}"
    for key, value in (("backend", "ollama"), ("model", MODEL), ("host", host)):
        ui_settings.setValue(f"llm/{key}", value)
    window = make_window(ws)
    window.model.set_strategy("A", STRATEGY_A)
    window.model.set_strategy("B", STRATEGY_B)
    panel = window.answer
    open_set_question(qtbot, window, QUESTION, [reference_span(ws)])
    a, b = ask_both(qtbot, panel)
    assert (a.text, b.text) == ("SHORT answer [1].", "FULL answer [1][2].")
    assert (a.verdict, a.reason) == ("partial", "misses why old servers are safe")
    assert (b.verdict, b.reason) == ("answered", "explains why the schema must exist first")
    assert panel.columns["A"].verdict.text() == "judge (covered): partial — misses why old servers are safe"
    assert panel.columns["B"].verdict.text().startswith("judge (covered): answered — explains why")
    for job, side in ((a, window.compare.a), (b, window.compare.b)):
        column = panel.columns[job.side]
        assert column.answer.toPlainText() == job.text and column.verdict.isVisibleTo(panel)
        assert "10 prompt + 5 output tokens" in column.stats.text() and "total" in column.stats.text()
        assert [label[:3] for label, _ in job.sources] == (["[1]"] if job.side == "A" else ["[1]", "[2]"])
        assert all(span in passage_spans(side) for _, span in job.sources)
    judged = [p for p in ollama.prompts if "Candidate answer:" in p]
    assert len(judged) == 2 and all("The new release reads the invoice table" in p for p in judged)
    # a question the corpus does not cover: padded (A invents) and clean no (B declines)
    open_set_question(qtbot, window, UNCOVERED, [])
    a, b = ask_both(qtbot, panel)
    assert (a.verdict, b.verdict) == ("padded", "clean_no")
    assert panel.columns["A"].verdict.text() == ("judge (not covered): padded — states a number the documents "
                                                 "do not give")
    assert panel.columns["B"].verdict.text().startswith("judge (not covered): clean no — says the passages")
