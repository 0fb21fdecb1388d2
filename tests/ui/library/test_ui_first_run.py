"""First-run experience (pytest-qt, offscreen, temporary settings): the welcome on the first start only,
"Load the sample corpus", which model answers, the Settings dialog and the start-up choices it stores.

No Ollama server exists in CI, so the tests that need one run a loopback **stand-in**: a tiny
``http.server`` on 127.0.0.1 (random port) answering ``/api/version`` and ``/api/tags`` as Ollama does.
"Not found" is checked against a closed loopback port.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import SAMPLE
from netguard import NetGuard
from ui_support import WAIT_MS

from workbench.core.llm.ollama_backend import remote_refusal
from workbench.ui.basics import settings as prefs
from workbench.ui.basics.settings import LLMChoice

pytest_plugins = ["ui_support"]
MODELS = ["llama3.2:latest", "qwen2.5:0.5b"]
REMOTE = "192.0.2.10:11434"  # TEST-NET-1: never routed; the network guard refuses it anyway


class _Tags(BaseHTTPRequestHandler):
    """The two read-only endpoints of Ollama's API the workbench probes."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/api/version":
            body = {"version": "0.12.6"}
        elif self.path == "/api/tags":
            body = {"models": [{"name": m, "model": m, "size": 1000, "modified_at": "2025-01-01T00:00:00Z",
                                "digest": "0" * 64, "details": {"family": "llama"}} for m in MODELS]}
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def ollama_standin():
    """The host of a loopback stand-in for an Ollama server (see the module docstring)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Tags)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def closed_host() -> str:
    """A loopback port where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def test_welcome_on_first_start_only_and_says_ollama_is_not_found(qtbot, start_app, ui_settings, tmp_path,
                                                                  closed_host):
    ui_settings.setValue(prefs.DATA_DIR, str(tmp_path / "data"))
    ui_settings.setValue("llm/host", closed_host)
    window = start_app(["--no-sample"])
    dialog = window.dialogs.welcome
    assert dialog is not None and dialog.isVisible() and prefs.flag(ui_settings, prefs.WELCOME_SEEN)
    assert str(tmp_path / "data") in dialog.privacy.text() and "Nothing leaves this machine" in dialog.privacy.text()
    qtbot.waitUntil(lambda: "not found" in dialog.ollama_status.text(), timeout=WAIT_MS)
    status = dialog.ollama_status.text()
    assert closed_host in status and "ollama pull llama3.2" in status and "SmolLM2" not in status
    assert "extractive answers (no language model) — start Ollama for generated answers" in status
    dialog.skip_button.click()
    assert not dialog.isVisible() and window.library.worker is None, "skipping indexes nothing"
    start_app.stop()
    again = start_app(["--no-sample"])
    assert again.dialogs.welcome is None
    assert not [w for w in again.findChildren(object) if type(w).__name__ == "WelcomeDialog"]


def _welcome(window):  # the welcome dialog open over ``window``, or None
    return next((w for w in window.findChildren(object) if type(w).__name__ == "WelcomeDialog" and w.isVisible()),
                None)


def test_nothing_is_indexed_without_the_researcher_choosing_it(qtbot, start_app, ui_settings, tmp_path,
                                                                closed_host):
    from PySide6.QtWidgets import QApplication

    ui_settings.setValue("llm/host", closed_host)
    ui_settings.setValue(prefs.DATA_DIR, str(tmp_path / "first"))
    window = start_app([])  # the very first start: the welcome
    dialog = _welcome(window)
    assert dialog is not None
    dialog.skip_button.click()  # Skip means skip
    QApplication.processEvents()
    assert window.library.worker is None and not window.ws.records.documents(), "Skip indexed the sample corpus"
    start_app.stop()
    ui_settings.setValue(prefs.DATA_DIR, str(tmp_path / "new-folder"))  # a profile, and a new data folder
    again = start_app([])
    QApplication.processEvents()
    assert again.library.worker is None and not again.ws.records.documents(), "a new data folder was indexed silently"
    assert _welcome(again) is not None, "an empty library offers its first documents"


