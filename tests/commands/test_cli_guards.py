"""Guards on input: exit statuses a script can trust, paths checked before the store is touched, remote
Ollama hosts refused without consent, strategy JSON and question-set CSV validated, bounded inputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_support import run_cli
from conftest import SAMPLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netguard import NetGuard

from workbench.cli import EXIT_STATUSES, build_parser

REMOTE = "10.1.2.3:11434"




def one_line_error(err: str, needle: str) -> bool:
    lines = [line for line in err.splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].startswith("workbench: error:") and needle in lines[0]


# ----- issue 13 item 2: exit statuses ------------------------------------------------------------------
def test_missing_named_path_is_refused_before_the_store_is_touched(capsys, tmp_path):
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", SAMPLE, tmp_path / "MISSING.md", "--data-dir", data, "--quiet")
    assert code == 1 and one_line_error(err, "MISSING.md")
    assert not data.exists(), "the data folder was created for a refused command"


@pytest.mark.parametrize("args", [
    ["eval", "{tmp}/no-such-set"],
    ["make-questions", "{tmp}/no-such-corpus", "--out", "{tmp}/qs"],
    ["search", "q", "--model", "{tmp}/no-model"],
    ["ask", "q", "--embed-model", "{tmp}/no-model"],
    ["ask", "q", "--backend", "embedded", "--model", "{tmp}/missing.gguf"],
    ["runs", "--show", "last", "--out", "{tmp}/a-file"],
    ["eval", "--compare", "a", "b", "--out", "{tmp}/a-file"],
    ["make-questions", "--out", "{tmp}/a-file"],
    ["docs", "--data-dir", "{tmp}/a-file"],
    ["index", str(SAMPLE), "--data-dir", "{tmp}/a-file/sub"],
])
def test_bad_paths_are_one_line_errors_before_any_work(capsys, tmp_path, args):
    (tmp_path / "a-file").write_text("x")
    data = tmp_path / "data"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--data-dir" not in argv:
        argv += ["--data-dir", str(data)]
    code, _, err = run_cli(capsys, *argv, "--quiet")
    assert code == 1 and one_line_error(err, str(tmp_path)), err
    assert "Traceback" not in err and not data.exists()


def test_strict_exits_3_after_indexing_the_rest(capsys, tmp_path, hash_cli):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "small.txt").write_text("A short note about the cache.")
    (folder / "big.txt").write_text("word " * 2000)  # ~10 KB: over the 0.005 MB limit below
    base = ["index", folder, "--max-file-mb", "0.005", "--quiet", "--json"]
    code, out, _ = run_cli(capsys, *base, "--data-dir", tmp_path / "d1")
    assert code == 0 and len(json.loads(out)["skipped"]) == 1
    code, out, err = run_cli(capsys, *base, "--data-dir", tmp_path / "d2", "--strict")
    report = json.loads(out)
    assert code == 3 and "--strict" in err
    assert len(report["skipped"]) == 1 and "big.txt" in json.dumps(report["skipped"])
    code, out, _ = run_cli(capsys, "docs", "--json", "--data-dir", tmp_path / "d2")
    assert [d["path"].rsplit("/", 1)[-1] for d in json.loads(out)["documents"]] == ["small.txt"], "the rest was indexed"


def test_exit_statuses_are_documented_in_help_and_docs(capsys):
    text = build_parser().format_help()
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "## Exit statuses" in docs
    for code, meaning in EXIT_STATUSES:
        assert f"{code:>3}  " in text and meaning.split(" (")[0][:30] in " ".join(text.split())
        assert f"| {code} |" in docs


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_floats_are_refused(capsys, tmp_path, value):
    code, _, err = run_cli(capsys, "eval", "--compare", "a", "b", f"--threshold={value}", "--data-dir", tmp_path / "d")
    assert code == 2 and "finite" in err
    code, _, err = run_cli(capsys, "index", SAMPLE, f"--max-file-mb={value}", "--data-dir", tmp_path / "d")
    assert code == 2 and "finite" in err and not (tmp_path / "d").exists()


# ----- issue 18 item 7: remote Ollama hosts ------------------------------------------------------------
LLM_COMMANDS = [
    ["ask", "What is the day pass price?", "--backend", "ollama"],
    ["ask", "What is the day pass price?"],
    ["contextualize"],
    ["make-questions", "--out", "{tmp}/qs", "--n", "1"],
    ["eval", "{tmp}", "--answers"],
    ["search", "day pass", "--strategy", "llm-rerank"],
]


@pytest.mark.parametrize("args", LLM_COMMANDS)
def test_remote_ollama_host_from_the_environment_is_refused(capsys, monkeypatch, tmp_path, args):
    guard = NetGuard(monkeypatch)
    monkeypatch.setenv("OLLAMA_HOST", REMOTE)
    (tmp_path / "questions.csv").write_text("question,references,corpus_id\n")
    data = tmp_path / "data"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = run_cli(capsys, *argv, "--data-dir", data, "--quiet")
    assert code == 1 and one_line_error(err, "10.1.2.3:11434 is not on this machine"), err
    assert "--allow-remote" in err
    assert guard.seen == [], "something connected"
    assert not data.exists()


def test_remote_host_option_is_refused_and_allowed_with_consent(capsys, monkeypatch, tmp_path):
    guard = NetGuard(monkeypatch)
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "ask", "q", "--backend", "ollama", "--host", f"http://{REMOTE}", "--data-dir", data)
    assert code == 1 and "not on this machine" in err and guard.seen == []
    from workbench.core.llm import RemoteHostRefused, open_backend
    from workbench.core.llm.ollama_backend import OllamaBackend, OllamaEmbedder

    monkeypatch.setenv("OLLAMA_HOST", REMOTE)
    for opener in (lambda: open_backend("auto"), lambda: open_backend("ollama"), lambda: OllamaBackend("m"),
                   lambda: OllamaEmbedder("m")):
        with pytest.raises(RemoteHostRefused, match="not on this machine"):
            opener()
    assert guard.seen == []
    # with consent it tries: the guard (the stand-in for the network) sees the attempt and refuses it
    from workbench.core.llm import LLMError

    with pytest.raises(LLMError, match="not running"):
        open_backend("ollama", allow_remote=True)
    assert guard.blocked and guard.blocked[0][0] == "10.1.2.3"


def test_remote_refusal_is_the_same_line_in_the_gui_and_for_workspace_llm_steps(monkeypatch, hash_ws):
    guard = NetGuard(monkeypatch)
    monkeypatch.setenv("OLLAMA_HOST", REMOTE)
    from workbench.core.llm.ollama_backend import remote_refusal
    from workbench.ui.basics.settings import LLMChoice

    line = remote_refusal(None)
    assert line and "10.1.2.3" in line
    assert LLMChoice("auto").blocked() == line
    assert LLMChoice("auto", allowed_host=REMOTE).blocked() is None
    assert LLMChoice("embedded").blocked() is None
    llm, why = hash_ws.pipeline_llm()
    assert llm is None and line in why and guard.seen == []


# ----- issue 18 item 8: strategy JSON and question-set CSV -----------------------------------------------
@pytest.mark.parametrize(("spec", "field"), [
    ('{"contextual": "yes"}', "contextual"),
    ('{"top_k": "5"}', "top_k"),
    ('{"top_k": true}', "top_k"),
    ('{"chunk": [1, 2]}', "chunk"),
    ('{"margin": 7}', "margin"),
    ('{"window": 1e300}', "window"),
    ('{"dense_weight": null}', "dense_weight"),
    ('{"chunk": {"size": {"a": 1}}}', "size"),
    ('{"chunk": {"colour": 1}}', "chunk.colour"),
    ('{"preset": ["plain"]}', "preset"),
    ("{" + '"a":' * 5000 + "1" + "}" * 5000, "characters"),
])
def test_bad_strategy_json_names_the_field(spec, field):
    from workbench.core.retrieve.strategy.presets import resolve

    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        resolve(spec)


def test_bad_strategy_on_the_command_line_is_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "search", "q", "--strategy", '{"contextual": "yes"}', "--data-dir", tmp_path / "d")
    assert code == 1 and one_line_error(err, "'contextual' must be true or false")
    assert not (tmp_path / "d").exists()


_FIELDS = ["name", "search", "top_k", "candidate_k", "dense_weight", "bm25_weight", "rrf_k", "expansion", "window",
           "window_tokens", "parent_size", "parent_top_k", "margin", "merge_gap", "max_steps", "rerank",
           "rerank_candidates", "summary", "summary_sections", "budget", "per_doc_cap", "unit", "size", "overlap",
           "structure_aware", "heading_prefix", "contextual", "chunk", "preset", "k", "hybrid", "chunk_size"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_FIELDS) | st.text(max_size=4),
                                                                 inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=4))
@pytest.mark.slow
def test_random_strategy_json_never_raises_anything_but_a_value_error(data):
    from workbench.core.retrieve.strategy.presets import Strategy, resolve

    try:
        text = json.dumps(data)
    except ValueError:
        return
    try:
        strategy = resolve(text)
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400
        return
    assert isinstance(strategy, Strategy) and isinstance(strategy.chunk.contextual, bool)
    assert isinstance(strategy.top_k, int)
    assert all(math.isfinite(v) for v in strategy.expander.to_dict().values() if isinstance(v, float))


def _question_set(root, rows: str, corpus: str = "Some text.") -> None:
    (root / "corpora").mkdir(parents=True)
    (root / "corpora" / "c1.md").write_text(corpus, encoding="utf-8")
    (root / "questions.csv").write_text("question,references,corpus_id\n" + rows, encoding="utf-8")


def test_csv_field_over_the_default_limit_loads(tmp_path):
    from workbench.core.evaluate.datasets import load_question_set

    corpus = "abc " * 50_000  # 200,000 characters: one reference field is longer than 131,072
    refs = json.dumps([{"content": corpus, "start_index": 0, "end_index": len(corpus)}])
    _question_set(tmp_path, '"What is it?","' + refs.replace('"', '""') + '",c1\n', corpus)
    qset = load_question_set(tmp_path)
    assert len(qset.questions) == 1 and qset.questions[0].references[0].end == len(corpus)


@pytest.mark.parametrize(("rows", "where"), [
    ('"What is it?,[],c1\nSecond question,[],c1\n', "line"),
    ('What is it?,[],c1\n"Unclosed,[],c1\n', "line"),
    ("What is it?\n", "row 2"),
    ("x" * 3000 + ",[],c1\n", "row 2"),
])
def test_malformed_csv_is_a_dataset_error_naming_the_place(tmp_path, rows, where):
    from workbench.core.evaluate.datasets import DatasetError, load_question_set

    _question_set(tmp_path, rows)
    with pytest.raises(DatasetError, match=where):
        load_question_set(tmp_path)


# ----- issue 18 item 9: unbounded inputs -----------------------------------------------------------------
def test_long_question_is_refused_in_core_and_cli(hash_sample_ws, capsys, hash_sample_data_dir):
    long_q = "why " * 1000
    with pytest.raises(ValueError, match="at most 2,000"):
        hash_sample_ws.search(long_q, "plain")
    code, _, err = run_cli(capsys, "search", long_q, "--search-mode", "bm25", "--data-dir", hash_sample_data_dir)
    assert code == 1 and one_line_error(err, "at most 2,000")


def test_unbroken_run_is_counted_and_chunked_by_its_length(counter):
    from workbench.core.ingest.chunking import chunk_document
    from workbench.core.ingest.tokens import MAX_TOKEN_CHARS, RegexTokenCounter
    from workbench.core.ingest.values import ChunkConfig

    text = "start " + "x" * 1_000_000 + " end"
    for c in (counter, RegexTokenCounter()):
        assert c.count(text) >= 1_000_000 // MAX_TOKEN_CHARS
        offsets = c.offsets(text)
        assert int((offsets[:, 1] - offsets[:, 0]).max()) <= MAX_TOKEN_CHARS
        assert len(offsets) == c.count(text)
    assert counter.count_many(["x" * 1000]) == [counter.count("x" * 1000)] == [math.ceil(1000 / MAX_TOKEN_CHARS)]
    for config in (ChunkConfig(size=50), ChunkConfig(unit="words", size=50), ChunkConfig(unit="sentences", size=2)):
        pieces = chunk_document(text, [], config, counter)
        sizes = np.array([p.end - p.start for p in pieces])
        assert sizes.max() <= 4_000, config  # never a million characters
        assert pieces[0].start == 0 and pieces[-1].end == len(text)
        assert all(a.end >= b.start for a, b in zip(pieces, pieces[1:], strict=False))  # the text is covered
        assert all(counter.count(text[p.start:p.end]) <= 50 for p in pieces) if config.unit == "tokens" else True


def test_budget_counts_what_is_sent_for_an_unbroken_run(hash_ws, tmp_path, capsys):
    doc = tmp_path / "blob.txt"
    doc.write_text("blob " + "Q" * 200_000 + "\n", encoding="utf-8")
    hash_ws.add_paths([str(doc)])
    from workbench.core.retrieve.strategy.presets import PRESETS, override

    result = hash_ws.search("blob", override(PRESETS["plain"], budget=50, size=20))
    sent = sum(p.span.end - p.span.start for p in result.passages)
    assert result.passages and sent <= 50 * 16, sent  # not 200,000 characters counted as a few tokens
    assert result.context.tokens <= 50


def test_overlap_of_half_the_size_is_refused(capsys, tmp_path):
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", SAMPLE / "deploy-guide.md", "--chunk-size", "10", "--overlap", "5",
                           "--data-dir", data, "--quiet")
    assert code == 1 and one_line_error(err, "at most 4") and not data.exists()
    code, _, err = run_cli(capsys, "search", "q", "--chunk-size", "200", "--overlap", "199", "--data-dir", data)
    assert code == 1 and one_line_error(err, "--overlap 199")


def test_strategy_panel_clamps_overlap_below_half_the_size(qtbot):
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.ui.explore.strategy_panel import StrategyPanel
    from workbench.ui.model import WorkbenchModel

    panel = StrategyPanel(WorkbenchModel(PRESETS["plain"]), "A")
    qtbot.addWidget(panel)
    panel.size_knob.setValue(200)
    assert panel.overlap.spin.maximum() == 99
    panel.overlap.setValue(150)
    assert panel.strategy().chunk.overlap == 99


# ----- issue 18 item 12: runs --delete -------------------------------------------------------------------
def _record_runs(ws, tmp_path, n: int) -> list[str]:
    from workbench.core.evaluate.datasets import load_question_set
    from workbench.core.evaluate.records import save_run
    from workbench.core.evaluate.sweep import SweepResult

    _question_set(tmp_path / "qs", "What?,[],c1\n")
    qset = load_question_set(tmp_path / "qs")
    return [save_run(ws, qset, SweepResult([], {}), label=f"r{i}") for i in range(n)]


def test_runs_delete_needs_a_full_id_or_a_long_unique_prefix(capsys, tmp_path, hash_ws):
    ids = _record_runs(hash_ws, tmp_path, 2)
    data = str(hash_ws.data_dir)
    hash_ws.close()

    def remaining() -> set[str]:
        code, out, _ = run_cli(capsys, "runs", "--json", "--data-dir", data)
        return {r["id"] for r in json.loads(out)}

    code, _, err = run_cli(capsys, "runs", "--delete", ids[0][:4], "--data-dir", data)  # a bare year
    assert code == 1 and one_line_error(err, "matches 2 runs") and ids[0] in err and ids[1] in err
    assert remaining() == set(ids), "nothing was deleted by an ambiguous prefix"
    code, _, _ = run_cli(capsys, "runs", "--delete", ids[1], "--data-dir", data)
    assert code == 0 and remaining() == {ids[0]}
    short = ids[0][:5]
    code, _, err = run_cli(capsys, "runs", "--delete", short, "--data-dir", data)
    assert code == 1 and "shorter than 8" in err and remaining() == {ids[0]}
    code, _, _ = run_cli(capsys, "runs", "--delete", short, "--yes", "--data-dir", data)
    assert code == 0 and remaining() == set()


def test_workbench_debug_prints_the_traceback_of_an_unexpected_error(capsys, monkeypatch):
    from workbench import cli

    def broken(_args):
        raise KeyError("a bug's key")

    class Args:
        func = staticmethod(broken)

    parser = cli.build_parser()
    monkeypatch.setattr(parser, "parse_args", lambda _argv: Args())
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    for setting in ("0", "1"):
        monkeypatch.setenv("WORKBENCH_DEBUG", setting)
        assert cli.main(["docs"]) == 1
        err = capsys.readouterr().err
        assert "workbench: error:" in err and "bug's key" in err
        assert ("Traceback (most recent call last)" in err) == (setting == "1")
        assert ("in broken" in err) == (setting == "1")


def test_a_registry_chunkers_overlap_is_checked_like_the_built_in_one(capsys, tmp_path):
    # the guard read the config's own fields, which are the defaults for a registry chunker: it never fired
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", SAMPLE / "deploy-guide.md", "--chunker",
                           '{"name": "recursive", "max_tokens": 100, "overlap": 80}', "--data-dir", data, "--quiet")
    assert code == 1 and one_line_error(err, "--overlap 80 is too large for 100-tokens chunks") and not data.exists()
    code, _, err = run_cli(capsys, "index", SAMPLE / "deploy-guide.md", "--chunker", "semchunk", "--chunk-size", "64",
                           "--overlap", "40", "--data-dir", data, "--quiet")
    assert code == 1 and one_line_error(err, "at most 31") and not data.exists()
