"""Answer judging: the label parser, the one retry, 'unjudged' instead of a crash, reports — with a tiny
scripted backend standing in for the LLM (it tests the parser, not a model) — and one short real run."""

import pytest
from eval_support import sample_questions

from workbench.core.evaluate.answer_report import label_changes, label_summary
from workbench.core.evaluate.datasets import save_question_set
from workbench.core.evaluate.judge import (
    UNJUDGED,
    answer_and_judge,
    backend_name,
    judge_answer,
    parse_judgement,
)
from workbench.core.evaluate.records import load_run, save_run
from workbench.core.evaluate.sweep import expand_grid, run_sweep


class ScriptedBackend:
    """Replies from a list in order (the last one repeats); remembers every request."""

    label = "scripted-test-model"

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []

    def complete(self, messages, max_tokens=256, temperature=0.0):
        self.requests.append(messages)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply


@pytest.mark.parametrize("text, covered, expect", [
    ("ANSWERED: it gives the 49 euro price", True, ("answered", "it gives the 49 euro price")),
    ("**Partial** - misses the ID card rule", True, ("partial", "misses the ID card rule")),
    ("Label: NO. The answer is about buses.", True, ("clean_no", "The answer is about buses.")),  # seed 000: clean no
    ("Sure!\nNO:\nit says it does not know", True, ("clean_no", "it says it does not know")),
    ('{"label": "answered", "reason": "matches"}', True, ("answered", "matches")),
    ("CLEAN_NO: declines without inventing", False, ("clean_no", "declines without inventing")),
    ("clean no - says the context does not say", False, ("clean_no", "says the context does not say")),
    ("PADDED: invents a price", False, ("padded", "invents a price")),
    ("NO: wrong", False, None),  # 'no' is not a label for a question the corpus does not cover
    ("CLEAN_NO: fine", True, ("clean_no", "fine")),
    ("PARTIAL: declines but guesses 42", False, ("partial", "declines but guesses 42")),
    ("PADDED: invents", True, None),
    ("Nothing useful here, not sure.", True, None),
    ("", True, None),
])
def test_parse_judgement(text, covered, expect):
    assert parse_judgement(text, covered) == expect


def test_unparseable_reply_is_retried_once_then_unjudged():
    ok = ScriptedBackend(["I think it is fine", "PARTIAL: only half"])
    v = judge_answer(ok, "q?", "an answer", ["ref"])
    assert (v.label, v.reason, v.attempts) == ("partial", "only half", 2)
    assert ok.requests[1][-1]["role"] == "user" and "ANSWERED, PARTIAL, CLEAN_NO" in ok.requests[1][-1]["content"]
    bad = ScriptedBackend(["blah", "still blah"])
    v = judge_answer(bad, "q?", "an answer", [])
    assert v.label == UNJUDGED and v.attempts == 2 and "still blah" in v.reason and len(bad.requests) == 2
    broken = ScriptedBackend([RuntimeError("model crashed")])
    v = judge_answer(broken, "q?", "an answer", ["ref"])
    assert v.label == UNJUDGED and "model crashed" in v.reason


def test_answer_and_judge_fills_rows_counts_and_records(tmp_path, hash_ws):
    questions, corpora = sample_questions(["transit-prices", "lab-safety"])
    questions.append({"question": "Who won the 1998 chess olympiad?", "corpus_id": "lab-safety", "references": []})
    qset = save_question_set(tmp_path / "qs", questions, corpora)
    sweep = run_sweep(hash_ws, qset, expand_grid(["plain"], "window=0,1"))
    # answer, judge, answer, judge ... : covered questions get ANSWERED then gibberish twice, etc.
    replies = ["It costs 49 euros.", "ANSWERED: right price",
               "Use the spill kit.", "???", "PARTIAL: incomplete",
               "Keep it low.", "nonsense", "more nonsense",
               "The context does not say.", "CLEAN_NO: declines"]
    backend = ScriptedBackend(replies + ["The context does not say.", "PADDED: invents"])
    answer_and_judge(hash_ws, backend, qset, sweep)
    rows = sweep.results[0].rows
    assert [r.label for r in rows] == ["answered", "partial", UNJUDGED, "clean_no"]
    assert rows[0].answer == "It costs 49 euros." and rows[0].extra["reason"] == "right price"
    assert rows[2].extra["judge_attempts"] == 2
    first_prompt = backend.requests[0][-1]["content"]
    assert "49 euros" in first_prompt and "How much does a monthly transit pass cost?" in first_prompt
    assert all(r.extra["input_tokens"] > 20 for r in rows)
    summary = label_summary(rows)
    assert summary["counts"]["answered"] == 1 and summary["counts"][UNJUDGED] == 1 and summary["judged"] == 4
    assert summary["median_input_tokens"] > 0
    changes = label_changes(sweep.results[0].rows, sweep.results[1].rows)
    assert {(c["q_index"], c["before"], c["after"]) for c in changes} >= {(3, "clean_no", "padded")}
    run_id = save_run(hash_ws, qset, sweep, kind="answers", llm_model=backend_name(backend))
    info, loaded = load_run(hash_ws, run_id)
    assert info.config["llm"] == {"model": "scripted-test-model"}
    assert info.summary["answers"][sweep.results[0].config.key]["counts"]["partial"] == 1
    assert [(r.answer, r.label, r.extra) for r in loaded[0].rows] == [(r.answer, r.label, r.extra) for r in rows]


