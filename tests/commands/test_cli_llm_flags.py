"""One set of LLM flags on every LLM-using command (issue #14 item 5): ``--llm``, ``--llm-model``,
``--llm-host``, ``--allow-remote``; ``--model`` is always the embedding model; the old spellings still work
for one release and say so in one line on stderr."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli
from netguard import NetGuard

from workbench.cli import build_parser
from workbench.core.index.embedding import default_model_path
from workbench.core.llm import LLMChoice

REMOTE = "10.1.2.3:11434"
LLM_COMMANDS = {
    "ask": ["ask", "q"],
    "contextualize": ["contextualize"],
    "make-questions": ["make-questions", "--out", "{tmp}/qs", "--n", "1"],
    "eval": ["eval", "{tmp}", "--answers"],
    "search": ["search", "day pass", "--strategy", "llm-rerank"],
}




def argv_for(name: str, tmp_path) -> list[str]:
    (tmp_path / "questions.csv").write_text("question,references,corpus_id\n")
    return [a.replace("{tmp}", str(tmp_path)) for a in LLM_COMMANDS[name]] + ["--data-dir", str(tmp_path / "data")]


def test_no_command_resolves_option_conflicts_by_overriding():
    import workbench.commands as commands

    for path in commands.__path__:
        from pathlib import Path

        for module in Path(path).glob("*.py"):
            assert "conflict_handler" not in module.read_text(encoding="utf-8"), module


@pytest.mark.parametrize("name", sorted(LLM_COMMANDS))
def test_every_llm_command_takes_the_same_llm_flags(capsys, monkeypatch, tmp_path, name):
    from workbench.commands.llm_options import llm_choice

    argv = argv_for(name, tmp_path) + ["--llm", "ollama", "--llm-model", "llama3.2", "--llm-host", REMOTE,
                                       "--allow-remote"]
    args = build_parser().parse_args(argv)
    assert llm_choice(args) == LLMChoice("ollama", "llama3.2", REMOTE, True)
    assert args.model is None  # nothing was taken for the embedding model
    assert capsys.readouterr().err == ""  # the new spellings are not deprecated
    # --llm-host reaches the opener: a host that is not this machine is refused before anything connects
    guard = NetGuard(monkeypatch)
    code, _, err = run_cli(capsys, *argv_for(name, tmp_path), "--llm", "ollama", "--llm-host", REMOTE, "--quiet")
    assert code == 1 and "10.1.2.3:11434 is not on this machine" in err and "--allow-remote" in err, err
    assert guard.seen == []


@pytest.mark.parametrize("name", ["ask", "contextualize", "make-questions"])
def test_old_spellings_still_work_with_one_deprecation_line_each(capsys, monkeypatch, tmp_path, name):
    guard = NetGuard(monkeypatch)
    code, _, err = run_cli(capsys, *argv_for(name, tmp_path), "--backend", "ollama", "--host", f"http://{REMOTE}",
                           "--model", "llama3.2")
    lines = err.splitlines()
    assert code == 1 and "not on this machine" in lines[-1], err
    deprecated = [line for line in lines if line.startswith("workbench: deprecated:")]
    assert [line.split(":")[2].split(" will")[0].strip() for line in deprecated] == [
        "--model llama3.2 naming the LLM", "--backend", "--host"]
    assert all("next release; use --" in line for line in deprecated)
    assert guard.seen == []
    args = build_parser().parse_args(argv_for(name, tmp_path) + ["--backend", "embedded", "--model", "x.gguf",
                                                                  "--embed-model", str(tmp_path), "--quiet"])
    from workbench.commands.llm_options import llm_choice

    assert llm_choice(args) == LLMChoice("embedded", "x.gguf") and args.model == str(tmp_path)
    assert capsys.readouterr().err == "", "--quiet silences the deprecation lines"


def test_eval_backend_alias_is_deprecated(capsys, tmp_path):
    code, _, err = run_cli(capsys, *argv_for("eval", tmp_path), "--backend", "extractive")
    assert code == 1 and err.startswith("workbench: deprecated: --backend will be removed")
    assert err.splitlines()[-1].startswith("workbench: error:")


def test_model_on_ask_is_the_embedding_model(capsys, tmp_path, sample_ws):
    """``--model`` names the real model's folder: that folder is opened (the real model)."""
    model = default_model_path()
    args = build_parser().parse_args(["ask", "q", "--model", model, "--llm", "extractive"])
    from workbench.commands.llm_options import llm_choice

    assert llm_choice(args) == LLMChoice("extractive") and args.model == model
    code, out, err = run_cli(capsys, "ask", "How do I flush the cache?", "--data-dir", sample_ws.data_dir,
                             "--model", model, "--llm", "extractive", "--top-k", "2", "--json", "--quiet")
    assert code == 0 and err == "", err
    assert json.loads(out)["stats"]["backend"] == "extractive"
    # a missing embedding folder next to --llm-model is an embedding-model error, not an LLM one
    code, _, err = run_cli(capsys, "ask", "q", "--model", tmp_path / "no-model", "--llm-model", "llama3.2",
                           "--data-dir", tmp_path / "unused")
    assert code == 1 and "model folder (--model)" in err and not (tmp_path / "unused").exists()


def test_models_takes_llm_host(capsys):
    args = build_parser().parse_args(["models", "--llm-host", "127.0.0.1:1"])
    assert args.llm_host == "127.0.0.1:1"


def test_one_choice_value_opens_every_backend():
    from workbench.core.llm import open_backend
    from workbench.core.llm.no_model import is_extractive
    from workbench.ui.basics.settings import LLMChoice as SettingsChoice

    with pytest.raises(ValueError, match="unknown backend"):
        LLMChoice("gpt")
    assert LLMChoice("auto", "", "") == LLMChoice()  # "" means the default, as in Settings
    assert is_extractive(open_backend(LLMChoice("extractive")))
    assert not LLMChoice("auto", "tiny.gguf").contacts_ollama and LLMChoice("auto").contacts_ollama
    # the GUI's stored choice becomes the same value (a model only where it applies; the stored consent)
    assert SettingsChoice("embedded", "llama3.2").core() == LLMChoice("embedded")
    assert SettingsChoice("extractive", "x").core() == LLMChoice("extractive")
    assert SettingsChoice("ollama", "llama3.2", REMOTE, REMOTE).core() == LLMChoice("ollama", "llama3.2", REMOTE, True)
