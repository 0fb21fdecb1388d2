"""Issue #29 item 6: ``models`` asks no remote host without consent (a); what the command line prints cannot
drive the terminal (c)."""

from __future__ import annotations

import json

from cli_support import run_cli
from netguard import NetGuard

REMOTE = "10.1.2.3:11434"




# ----- a: models -------------------------------------------------------------------------------------------
def test_models_does_not_contact_a_remote_ollama_host_without_consent(capsys, monkeypatch):
    guard = NetGuard(monkeypatch)
    monkeypatch.setenv("OLLAMA_HOST", REMOTE)
    code, out, err = run_cli(capsys, "models", "--json")
    assert guard.seen == [], "something connected"
    assert code == 0, err
    ollama = next(b for b in json.loads(out) if b["backend"] == "ollama")
    assert not ollama["available"] and "not on this machine" in ollama["detail"]
    assert "--allow-remote" in ollama["detail"]

    code, out, _ = run_cli(capsys, "models", "--llm-host", REMOTE)
    assert guard.seen == [] and "not on this machine" in out


def test_models_asks_a_remote_host_with_consent(capsys, monkeypatch):
    guard = NetGuard(monkeypatch)
    monkeypatch.setenv("OLLAMA_HOST", REMOTE)
    code, out, err = run_cli(capsys, "models", "--allow-remote", "--json")
    assert code == 0, err
    assert guard.blocked, "with --allow-remote the host is asked (the test's guard stops the connection)"
    assert "not on this machine" in err, "and the command says that the host is not this machine"


# ----- c: terminal escapes and bidi overrides ---------------------------------------------------------------
RAW = ("\x1b", "\x07", "\x9b", "\r", "\u202e", "\u202c", "\u2066")


def _no_raw(text: str) -> None:
    assert not [c for c in RAW if c in text], ascii(text)


def _evil_folder(tmp_path):
    folder = tmp_path / "evil"
    folder.mkdir()
    name = "evil\x1b[31mred\u202egnp.md"
    (folder / name).write_text("# Cache\n\nThe cache \x1b]0;pwned\x07 is flushed \u202enightly\u202c.\r\n"
                               "C1 \x9b31m here, isolate \u2066x\u2069.\n", encoding="utf-8")
    return folder, name


def test_the_cli_prints_no_terminal_escapes_or_bidi_overrides(capsys, tmp_path, hash_cli):
    folder, name = _evil_folder(tmp_path)
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "index", folder, "--data-dir", data)  # progress on stderr names the file
    assert code == 0, err
    _no_raw(out + err)
    assert "\\x1b[31mred\\u202egnp.md" in err, "the progress line shows the name, escaped"

    code, out, err = run_cli(capsys, "docs", "--data-dir", data)
    assert code == 0 and "evil\\x1b[31mred\\u202egnp.md" in out, out
    _no_raw(out + err)

    code, out, err = run_cli(capsys, "search", "cache flushed", "--data-dir", data, "--quiet")
    assert code == 0, err
    _no_raw(out + err)
    assert "\\x1b]0;pwned\\x07" in out and "\\u202enightly\\u202c" in out and "\\x9b31m" in out

    # JSON stays exact (the same strings come back) with nothing raw on the terminal
    code, out, err = run_cli(capsys, "search", "cache flushed", "--data-dir", data, "--quiet", "--json")
    assert code == 0, err
    _no_raw(out)
    record = json.loads(out)[0]
    assert record["doc_path"].endswith(name) and "\x1b]0;pwned\x07" in record["text"] and "\u202e" in record["text"]

    # an error line naming a path does not print it raw either
    code, out, err = run_cli(capsys, "index", tmp_path / "gone\x1b[2J\u202e", "--data-dir", data)
    assert code == 1 and "gone\\x1b[2J\\u202e" in err
    _no_raw(out + err)
    code, out, err = run_cli(capsys, "index", folder, "--bo\x1bgus\u202e")  # argparse quotes what was typed
    assert code == 2 and "--bo\\x1bgus\\u202e" in err
    _no_raw(out + err)


def test_safe_text_escapes_controls_but_keeps_newlines_tabs_and_text():
    from workbench.commands.common import safe_text

    assert safe_text("a\tb\nc") == "a\tb\nc"
    assert safe_text("é ü 日本 שלום") == "é ü 日本 שלום"
    assert (safe_text("\x1b[2J\x00\x7f\x85\u202a\u202e\u2066\u2069")
            == "\\x1b[2J\\x00\\x7f\\x85\\u202a\\u202e\\u2066\\u2069")
