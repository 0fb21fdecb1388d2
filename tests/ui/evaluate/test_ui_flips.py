"""The flip browser (questions A wins, B wins, ties between two configurations of a run) and the evidence
colouring of the document and results views (evidence / noise / missed reference characters)."""

from __future__ import annotations

import pytest
from guide_corpus import index_guides, section_reference
from ui_support import WAIT_MS, wait_result

from workbench.core.evaluate.flips import find_flips, flip_counts, reference_coverage
from workbench.core.evaluate.metrics import question_metrics
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult, SweepConfig
from workbench.core.retrieve.strategy.presets import Strategy, override
from workbench.core.spans import Span

pytest_plugins = ["ui_support"]

DOC = 1
# three reference spans per question, 100 characters each, in document 1
REFS = [Span(DOC, 0, 100), Span(DOC, 200, 300), Span(DOC, 400, 500)]


def _row(q: int, spans: list[Span], label: str | None = None, reason: str = "") -> QuestionResult:
    extra = {"reason": reason} if reason else {}
    return QuestionResult(q, f"question {q}?", "c", spans, question_metrics(spans, REFS), label=label, extra=extra)


def _pair(judged: bool = False) -> tuple[ConfigResult, ConfigResult]:
    """A and B over four questions: by recall B wins q0 (+67) and q1 (+17), A wins q2 (−33), q3 ties."""
    lab = (lambda x: x) if judged else (lambda _x: None)
    rows_a = [_row(0, REFS[:1], lab("partial"), "one step only"), _row(1, REFS[:2], lab("answered")),
              _row(2, REFS, lab("answered"), "complete"), _row(3, REFS[:2], lab("partial"))]
    rows_b = [_row(0, REFS, lab("answered"), "all steps"), _row(1, REFS[:2] + [Span(DOC, 400, 450)],
                                                                 lab("answered")),
              _row(2, REFS[:2], lab("clean_no"), "says it cannot tell"), _row(3, REFS[:2], lab("partial"))]
    a = ConfigResult(SweepConfig("plain", Strategy(top_k=3), "plain"), rows_a)
    b = ConfigResult(SweepConfig("plain window=1", Strategy(top_k=5), "plain"), rows_b)
    return a, b


def _refs(q_index, question):  # the lab's reference_spans(q_index, question)
    return REFS


def test_flips_by_recall_group_and_sort_by_change():
    a, b = _pair()
    flips = find_flips(a.rows, b.rows, "recall", lambda row: REFS)
    assert [(f.q_index, f.winner) for f in flips] == [(0, "B"), (2, "A"), (1, "B"), (3, "tie")]
    assert flip_counts(flips) == {"A": 1, "B": 2, "tie": 1}
    assert flips[0].refs_line == "1/3 refs covered → 3/3"
    assert flips[2].refs_line == "2/3 refs covered → 2/3", "half of the third reference is not covered"
    assert reference_coverage(b.rows[1].spans, REFS).shares == (1.0, 1.0, 0.5)


def test_flip_browser_lists_each_group_sorts_and_opens_side_by_side(qtbot):
    from workbench.ui.evaluate.flip_browser import FlipBrowser

    browser = FlipBrowser(_refs)
    qtbot.addWidget(browser)
    a, b = _pair()
    browser.set_results([a, b])
    assert browser.by.currentData() == "recall"
    assert [f.q_index for f in browser.shown_flips()] == [0, 2, 1, 3], "largest change first"
    assert "B wins 2, A wins 1, ties 1" in browser.counts.text()
    groups = {}
    for i in range(browser.group.count()):
        browser.group.setCurrentIndex(i)
        groups[browser.group.currentData()] = [f.q_index for f in browser.shown_flips()]
    assert groups == {None: [0, 2, 1, 3], "B": [0, 1], "A": [2], "tie": [3]}
    browser.group.setCurrentIndex(0)
    browser.sort_by_change(descending=False)
    assert [f.q_index for f in browser.shown_flips()] == [3, 1, 2, 0]
    table = browser.table
    browser.sort_by_change()
    assert table.item(0, 6).text() == "1/3 refs covered → 3/3"
    assert table.item(0, 4).text() == "33%" and table.item(0, 5).text() == "100%"
    emitted = []
    browser.pairActivated.connect(lambda sa, sb: emitted.append(("pair", sa, sb)))
    browser.questionActivated.connect(lambda q, refs: emitted.append(("question", q, refs)))
    table.itemActivated.emit(table.item(1, 2))  # a double click on the second row: q2, A wins
    assert emitted == [("pair", a.config.strategy, b.config.strategy), ("question", "question 2?", REFS)]


