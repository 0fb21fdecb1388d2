"""The evaluation lab view (pytest-qt, offscreen) on a small question set over the sample corpus."""

import pytest
from eval_support import sample_questions
from PySide6.QtCore import Qt

from workbench.core.evaluate.datasets import save_question_set
from workbench.core.spans import Span
from workbench.ui.evaluate.eval_view import EvalView


@pytest.fixture
def view(qtbot, hash_ws, tmp_path):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    v = EvalView(hash_ws)
    qtbot.addWidget(v)
    assert v.load_question_set(tmp_path / "qs")
    yield v
    v.cancel()
    v.pool.waitForDone(30000)


def test_run_table_plot_drilldown_export(qtbot, view, tmp_path, hash_ws):
    assert "5 questions" in view.set_label.text()
    view.set_checked(["plain", "neighbours"])
    view.grid.setText("window=0,1 chunk_size=120")  # a chunk set to cut and embed, then scoring
    shown: list[tuple[int, int, str]] = []
    view.progress.valueChanged.connect(lambda v: shown.append((view.progress.maximum(), v, view.progress.format())))
    with qtbot.waitSignal(view.runFinished, timeout=120000) as finished:
        qtbot.mouseClick(view.run_button, Qt.LeftButton)
        assert view.running and not view.run_button.isEnabled()
    values = [v for top, v, _ in shown if top == 1000]
    assert values and values == sorted(values), "one bar for the whole sweep: it never restarts"
    phases = {text.split(" ")[0] for _, _, text in shown}
    assert {"Cutting", "Embedding", "Scoring"} <= phases, phases
    run_id = finished.args[0]
    assert not view.running and run_id in view.status.text()
    assert view.summary.rowCount() == 4
    assert [view.summary.item(i, 0).text() for i in range(4)] == [
        "plain window=0 chunk_size=120", "plain window=1 chunk_size=120", "neighbours window=0 chunk_size=120",
        "neighbours window=1 chunk_size=120"]
    assert all(0 <= float(view.summary.item(i, 1).text()) <= 100 for i in range(4))
    assert len(view.recall_plot.listDataItems()) == 2 and len(view.iou_plot.listDataItems()) == 2
    assert view.progress.value() == view.progress.maximum()

    # drill-down: 5 questions for the selected configuration, activation emits question + reference spans
    view.summary.selectRow(0)
    assert view.questions.rowCount() == 5
    view.compare_to.setCurrentIndex(2)  # compare with plain window=1
    changes = {view.questions.item(i, 7).text() for i in range(5)}
    assert not any(c.startswith("this better") for c in changes), "a wider window never loses recall"
    item = view.questions.item(0, 1)
    with qtbot.waitSignal(view.questionActivated) as activated:
        view.questions.itemActivated.emit(item)
    question, spans = activated.args
    assert question == item.text() and spans and all(isinstance(s, Span) for s in spans)
    q = next(q for q in view.model.question_set.questions if q.question == question)
    assert [hash_ws.corpus.doc_text(s.doc_id)[s.start : s.end] for s in spans] == [r.content for r in q.references]

    files = view.export_to(tmp_path / "export")
    assert all(p.exists() for p in files.values()) and files["plot_png"].read_bytes()[:4] == b"\x89PNG"

    # the run is recorded and can be reopened
    assert view.runs.count() == 1 and view.runs.currentData() == run_id
    view.summary.setRowCount(0)
    view.open_run(run_id)
    assert view.summary.rowCount() == 4 and view.run_id == run_id


def test_bad_inputs_and_cancel(qtbot, view, hash_ws):
    view.grid.setText("colour=1")
    assert not view.start() and "unknown grid parameter" in view.status.text()
    view.grid.setText("")
    view.set_checked([])
    assert not view.start() and "check at least one" in view.status.text()
    view.set_checked(["plain"])
    view.grid.setText("chunk_size=40")
    assert view.start()
    view.cancel()
    qtbot.waitUntil(lambda: not view.running, timeout=60000)
    assert view.status.text() == "cancelled" and view.run_button.isEnabled()
    assert view.runs.count() == 0, "a cancelled sweep records nothing"
    empty = EvalView(hash_ws)
    qtbot.addWidget(empty)
    assert not empty.start() and "question set" in empty.status.text()
    assert not empty.load_question_set(hash_ws.data_dir) and "questions.csv" in empty.status.text()


def test_a_large_sweep_asks_before_it_starts(qtbot, view):
    """Issue #35 item 8: a 1,000-configuration sweep started with no estimate or question."""
    asked: list[str] = []
    view.sweep.confirm = lambda problem: asked.append(problem) or False
    view.set_checked(["plain"])
    view.grid.setText("window=" + ",".join(map(str, range(10))) + " top_k=" + ",".join(map(str, range(1, 101))))
    assert not view.start() and not view.running
    assert "1,000 configurations" in asked[0] and "not started" in view.status.text()
    view.grid.setText("window=0,1")
    assert view.start() and len(asked) == 1, "a small sweep asks nothing"
    view.cancel()
    qtbot.waitUntil(lambda: not view.running, timeout=60000)


def test_the_vs_cell_says_which_configuration_is_better():
    from workbench.core.evaluate.metrics import question_metrics
    from workbench.core.evaluate.sweep import QuestionResult, compare_rows
    from workbench.ui.evaluate.eval_tables import change_words, question_columns

    ref = [Span(1, 0, 100)]

    def row(i, spans):
        return QuestionResult(i, f"q{i}", "c", spans, question_metrics(spans, ref, 10, 100))

    this = [row(0, ref), row(1, [])]  # answered question 0 fully, question 1 not at all
    compared = [row(0, []), row(1, ref)]
    words = change_words(compare_rows(compared, this))
    assert words == {0: "this better by 100", 1: "compared better by 100"}
    assert question_columns()[-1] == "vs compared"
