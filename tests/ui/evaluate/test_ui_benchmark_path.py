"""The welcome's benchmark path and the Evaluation tab's *Bundled* menu (pytest-qt, offscreen, hashed embedder).

"Try a benchmark with reference answers" indexes Chroma's ``state_of_the_union`` corpus, loads its 76
questions into the Evaluation tab, scores A and B on them and opens one question side by side. The test
checks what the researcher sees against the bundled question set and the core metrics, computed here.
"""

from __future__ import annotations

import socket
import time

import pytest
from conftest import SAMPLE
from ui_support import WAIT_MS

from workbench.core.evaluate.bundled import bundled_sets
from workbench.core.evaluate.datasets import load_question_set, read_corpus
from workbench.core.evaluate.metrics import question_metrics
from workbench.core.evaluate.sweep import QuestionResult
from workbench.core.retrieve.strategy.presets import PRESETS
from workbench.core.spans import Span, merge_spans

pytest_plugins = ["ui_support"]
CORPUS = "state_of_the_union"
TOUR_MS = 300_000  # indexing ~50k characters at two chunk sizes on a busy 2-core machine


@pytest.fixture
def quiet_llm_host(ui_settings):
    """Point the welcome's Ollama probe at a loopback port where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ui_settings.setValue("llm/host", f"127.0.0.1:{port}")


def _label(m) -> str:  # QuestionMetrics
    return f"recall {m.recall:.2f} · precision {m.precision:.2f} · IoU {m.iou:.2f}"


def test_welcome_benchmark_path_shows_reference_spans_and_each_sides_metrics(qtbot, make_window, hash_ws,
                                                                             quiet_llm_host):
    window = make_window(hash_ws)
    modes: list[str] = []  # the lab's own mode shows while it scores, then Explore opens the question
    window.modes.currentChanged.connect(lambda _i: modes.append(window.mode()))
    dialog = window.open_welcome()
    started = time.perf_counter()
    dialog.benchmark_button.click()
    tour = window.dialogs.tour
    outcome: list[str] = []
    tour.finished.connect(lambda q: outcome.append(("finished", q)))
    tour.failed.connect(lambda msg: outcome.append(("failed", msg)))
    assert window.library.worker is not None and window.library.progress.isVisible(), "a progress bar meanwhile"
    qtbot.waitUntil(lambda: bool(outcome), timeout=TOUR_MS)
    print(f"\nbenchmark path (model already loaded): {time.perf_counter() - started:.1f} s")
    assert outcome[0][0] == "finished", outcome
    expected = load_question_set("chroma-general").subset(corpus=CORPUS)
    corpus_path = expected.corpora[CORPUS].resolve()

    # (a) the Evaluation tab holds the 76 questions of state_of_the_union, and scored A and B on them
    view = window.eval_view
    assert len(expected.questions) == 76
    loaded = view.model.question_set
    assert [(q.index, q.question) for q in loaded.questions] == [(q.index, q.question) for q in expected.questions]
    label = view.set_label.text()
    assert "76 questions; searching 1 of the set's 5 corpora (state_of_the_union" in label, label
    assert "--" not in label, "the window names no command-line option"
    assert window.lab_page.isAncestorOf(view) and not window.left_tabs.isAncestorOf(view)
    assert modes == ["evaluate", "explore"] and window.mode() == "explore", modes
    a, b = window.compare.a, window.compare.b
    assert a.strategy().to_dict() != b.strategy().to_dict()
    assert [r.config.strategy for r in view.results] == [a.strategy(), b.strategy()]
    assert all(len(r.rows) == 76 for r in view.results)

    # (b) side by side, the chosen question in the question bar and selected in the question table
    q = next(q for q in expected.questions if q.index == tour.q_index)
    assert q.covered and q.question == tour.question == outcome[0][1]
    assert window.side_by_side.isChecked() and window.model.side_by_side and b.isVisible()
    assert window.question.text() == q.question
    selected = view.questions.selectionModel().selectedRows()
    assert [view.questions.item(i.row(), 0).data(0) for i in selected] == [q.index + 1]  # numbered from 1

    # (c) the reference spans drawn are exactly the question's, as offsets into the stored corpus text
    doc = next(d for d in hash_ws.store.documents.rows() if d["path"] == str(corpus_path))
    text = hash_ws.corpus.doc_text(doc["id"])
    assert text == read_corpus(corpus_path)
    reference = [Span(doc["id"], r.start, r.end) for r in q.references]
    assert [text[s.start : s.end] for s in reference] == [r.content for r in q.references]
    assert window.compare.reference == reference
    pane = window.compare.doc_pane
    assert window.compare.bottom_tabs.currentWidget() is pane and pane.doc_id == doc["id"]
    assert pane.view.rendered("reference") == merge_spans(reference)
    assert "reference" in pane.legend.kinds
    assert pane.view.rendered("hit") and pane.view.rendered("only_a"), "hits and windows are drawn"

    # (d) each side's recall / precision / IoU is what the core metrics give for that side's passages
    shown = {}
    for side in (a, b):
        result = side.controller.result
        assert result.question == q.question and result.strategy == side.strategy()
        m = question_metrics([p.span for p in result.context.passages], reference)
        assert side.metrics.isVisible() and side.metrics.text() == _label(m)
        shown[side.name] = m
    # the question picked is the first covered one whose recall differs between A and B (the trade-off)
    assert abs(shown["A"].recall - shown["B"].recall) > 0.1
    rows_a, rows_b = view.results[0].rows, view.results[1].rows
    for ra, rb in zip(rows_a, rows_b, strict=True):
        if ra.q_index == q.index:
            break
        assert not ra.metrics.covered or abs(ra.metrics.recall - rb.metrics.recall) <= 0.1, ra.question


def test_bundled_menu_loads_chroma_general(qtbot, hash_ws):
    from workbench.ui.evaluate.eval_view import EvalView

    view = EvalView(hash_ws)
    qtbot.addWidget(view)
    view.bundled_menu.aboutToShow.emit()  # the menu is filled when it opens
    sets = bundled_sets()
    actions = view.bundled_menu.actions()
    assert [act.data() for act in actions] == [str(s.path) for s in sets]
    assert all(s.name in act.text() for s, act in zip(sets, actions, strict=True))
    chroma = next(s for s in sets if s.name == "chroma-general")
    action = next(act for act in actions if act.data() == str(chroma.path))
    action.trigger()
    assert view.model.question_set is not None and view.model.question_set.root == chroma.path.resolve()
    assert len(view.model.question_set.questions) == chroma.questions
    assert view.set_label.text() == (f"chroma-general: {chroma.questions} questions; searching the set's 5 corpora. "
                                     f"{chroma.questions} questions: differences in recall under ~5 points look "
                                     "like noise (80% power, α 0.05, at a typical spread of 0.35 per question)")
    assert all(c in view.set_label.toolTip() for c in chroma.corpora), "the corpora searched are named"
    assert view.load_question_set("chroma-general", corpus="no_such_corpus") is False
    assert "unknown corpus no_such_corpus" in view.status.text()
    assert len(view.model.question_set.questions) == chroma.questions, "a refused load keeps the loaded set"


def test_benchmark_path_refuses_while_indexing_and_picks_deterministically(qtbot, make_window, hash_ws):
    from workbench.ui.window.benchmark_tour import contrasting, pick_question

    window = make_window(hash_ws)
    with qtbot.waitSignal(window.library.indexingFinished, timeout=WAIT_MS):
        window.index_sample(SAMPLE)
        failed: list[str] = []
        tour = window.start_benchmark()
        assert tour.q_index is None
        tour.failed.connect(failed.append)
        assert not tour.start() and "already running" in failed[-1]
        assert "already running" in window.statusBar().currentMessage()
    assert not [d for d in hash_ws.store.documents.rows() if CORPUS in d["path"]], "nothing indexed for the tour"
    assert window.model.question_set is None

    plain, neighbours = PRESETS["plain"], PRESETS["neighbours"]
    assert contrasting(neighbours, plain) is plain
    assert contrasting(plain, plain) == neighbours and contrasting(neighbours, neighbours) == plain
    ref = [Span(1, 100, 200)]

    def row(i: int, got: list[Span], refs=ref) -> QuestionResult:
        return QuestionResult(i, f"q{i}", "c", got, question_metrics(got, refs))

    a = [row(0, [Span(1, 0, 50)], []), row(1, [Span(1, 100, 150)]), row(2, [Span(1, 100, 200)])]
    b = [row(0, [Span(1, 0, 50)], []), row(1, [Span(1, 100, 149)]), row(2, [Span(1, 0, 50)])]
    assert pick_question(a, b).q_index == 2, "the first covered question whose recall differs"
    assert pick_question(a, a).q_index == 1, "else the first covered question"
    assert pick_question(a[:1], b[:1]) is None
