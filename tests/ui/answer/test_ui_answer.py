"""The answer panel without Ollama (pytest-qt, offscreen): the extractive answer is labelled as such, cites
its passages, and its quoted sentences are highlighted inside strategy A's passages (with a legend entry)."""

from __future__ import annotations

import pytest
from answer_support import QUESTION, closed_host, corpus  # noqa: F401 - corpus is a fixture
from ui_support import WAIT_MS, search

from workbench.core.spans import Span, merge_spans

pytest_plugins = ["ui_support"]


@pytest.fixture
def ws(corpus, fresh_ws):  # noqa: F811 - the imported fixture is used here
    assert not fresh_ws.add_paths([str(corpus)]).failed
    return fresh_ws


def test_extractive_answer_is_labelled_cited_and_highlighted(qtbot, make_window, ws, ui_settings):
    """On the real model: the sentences it picks (from the deploy guide's passage [1]) are checked here."""
    from workbench.core.llm.no_model import LABEL
    from workbench.ui.explore.render import rendered_spans

    ui_settings.setValue("llm/host", closed_host())  # auto, and no Ollama answers there
    window = make_window(ws)
    panel, side = window.answer, window.compare.a
    assert "extractive" in panel.ask.toolTip()
    search(qtbot, window, QUESTION)
    assert rendered_spans(side.results.document(), side.results.pmap, "quote") == []
    assert "quote" not in side.legend.kinds
    with qtbot.waitSignal(panel.answered, timeout=WAIT_MS) as done:
        panel.ask.click()
    job = done.args[0]
    assert job.extractive and job.quotes
    assert panel.stats.text().startswith(LABEL) and "tokens in/out n/a" in panel.stats.text()
    assert panel.answer.toPlainText() == job.text and "[1]" in job.text
    assert panel.sources.count() >= 1 and panel.sources.item(0).text().startswith("[1] [deploy.md]")
    quotes = [Span(*q) for q in job.quotes]
    for q in quotes:  # every quoted sentence lies inside one of the passages A shows
        assert any(p.span.doc_id == q.doc_id and p.span.start <= q.start and q.end <= p.span.end
                   for p in side.controller.result.passages)
    drawn = rendered_spans(side.results.document(), side.results.pmap, "quote")
    assert drawn == merge_spans(quotes), "exactly the quoted sentences carry the quote colour"
    assert "quote" in side.legend.kinds and "quoted in the answer" in side.legend.plain_text()
    search(qtbot, window, "How do I descale the coffee machine?")  # a new question: the old quotes go
    assert rendered_spans(side.results.document(), side.results.pmap, "quote") == []
    assert "quote" not in side.legend.kinds