def test_load_sample_skip_and_help_menu(qtbot, make_window, hash_ws, ui_settings, closed_host):
    from shiboken6 import isValid

    ui_settings.setValue("llm/host", closed_host)
    window = make_window(hash_ws)
    window.menu_actions["welcome"].trigger()  # Help → Welcome…: skipping does nothing
    assert window.dialogs.welcome.isVisible()
    window.dialogs.welcome.skip_button.click()
    assert window.library.worker is None
    dialog = window.open_welcome()
    with qtbot.waitSignal(window.library.indexingFinished, timeout=WAIT_MS) as done:
        dialog.sample_button.click()
    assert not isValid(dialog) or not dialog.isVisible()  # closed (and deleted on close)
    assert len(done.args[0].added) == len(hash_ws.store.documents.rows()) == len(list(SAMPLE.iterdir()))
    assert window.library.table.topLevelItemCount() >= len(hash_ws.store.documents.rows())


def test_welcome_and_settings_list_the_models_of_a_standin_server(qtbot, ui_settings, tmp_path, ollama_standin):
    from workbench.ui.dialogs.settings_dialog import SettingsDialog
    from workbench.ui.library.welcome import WelcomeDialog

    welcome = WelcomeDialog(tmp_path, LLMChoice(host=ollama_standin))
    qtbot.addWidget(welcome)
    with qtbot.waitSignal(welcome.probed, timeout=WAIT_MS) as probed:
        welcome.show()
    assert probed.args[0] == welcome.ollama_status.text()
    assert f"Ollama found at {ollama_standin} with 2 model(s): {', '.join(MODELS)}" in probed.args[0]
    assert "Answers use llama3.2:latest" in probed.args[0]
    ui_settings.setValue("llm/host", ollama_standin)
    dialog = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.model.count() == 2, timeout=WAIT_MS)
    assert [dialog.model.itemText(i) for i in range(2)] == MODELS and "2 model(s)" in dialog.ollama_status.text()
    assert dialog.model.currentText() == "", "the typed model (none: the server's first) is kept"


def test_settings_round_trip_and_validation(qtbot, ui_settings, tmp_path, closed_host):
    from workbench.core.index.embedding import default_model_path
    from workbench.ui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(dialog)
    assert dialog.data_dir.text() == str(tmp_path / "data") and dialog.default_model.isChecked()
    assert dialog.ok_button.isEnabled() and not dialog.host_warning.isVisibleTo(dialog)
    dialog.data_dir.setText(str(tmp_path / "elsewhere"))
    dialog.local_model.setChecked(True)
    dialog.model_folder.setText(str(tmp_path))  # no modules.json / config.json
    assert not dialog.ok_button.isEnabled() and "modules.json" in dialog.problem.text()
    dialog.model_folder.setText(default_model_path())
    dialog.backend.setCurrentIndex(dialog.backend.findData("ollama"))
    dialog.model.setEditText("llama3.2")
    dialog.host.setText(closed_host)
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.saved) as saved:
        dialog.ok_button.click()
    assert saved.args == [LLMChoice("ollama", "llama3.2", closed_host, ""), True]
    assert prefs.load_llm(ui_settings) == saved.args[0]
    assert prefs.text(ui_settings, prefs.DATA_DIR) == str(tmp_path / "elsewhere")
    assert prefs.text(ui_settings, prefs.EMBEDDING_MODEL) == default_model_path()
    again = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(again)
    assert (again.data_dir.text(), again.model_folder.text(), again.local_model.isChecked()) == (
        str(tmp_path / "elsewhere"), default_model_path(), True)
    assert (again.backend.currentData(), again.model.currentText(), again.host.text()) == (
        "ollama", "llama3.2", closed_host)
    with qtbot.waitSignal(again.saved) as unchanged:
        again.accept()
    assert unchanged.args[1] is False, "nothing that needs a restart changed"


