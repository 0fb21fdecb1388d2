"""``workbench eval``: every paired comparison says what its questions can detect and how many questions a
difference needs (text and JSON, figures recomputed here from the per-question results), and ``--limit`` takes a
seeded sample stratified by corpus, says so and records it."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from cli_support import run_cli
from eval_support import sample_questions, sotu_set

from workbench.core.evaluate.datasets import save_question_set

Z975, Z80 = 1.959964, 0.841621  # the normal quantiles, written out


def _expected(diffs: list[float], points: float) -> tuple[float, int | None]:
    """(detectable difference, questions needed for ``points``) from the closed form, computed here."""
    n, sd = len(diffs), float(np.std(diffs, ddof=1))
    needed = None if sd == 0 else max(2, math.ceil(((Z975 + Z80) * sd / (points / 100)) ** 2 + Z975 ** 2 / 2))
    return (Z975 + Z80) * sd / math.sqrt(n - Z975 ** 2 / 2), needed


QUESTIONS = 12


@pytest.fixture
def two_runs(capsys, tmp_path, hash_cli):
    root = sotu_set(tmp_path, limit=QUESTIONS)
    data = tmp_path / "data"
    common = ["--top-k", "1", "--chunk-size", "100", "--data-dir", data, "--quiet", "--json"]
    for name, strategy in (("a", ["--strategy", "plain"]), ("b", ["--strategy", "neighbours", "--window", "2"])):
        code, _, err = run_cli(capsys, "eval", root, *strategy, *common, "--out", tmp_path / name)
        assert code == 0, err
    code, out, _ = run_cli(capsys, "runs", "--data-dir", data, "--json")
    run_b, run_a = (r["id"] for r in json.loads(out))
    per = {}
    for name in ("a", "b"):
        per[name] = {r["q_index"]: r for r in json.loads((tmp_path / name / "questions.json").read_text())}
    diffs = {m: [per["b"][i][m] - per["a"][i][m] for i in sorted(per["a"])] for m in ("recall", "iou")}
    return data, run_a, run_b, diffs


def test_compare_says_what_the_questions_detect_and_what_a_difference_needs(capsys, two_runs):
    data, run_a, run_b, diffs = two_runs
    assert np.std(diffs["recall"]) > 0, "the two strategies differ on some question (else the check is empty)"
    code, out, err = run_cli(capsys, "eval", "--compare", run_a, run_b, "--data-dir", data, "--json")
    assert code == 0, err
    [comp] = json.loads(out)
    stats = comp["statistics"]
    assert stats["target_points"] == 5
    for metric in ("recall", "iou"):
        mdd, needed = _expected(diffs[metric], 5)
        power = stats["metrics"][metric]["power"]
        assert power["n"] == QUESTIONS and power["detectable"] == pytest.approx(mdd, rel=1e-5)
        assert power["questions_needed"] == needed and power["target"] == pytest.approx(0.05)
        assert stats["metrics"][metric]["mdd"] == pytest.approx(mdd, rel=1e-5)
    assert stats["metrics"]["context_tokens"]["power"]["questions_needed"] is None, "no points target for tokens"

    code, out, _ = run_cli(capsys, "eval", "--compare", run_a, run_b, "--data-dir", data, "--detect", "3")
    mdd, needed = _expected(diffs["recall"], 3)
    assert code == 0 and f"minimum detectable difference at n = {QUESTIONS} (80% power" in out
    assert f"recall {100 * mdd:.1f} points (3 points need about {needed:,} questions)" in out
    for bad in ("0", "-2", "nan", "101", "x"):
        code, _, err = run_cli(capsys, "eval", "--compare", run_a, run_b, "--data-dir", data, "--detect", bad)
        assert code == 2 and "--detect" in err and "Traceback" not in err, bad


def test_a_baseline_comparison_says_it_per_configuration_and_five_questions_detect_nothing(capsys, tmp_path,
                                                                                             hash_cli):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    common = ["--grid", "window=0,2", "--chunk-size", "40", "--top-k", "1", "--data-dir", tmp_path / "data", "--quiet"]
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--detect", "10", "--out", tmp_path / "o")
    assert code == 0, err
    per = json.loads((tmp_path / "o" / "questions.json").read_text())
    by_config: dict[str, dict[int, float]] = {}
    for r in per:
        by_config.setdefault(r["key"], {})[r["q_index"]] = r["recall"]
    base, other = by_config.values()
    _, needed = _expected([other[i] - base[i] for i in sorted(base)], 10)
    assert "against baseline [" in out
    # five questions: the sign-flip test's smallest p is 2/32 > 0.05, so no difference is detectable; it says
    # so, and what the spread seen implies
    line = next(x for x in out.splitlines() if "minimum detectable difference" in x)
    assert line.startswith("    minimum detectable difference at n = 5: n/a, no difference can reach α 0.05 on "
                           "fewer than 6 questions")
    assert needed is not None, "the two configurations differ on some question"
    assert line.endswith(f"at this recall spread 10 points would need about {needed:,} questions")
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--json")
    rows = json.loads(out)
    power = rows[1]["vs_baseline"]["metrics"]["recall"]["power"]
    assert power["n"] == 5 and power["detectable"] is None and "fewer than 6 questions" in power["why_not"]


def test_limit_takes_a_seeded_sample_stratified_by_corpus_and_says_so(capsys, tmp_path, hash_cli):
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    per_corpus = Counter(q["corpus_id"] for q in questions)
    first = Counter(q["corpus_id"] for q in questions[:len(per_corpus)])
    assert len(first) < len(per_corpus), "the first rows come from fewer corpora (what --limit took before)"
    data = tmp_path / "data"
    common = ["--strategy", "plain", "--chunk-size", "40", "--data-dir", data, "--quiet"]
    limit = str(len(per_corpus))
    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--limit", limit, "--out", tmp_path / "a")
    assert code == 0, err
    assert f"{limit} of {len(questions)} questions, stratified by corpus, seed 0" in out
    asked = [r["question"] for r in json.loads((tmp_path / "a" / "questions.json").read_text())]
    corpus_of = {q["question"]: q["corpus_id"] for q in questions}
    assert Counter(corpus_of[q] for q in asked) == Counter(dict.fromkeys(per_corpus, 1)), "one from each corpus"

    code, out, _ = run_cli(capsys, "runs", "--data-dir", data, "--json")
    run = json.loads(out)[0]["id"]
    code, out, err = run_cli(capsys, "runs", "--show", run, "--data-dir", data, "--json")
    code, out, err = run_cli(capsys, "eval", "--rerun", run, "--data-dir", data, "--quiet", "--out", tmp_path / "r")
    assert code == 0, err
    again = [r["question"] for r in json.loads((tmp_path / "r" / "questions.json").read_text())]
    assert again == asked, "a re-run takes the same sample"

    seeds = set()
    for seed in range(6):  # another seed may draw other questions of the two-question corpora, never other shares
        code, out, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--limit", limit, "--seed", str(seed),
                                 "--out", tmp_path / f"s{seed}")
        assert code == 0 and f"stratified by corpus, seed {seed}" in out, err
        drawn = tuple(r["question"] for r in json.loads((tmp_path / f"s{seed}" / "questions.json").read_text()))
        assert Counter(corpus_of[q] for q in drawn) == Counter(dict.fromkeys(per_corpus, 1))
        seeds.add(drawn)
    assert len(seeds) > 1, "the seed chooses the sample"

    code, out, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--limit", "50")
    assert code == 0 and "stratified" not in out, "a limit above the set's size takes every question"
    code, _, err = run_cli(capsys, "eval", tmp_path / "qs", *common, "--limit", "2", "--seed", "-1")
    assert code == 2 and "--seed" in err
