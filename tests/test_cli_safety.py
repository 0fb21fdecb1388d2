"""Issue #29 item 6: ``models`` asks no remote host without consent (a); what the command line prints cannot
drive the terminal (c)."""

from __future__ import annotations

import json

from netguard import NetGuard

from workbench.cli import main

REMOTE = "10.1.2.3:11434"


def run_cli(capsys, *args):  # noqa: ANN001, ANN002, ANN201
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


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