def test_flip_browser_by_answer_label_with_the_judges_reasons(qtbot):
    from workbench.ui.evaluate.flip_browser import FlipBrowser

    browser = FlipBrowser(_refs)
    qtbot.addWidget(browser)
    browser.set_results(list(_pair(judged=True)))
    assert browser.by.currentData() == "label", "a judged run compares answer labels"
    shown = {f.q_index: f.winner for f in browser.shown_flips()}
    assert shown == {2: "A", 0: "B", 1: "tie", 3: "tie"}
    assert [f.q_index for f in browser.shown_flips()][0] == 2, "answered → clean no is the largest change"
    table = browser.table
    assert (table.item(0, 4).text(), table.item(0, 5).text()) == ("answered", "clean_no")
    assert table.item(0, 7).text() == "A: complete | B: says it cannot tell"
    browser.choose("plain", "plain window=1", "recall")
    assert {f.q_index: f.winner for f in browser.shown_flips()} == {0: "B", 1: "B", 2: "A", 3: "tie"}


# ----- evidence colouring ---------------------------------------------------------------------------------
TOPICS = ["harbour", "glacier", "orchard", "lantern", "meadow", "quarry"]


@pytest.fixture
def guide_ws(hash_ws, tmp_path):
    """``hash_ws`` holding one guide of six topics (no model)."""
    return index_guides(hash_ws, tmp_path, ("guide",), TOPICS, 25)


def _format_at(view, doc_id: int, offset: int):
    """``(layer kinds, background colour)`` of the character at ``offset`` as drawn."""
    from PySide6.QtGui import QTextCursor

    from workbench.ui.basics.theme import KINDS_PROPERTY

    cursor = QTextCursor(view.document())
    cursor.setPosition(view.pmap.position_of(doc_id, offset) + 1)  # the format of the character before
    fmt = cursor.charFormat()
    return set(str(fmt.property(KINDS_PROPERTY) or "").split(",")), fmt.background().color().name()


def test_document_view_colours_evidence_noise_and_missed_at_known_offsets(qtbot, guide_ws):
    from workbench.ui.basics.theme import SWATCHES
    from workbench.ui.explore.doc_view import DocumentPane

    # neighbours ±1 around one hit: the passage's first chunk is a neighbour (not a hit), so plain colours
    result = guide_ws.search("is the orchard checked daily", override(Strategy(top_k=1), size=32, window=1))
    (passage,) = result.passages
    doc_id, p = passage.span.doc_id, passage.span
    assert p.start >= 40 and passage.hit_spans[0].start - p.start >= 40
    reference = [Span(doc_id, p.start - 30, p.start + 20), Span(doc_id, 0, 5)]  # straddles the start; unseen
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.set_results(result, None, reference)
    pane.show_doc(doc_id)
    assert pane.colour.isVisibleTo(pane) and pane.evidence_side() == "A", "one result: evidence by default"
    view = pane.view
    assert view.rendered("evidence") == [Span(doc_id, p.start, p.start + 20)]
    assert view.rendered("missed") == [Span(doc_id, 0, 5), Span(doc_id, p.start - 30, p.start)]
    assert view.rendered("noise") == [Span(doc_id, p.start + 20, p.end)]
    expected = {p.start - 10: "missed", p.start + 5: "evidence", p.start + 30: "noise", 2: "missed"}
    for offset, kind in expected.items():
        kinds, colour = _format_at(view, doc_id, offset)
        assert kind in kinds and not (kinds & {"evidence", "noise", "missed"}) - {kind}
        assert colour == SWATCHES[kind].background, f"{kind} at {offset}"
    kinds, _colour = _format_at(view, doc_id, p.end + 10)
    assert not kinds & {"evidence", "noise", "missed"}, "text neither retrieved nor reference stays plain"
    assert pane.legend.kinds[:3] == ["evidence", "noise", "missed"] and "reference" in pane.legend.kinds
    pane.set_evidence_side(None)  # back to the returned text
    assert view.rendered("window") and not view.rendered("evidence")
    assert pane.legend.kinds[0] == "hit"