def test_non_loopback_host_needs_the_explicit_tick(qtbot, make_window, hash_ws, ui_settings, tmp_path,
                                                   monkeypatch):
    from workbench.ui.dialogs.settings_dialog import SettingsDialog

    guard = NetGuard(monkeypatch)
    dialog = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(dialog)
    dialog.host.setText(REMOTE)
    assert "not on this machine" in dialog.host_warning.text() and dialog.host_warning.isVisibleTo(dialog)
    assert dialog.allow.isVisibleTo(dialog) and not dialog.allow.isChecked() and not dialog.ok_button.isEnabled()
    with qtbot.assertNotEmitted(dialog.saved):
        dialog.accept()  # refused while not ticked
    assert prefs.text(ui_settings, "llm/host") == ""
    assert dialog.probe() is None and "until you allow it" in dialog.ollama_status.text()
    dialog.allow.setChecked(True)
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.saved) as saved:
        dialog.ok_button.click()
    assert saved.args[0] == LLMChoice("auto", "", REMOTE, REMOTE) and saved.args[0].blocked() is None
    assert not guard.blocked, "the remote host was contacted"
    window = make_window(hash_ws)  # the answer panel warns about the allowed remote host
    banner = window.answer.host_warning
    assert not banner.isHidden() and "not on this machine" in banner.text()
    assert window.answer.holder.host == REMOTE and window.answer.holder.blocked is None
    window.answer.set_backend(LLMChoice("auto", "", REMOTE, ""))  # stored but never allowed: not used
    refusal = remote_refusal(REMOTE)  # the same line the command line prints
    assert refusal in banner.text()
    with pytest.raises(RuntimeError, match="refused unless you allow it"):
        window.answer.holder.get()
    window.answer.set_backend(LLMChoice("embedded", "", REMOTE, REMOTE))
    assert banner.isHidden()
    assert not guard.blocked


def test_app_start_honours_the_stored_data_folder_and_model(qtbot, start_app, ui_settings, tmp_path, monkeypatch):
    from workbench.core.index.embedding import default_model_path
    from workbench.ui.app.launch import parse_args, startup_choices

    stored = tmp_path / "stored-data"
    ui_settings.setValue(prefs.WELCOME_SEEN, True)
    ui_settings.setValue(prefs.DATA_DIR, str(stored))
    ui_settings.setValue(prefs.EMBEDDING_MODEL, default_model_path())
    window = start_app(["--no-sample"])
    assert window.ws.data_dir == stored and (stored / "workbench.sqlite3").exists()
    assert window.ws.embedder.model_path == default_model_path()
    assert window.dialogs.welcome is None and window.library.worker is None
    args = parse_args(["--data-dir", str(tmp_path / "cli")])
    assert startup_choices(args, ui_settings)[0] == str(tmp_path / "cli")
    monkeypatch.setenv("WORKBENCH_DATA", str(tmp_path / "env"))
    assert startup_choices(parse_args([]), ui_settings)[0] == str(tmp_path / "env")
    assert startup_choices(args, ui_settings)[0] == str(tmp_path / "cli")
    ui_settings.setValue(prefs.EMBEDDING_MODEL, str(tmp_path))  # no longer a model folder: the default is used
    _, model, note = startup_choices(args, ui_settings)
    assert model is None and "installed default" in note


def test_settings_say_what_a_missing_ollama_means_for_the_chosen_backend(qtbot, ui_settings, tmp_path, closed_host):
    """With the embedded model chosen, no Ollama server does not make answers extractive (it said so)."""
    from workbench.ui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.probed, timeout=30_000):
        dialog.host.setText(closed_host)
    qtbot.waitUntil(lambda: "No Ollama server" in dialog.ollama_status.text(), timeout=30_000)
    dialog.backend.setCurrentIndex(dialog.backend.findData("embedded"))
    assert "extractive" not in dialog.ollama_status.text() and "local model file" in dialog.ollama_status.text()
    dialog.backend.setCurrentIndex(dialog.backend.findData("auto"))
    assert "answers are extractive" in dialog.ollama_status.text()


def test_settings_never_say_extractive_with_the_embedded_model_chosen(qtbot, ui_settings, tmp_path):
    from workbench.ui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ui_settings, tmp_path / "data", prober=lambda _host, _timeout: None)  # no server
    qtbot.addWidget(dialog)
    dialog.backend.setCurrentIndex(dialog.backend.findData("auto"))
    dialog.probe()
    qtbot.waitUntil(lambda: "No Ollama server" in dialog.ollama_status.text(), timeout=WAIT_MS)
    assert "extractive" in dialog.ollama_status.text(), "automatic without a server: extractive answers"
    dialog.backend.setCurrentIndex(dialog.backend.findData("embedded"))
    said = dialog.ollama_status.text()
    assert "extractive" not in said and "the local model file answers" in said, said
