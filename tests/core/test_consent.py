"""No code from data: a custom chunker or a model folder named by a run record, saved settings or a strategy
read from anywhere but the user's own command line or window choice is shown, never imported, and refused
with one line that says how to allow it (``workbench.core.consent``)."""

from __future__ import annotations

import json
import uuid

import pytest
from eval_support import sample_questions
from ui_support import WAIT_MS, wait_settled

from workbench.cli import main
from workbench.core.consent import NotTrusted, chunker_target, is_trusted, strategy_chunker_target, trust
from workbench.core.evaluate.datasets import load_question_set, save_question_set
from workbench.core.evaluate.records import find_run, load_run, rerun, save_run
from workbench.core.evaluate.sweep import expand_grid, run_sweep
from workbench.core.retrieve.strategy.presets import resolve

pytest_plugins = ["ui_support"]
QUESTION = "How do I roll back a bad deployment?"


@pytest.fixture
def payload(tmp_path, monkeypatch):
    """``(target, mark)``: a module whose import writes "imported" to ``mark`` and whose ``run`` chunker
    writes "called"; a fresh module name per test, so an import in one test cannot hide one in another."""
    name = f"payload_{uuid.uuid4().hex[:8]}"
    mark = tmp_path / "mark.txt"
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / f"{name}.py").write_text(
        "import pathlib\n"
        f"pathlib.Path({str(mark)!r}).write_text('imported')\n"
        "def run(text, headings):\n"
        f"    pathlib.Path({str(mark)!r}).write_text('called')\n"
        "    return [(0, len(text))]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    return f"{name}:run", mark


def _custom(strategy_json: dict, target: str) -> dict:
    """``strategy_json`` with its chunker replaced by ``custom:target`` (as an edited record would hold)."""
    chunk = dict(strategy_json["chunk"], chunker=json.dumps({"name": f"custom:{target}"}))
    return dict(strategy_json, chunk=chunk)


@pytest.fixture
def tampered_run(tmp_path, hash_sample_ws, payload):
    """A recorded run over the sample corpus whose strategy was edited to name the payload chunker."""
    questions, corpora = sample_questions(["deploy-guide"])
    save_question_set(tmp_path / "qs", questions, corpora)
    qset = load_question_set(tmp_path / "qs")
    ws = hash_sample_ws
    run_id = save_run(ws, qset, run_sweep(ws, qset, expand_grid(["plain"], None)))
    info = find_run(ws, run_id)
    config = dict(info.config)
    config["configs"] = [dict(c, strategy=_custom(c["strategy"], payload[0])) for c in config["configs"]]
    with ws.store.transaction():  # what someone editing the data folder's database could write
        ws.store.db.execute("UPDATE runs SET config_json = ? WHERE id = ?", [json.dumps(config), run_id])
    return ws, run_id


def test_a_record_naming_a_custom_chunker_is_shown_and_refused_never_imported(tampered_run, payload, capsys):
    ws, run_id = tampered_run
    target, mark = payload
    _, results = load_run(ws, run_id)
    strategy = results[0].config.strategy
    assert f"custom:{target}" in strategy.chunk.chunker and f"custom:{target}" in strategy.describe()
    with pytest.raises(NotTrusted) as refused:
        rerun(ws, run_id)
    assert f"--trust-custom {target}" in str(refused.value) and "\n" not in str(refused.value)
    assert not mark.exists(), "nothing was imported"

    code = main(["runs", "--show", run_id, "--data-dir", str(ws.data_dir)])
    out, err = capsys.readouterr()
    assert code == 0 and run_id in out and not err
    code = main(["eval", "--rerun", run_id, "--data-dir", str(ws.data_dir), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 1 and f"--trust-custom {target}" in err and len(err.strip().splitlines()) == 1
    assert not mark.exists(), "runs --show and a refused re-run import nothing"

    trust(target)  # what --trust-custom (or the window's dialog) does
    new_id, sweep = rerun(ws, run_id)
    assert mark.read_text() == "called" and new_id != run_id
    assert all(len(r.spans) >= 1 for r in sweep.results[0].rows)


def test_a_saved_strategy_naming_a_custom_chunker_loads_but_does_not_run(hash_sample_ws, payload, ui_settings):
    from workbench.ui.basics.settings import load_strategy

    target, mark = payload
    ui_settings.setValue("strategy/A", json.dumps(_custom(resolve("plain").to_dict(), target)))
    strategy = load_strategy(ui_settings, "A")
    assert f"custom:{target}" in strategy.chunk.chunker
    with pytest.raises(NotTrusted, match="--trust-custom"):
        hash_sample_ws.search(QUESTION, strategy)
    assert not mark.exists()


def test_a_strategy_named_on_the_command_line_may_name_its_own_chunker(hash_sample_ws, payload, capsys, hash_cli):
    """Pasted on the command line, the chunker is the user's own choice: it runs."""
    target, mark = payload
    data = str(hash_sample_ws.data_dir)
    hash_sample_ws.close()
    code = main(["search", QUESTION, "--data-dir", data, "--quiet", "--json",
                 "--strategy", json.dumps({"chunker": f"custom:{target}"})])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert mark.read_text() == "called" and json.loads(out)


def test_a_model_folder_named_by_data_is_refused_and_named_on_the_command_line_allowed(hash_sample_ws, tmp_path):
    folder = tmp_path / "some-model"
    folder.mkdir()
    strategy = resolve({"model": str(folder)})
    with pytest.raises(NotTrusted, match="embedding model folder"):
        hash_sample_ws.search(QUESTION, strategy)
    assert chunker_target("custom:pkg.mod:fn") == "pkg.mod:fn"
    assert chunker_target('{"name": "custom:pkg.mod:fn"}') == "pkg.mod:fn"
    assert strategy_chunker_target(json.dumps({"chunk": {"chunker": "custom:pkg.mod:fn"}})) == "pkg.mod:fn"
    assert not is_trusted(str(folder))
    trust(str(folder))
    assert is_trusted(str(folder) + "/")


def test_the_lab_opens_such_a_run_and_the_window_asks_before_running_it(qtbot, make_window, tampered_run, payload):
    """The lab's Open run shows a record naming a custom chunker without importing it; a double-click on its
    configuration lands it on the sides, which ask first: refusing says why and imports nothing; allowing
    runs it for this session."""
    ws, run_id = tampered_run
    target, mark = payload
    window = make_window(ws)
    window.set_mode("evaluate")
    view = window.eval_view
    view.open_run(run_id)
    assert view.summary.rowCount() == 1 and not mark.exists()
    asked: list[str] = []
    for side in (window.compare.a, window.compare.b):
        side.ask_trust = lambda _parent, t, _what: asked.append(t) or False
    view.summary.itemActivated.emit(view.summary.item(0, 0))
    side = window.compare.a
    qtbot.waitUntil(lambda: side.banner.isVisible(), timeout=WAIT_MS)
    assert target in asked and "did not allow" in side.banner.text()
    assert not mark.exists()

    side.ask_trust = lambda _parent, t, _what: trust(t) or True
    side.controller.refresh()
    result = wait_settled(qtbot, side, lambda r: "custom:" in r.strategy.chunk.chunker)
    assert mark.read_text() == "called" and result.passages


# ----- issue #35 item 1: consent is an exact, whole value typed in this command -------------------------------
@pytest.mark.parametrize("value", ["fast-custom:pkg.mod:fn", "custom:pkg.mod:fn x", "xcustom:pkg.mod:fn",
                                   '{"name": "recursive", "note": "custom:pkg.mod:fn"}', "custom:pkg.mod:fn,y"])
def test_a_custom_part_of_a_longer_value_names_no_chunker(value):
    assert chunker_target(value) is None
    assert strategy_chunker_target(json.dumps({"name": value})) is None


def _plant(ws, name: str, strategy_json: dict) -> None:
    """A saved strategy row written into the database as a hostile or careless copy of the folder would."""
    with ws.store.transaction():
        ws.store.db.execute("INSERT INTO saved_strategies (name, strategy_json, source, note, created) "
                            "VALUES (?, ?, '', '', 0)", [name, json.dumps(strategy_json)])


def test_a_saved_strategy_named_like_a_custom_target_grants_nothing(hash_sample_ws, payload, capsys, hash_cli):
    """Issue #35: ``--strategy fast-custom:M:F`` ran M.F on every document because the name held the target."""
    target, mark = payload
    ws = hash_sample_ws
    name = f"fast-custom:{target}"
    _plant(ws, name, _custom(resolve("plain").to_dict(), target))
    data = str(ws.data_dir)
    ws.close()
    code = main(["search", QUESTION, "--data-dir", data, "--quiet", "--strategy", name])
    out, err = capsys.readouterr()
    assert code == 1 and len(err.strip().splitlines()) == 1 and "unknown strategy" in err, err
    assert not mark.exists(), "nothing was imported"
    assert not is_trusted(target)
    code = main(["strategies", "--data-dir", data])
    out, err = capsys.readouterr()
    assert code == 0 and f"warning: saved strategy {name!r}: not used" in out, out


def test_a_saved_strategy_named_like_a_folder_grants_no_model_folder(hash_sample_ws, tmp_path, monkeypatch, capsys,
                                                                     hash_cli):
    """An argument that happens to be an existing folder (here a saved strategy's name) is no consent."""
    folder = tmp_path / "evil-model"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    ws = hash_sample_ws
    _plant(ws, "evil-model", dict(resolve("plain").to_dict(), model=str(folder)))
    data = str(ws.data_dir)
    ws.close()
    code = main(["search", QUESTION, "--data-dir", data, "--quiet", "--strategy", "evil-model"])
    out, err = capsys.readouterr()
    assert code == 1 and "--trust-custom" in err and len(err.strip().splitlines()) == 1, err
    assert not is_trusted(str(folder))


def test_a_grid_or_a_strategy_name_never_grants_but_the_whole_chunker_value_does(hash_sample_ws, payload, capsys,
                                                                                 hash_cli):
    target, mark = payload
    data = str(hash_sample_ws.data_dir)
    hash_sample_ws.close()
    code = main(["search", QUESTION, "--data-dir", data, "--quiet", "--chunker", f"fast-custom:{target}"])
    capsys.readouterr()
    assert code != 0 and not mark.exists() and not is_trusted(target)
    code = main(["search", QUESTION, "--data-dir", data, "--quiet", "--chunker", f"custom:{target}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert mark.read_text() == "called"


def test_a_saved_strategy_name_with_a_colon_or_a_separator_is_refused_when_saved(hash_ws):
    for name in ("fast-custom:a:b", "a/b", "a\\b", "plain"):
        with pytest.raises(ValueError):
            hash_ws.records.save_strategy(name, resolve("plain"))
    assert hash_ws.records.saved_strategy_rows() == []


def test_a_planted_strategy_named_like_a_preset_is_listed_as_shadowed(hash_sample_ws, capsys):
    ws = hash_sample_ws
    _plant(ws, "plain", dict(resolve("plain").to_dict(), top_k=9))
    assert "plain" not in ws.records.saved_strategies()
    assert ws.records.saved_strategy_problems()[0][0] == "plain"
    data = str(ws.data_dir)
    ws.close()
    code = main(["strategies", "--data-dir", data])
    out, _ = capsys.readouterr()
    assert code == 0 and "warning: saved strategy 'plain': shadowed by the preset" in out, out