@pytest.mark.llm
@pytest.mark.slow
def test_one_short_real_run_with_the_embedded_model(tmp_path, hash_ws):
    llm = pytest.importorskip("workbench.core.llm")
    try:
        backend = llm.open_backend("embedded")
    except Exception as exc:  # the packaged GGUF model is an optional install
        pytest.skip(f"embedded model unavailable: {exc}")
    questions, corpora = sample_questions(["transit-prices"])
    qset = save_question_set(tmp_path / "qs", questions, corpora)
    sweep = run_sweep(hash_ws, qset, expand_grid(["plain"]))
    answer_and_judge(hash_ws, backend, qset, sweep, max_answer_tokens=32)
    [row] = sweep.results[0].rows
    assert isinstance(row.answer, str) and row.answer
    assert row.label in ("answered", "partial", "clean_no", UNJUDGED) and row.extra["reason"]
    assert 1 <= row.extra["judge_attempts"] <= 2


def _row(q_index, recall, label, reason=""):
    from workbench.core.evaluate.metrics import question_metrics
    from workbench.core.evaluate.sweep import QuestionResult
    from workbench.core.spans import Span

    refs = [] if recall is None else [Span(1, 0, 100)]
    got = [Span(1, 0, int(100 * recall))] if recall else [Span(1, 500, 600)]
    return QuestionResult(q_index, f"q{q_index}", "c", got, question_metrics(got, refs), "an answer", label,
                          {"reason": reason})


def test_summary_agreement_and_accounting_from_rows():
    from workbench.core.evaluate.answer_report import answer_accounting, format_answer_table

    a = [_row(0, 1.0, "answered", "right"), _row(1, 0.0, "clean_no"), _row(2, 0.0, "answered"),
         _row(3, 0.5, "partial"), _row(4, 0.9, "no", "old run's label"), _row(5, None, "partial"),
         _row(6, None, "clean_no"), _row(7, None, UNJUDGED)]
    s = label_summary(a)
    assert s["covered"] == {"answered": 2, "partial": 1, "clean_no": 2}
    assert s["not_covered"] == {"partial": 1, "clean_no": 1, "padded": 0}
    assert (s["unjudged"], s["unjudged_share"], s["judged"]) == (1, 1 / 8, 8)
    # decisive rows: #0 (1.0, answered: agrees), #1 (0, clean no: agrees), #2 (0, answered: no), #4 (0.9, no: no)
    assert s["agreement"] == {"agree": 2, "of": 4, "share": 0.5}
    table = format_answer_table({"A": s})
    assert "covered (5 q)" in table and "not covered (3 q)" in table and "1/8 (12%)" in table and "2/4 (50%)" in table
    b = [_row(0, 1.0, "clean_no", "misses it"), _row(1, 0.0, "answered", "now right"), _row(2, 0.0, "partial"),
         _row(3, 0.5, "answered"), _row(4, 0.9, "answered"), _row(5, None, "padded"), _row(6, None, "clean_no"),
         _row(7, None, "clean_no")]
    acc = answer_accounting(a, b)
    assert (acc["both_correct"], acc["both_wrong"], acc["unjudged"]) == (1, 1, 1)  # #6; #5; #7
    assert [x["q_index"] for x in acc["fixed"]] == [1, 3, 4] and [x["q_index"] for x in acc["broke"]] == [0, 2]
    assert acc["broke"][0]["reason_before"] == "right" and acc["broke"][0]["reason_after"] == "misses it"


def test_judge_prompt_carries_the_reference_answer():
    from workbench.core.evaluate.judge import judge_messages

    with_answer = judge_messages("q?", "cand", ["passage"], "forty-nine euros")[-1]["content"]
    assert "Reference answer:\n<reference-answer-" in with_answer and "\nforty-nine euros\n</reference-answer-" \
        in with_answer and "passage" in with_answer
    assert "Reference answer" not in judge_messages("q?", "cand", ["passage"])[-1]["content"]
    assert "PARTIAL, CLEAN_NO or PADDED" in judge_messages("q?", "cand", [], "ignored")[-1]["content"]