def test_side_by_side_offers_each_sides_evidence_and_the_results_colour_it(qtbot, guide_ws):
    from workbench.ui.explore.doc_view import DocumentPane
    from workbench.ui.explore.evidence import evidence_spans
    from workbench.ui.explore.results_view import ResultsView

    ra = guide_ws.search("is the orchard checked daily", override(Strategy(top_k=1), size=32))
    rb = guide_ws.search("is the orchard checked daily", override(Strategy(top_k=3), size=32))
    doc_id = ra.passages[0].span.doc_id
    reference = section_reference(guide_ws, doc_id, "## Orchard", 400)
    pane = DocumentPane(guide_ws)
    qtbot.addWidget(pane)
    pane.set_results(ra, rb, reference)
    pane.show_doc(doc_id)
    assert pane.evidence_side() is None and pane.view.rendered("only_b"), "A/B diff stays the default"
    for side, result in (("A", ra), ("B", rb)):
        pane.set_evidence_side(side)
        expected = evidence_spans(result.spans(), reference)
        for kind in ("evidence", "noise", "missed"):
            assert pane.view.rendered(kind) == expected[kind], f"{kind} of {side}"
    results = ResultsView(guide_ws)
    qtbot.addWidget(results)
    results.show_result(rb, reference)
    expected = evidence_spans(rb.spans(), reference)
    assert results.rendered("evidence") == expected["evidence"]
    assert results.rendered("noise") == expected["noise"]
    assert not results.rendered("missed"), "a passage card holds retrieved text only"


def test_side_metrics_and_evidence_follow_the_knobs(qtbot, make_window, guide_ws):
    from workbench.ui.explore.compare_stats import metrics_line
    from workbench.ui.explore.evidence import evidence_spans

    window = make_window(guide_ws)
    side = window.compare.a
    doc_id = guide_ws.store.documents.rows()[0]["id"]
    text = guide_ws.corpus.doc_text(doc_id)
    start = text.index("## Orchard")
    reference = [Span(doc_id, start, start + 1200)]
    with qtbot.waitSignal(side.resultShown, timeout=WAIT_MS):
        window.compare.show_question("is the orchard checked daily", reference)
    seen = set()
    for top_k in (1, 4):
        result = wait_result(qtbot, side, lambda k=top_k: side.strategy_panel.top_k.setValue(k))
        assert len(result.passages) <= top_k
        assert side.metrics.text() == metrics_line(result.spans(), reference)
        assert side.results.rendered("evidence") == evidence_spans(result.spans(), reference)["evidence"]
        seen.add(side.metrics.text())
    assert len(seen) == 2, "the metrics line moved with the top-k slider"
    assert side.legend.kinds[:2] == ["evidence", "noise"]



def test_a_flip_opened_in_the_lab_shows_the_pair_side_by_side(qtbot, make_window, guide_ws):
    window = make_window(guide_ws)
    if window.eval_view is None:
        pytest.skip("workbench.ui.evaluate.eval_view is not installed")
    a, b = _pair()
    lab = window.eval_view
    lab.show_results("run-1", [a, b])
    assert (lab.lower_tabs.indexOf(lab.flip_browser) >= 0
            and lab.flip_browser.flips), "the Flips tab lists the run's pair"
    window.set_mode("evaluate")
    with qtbot.waitSignals([window.compare.a.resultShown, window.compare.b.resultShown], timeout=WAIT_MS):
        lab.flip_browser.open_flip(lab.flip_browser.shown_flips()[0])
    assert window.mode() == "explore" and window.compare.b.isVisible()
    assert window.question.text() == "question 0?"
    knobs = [(side.strategy().top_k, side.strategy().chunk) for side in (window.compare.a, window.compare.b)]
    assert knobs == [(c.strategy.top_k, c.strategy.chunk) for c in (a.config, b.config)], "A and B = the pair"


def test_baseline_tab_shows_intervals_and_follows_the_chosen_baseline(qtbot):
    """The Evaluation tab's *Against a baseline* panel words each comparison as ``eval --baseline`` does."""
    from workbench.core.evaluate.baseline import compare_to_baseline
    from workbench.ui.evaluate.baseline_panel import NEEDS_TWO, BaselinePanel

    panel = BaselinePanel()
    qtbot.addWidget(panel)
    a, b = _pair()
    panel.set_results([a])
    assert panel.text.toPlainText() == NEEDS_TWO and not panel.baseline.isEnabled()
    panel.set_results([a, b])
    text = panel.text.toPlainText()
    assert text.splitlines() == compare_to_baseline([a, b], 0).lines()
    assert "[plain]" in text.splitlines()[0] and "95% CI" in text
    panel.baseline.setCurrentIndex(1)
    assert panel.text.toPlainText().splitlines()[0].startswith("against baseline [plain window=1]")
