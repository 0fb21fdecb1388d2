"""Values read back from the store's tables are named and contained: a damaged run record, an implausible
rate, an unreadable counter or a damaged saved strategy is named (which record, which field), skipped or read
as a safe default with a warning, and no other record or command is affected (``store.readback``)."""

import sqlite3

from cli_support import run_cli
from conftest import SAMPLE

from workbench.core.index.rates import MAX_CHARS_PER_S, MIN_CHARS_PER_S, embedding_rate, rate_name
from workbench.core.index.verify import verify_store
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.retrieve.strategy.value import Strategy
from workbench.core.workspace import Workspace

DATASET = "workbench/datasets/sample"


def _sql(data, statement, *params):
    with sqlite3.connect(data / "workbench.sqlite3") as db:
        db.execute(statement, params)


def _two_runs(capsys, data):
    for strategy in ("plain", "neighbours"):
        code, _, err = run_cli(capsys, "eval", DATASET, "--strategy", strategy, "--limit", "3", "--data-dir", data)
        assert code == 0, err
    with sqlite3.connect(data / "workbench.sqlite3") as db:
        return [r[0] for r in db.execute("SELECT id FROM runs ORDER BY rowid")]


def test_a_damaged_run_record_is_named_and_no_other_run_or_command_is_affected(hash_cli, capsys, tmp_path):
    data = tmp_path / "d"
    bad, good = _two_runs(capsys, data)
    _sql(data, "UPDATE runs SET config_json = '{x' WHERE id = ?", bad)

    code, out, err = run_cli(capsys, "runs", "--data-dir", data)
    assert code == 0 and good in out and bad not in out
    assert bad in err and "config_json is not valid JSON" in err and len(err.strip().splitlines()) == 1
    for args in (["runs", "--show", bad], ["eval", "--rerun", bad], ["advise", "--resume", bad]):
        code, _, err = run_cli(capsys, *args, "--data-dir", data)
        assert code == 1 and len(err.strip().splitlines()) == 1, (args, err)
        assert bad in err and "config_json" in err and "Traceback" not in err, (args, err)
    assert run_cli(capsys, "runs", "--show", good, "--data-dir", data)[0] == 0
    assert run_cli(capsys, "eval", "--rerun", good, "--data-dir", data)[0] == 0
    ws = Workspace(data)
    report = verify_store(ws)
    ws.close()
    assert report["consistent"] and any(bad in n and "config_json" in n for n in report["notes"])
    code, out, _ = run_cli(capsys, "runs", "--delete", bad, "--data-dir", data)
    assert code == 0 and f"deleted run {bad}" in out


def test_recorded_rows_are_typed_and_a_question_whose_index_is_not_a_number_is_named(hash_cli, capsys, tmp_path):
    data = tmp_path / "d"
    first, second = _two_runs(capsys, data)
    _sql(data, "UPDATE run_questions SET q_index = 'x' WHERE run_id = ? AND q_index = "
               "(SELECT MIN(q_index) FROM run_questions WHERE run_id = ?)", first, first)
    ws = Workspace(data)
    try:
        assert [r.id for r in ws.records.run_rows()] == [second, first], "newest first"
        rows = ws.records.run_question_rows(first)
        assert len(rows) == 2 and all(isinstance(r.q_index, int) and r.run_id == first for r in rows)
        assert any(first in w and "q_index is not a number" in w for w in ws.records.stored_value_warnings())
        assert len(ws.records.run_question_rows(second)) == 3, "no other run is affected"
    finally:
        ws.close()
    assert run_cli(capsys, "runs", "--show", first, "--data-dir", data)[0] == 0


def test_a_run_record_of_the_wrong_shape_is_named_not_a_traceback(hash_cli, capsys, tmp_path):
    """Valid JSON with a field of the wrong type (the dataset's path an integer, configurations not objects)."""
    data = tmp_path / "d"
    first, second = _two_runs(capsys, data)
    _sql(data, "UPDATE runs SET config_json = json_set(config_json, '$.dataset.path', 5) WHERE id = ?", first)
    _sql(data, "UPDATE runs SET config_json = json_set(config_json, '$.configs', json('[1, 2]')) WHERE id = ?",
         second)
    code, _, err = run_cli(capsys, "eval", "--rerun", first, "--data-dir", data)
    assert code == 1 and first in err and "dataset path 5 is not text" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "runs", "--show", second, "--data-dir", data)
    assert code == 1 and second in err and "'configs' is not a list of configurations" in err


def test_implausible_rates_are_ignored_and_measured_again(hash_ws):
    """5e-324 characters/s failed every build ('cannot convert float NaN to integer'); 1e-10 made the
    advisor's plan take 'about 115341666666 h'. Issue #48 item 14: such a kept value is ignored (measured again),
    never a warning on every build nor a problem for ``verify``."""
    store, model = hash_ws.store, hash_ws.embedder.model_id
    store.caches.keep_rate(rate_name(model), 5e-324)
    assert embedding_rate(store, model) is None
    report = hash_ws.add_paths([str(SAMPLE)], progress=lambda event: None)  # with its cost estimate, as `index`
    assert report.chunks_total > 0 and not report.failed
    assert not any("plausible" in w for w in report.warnings), report.warnings
    assert embedding_rate(store, model) is not None, "measured again by the build's estimate"
    store.caches.keep_rate(rate_name(model), 1e-10)
    assert embedding_rate(store, model) is None
    estimate = hash_ws.sets.estimate_chunk_set(ChunkConfig(size=120))
    assert 0 < estimate.seconds < 1_000, estimate
    store.caches.keep_rate(rate_name(model), 1e300)
    assert embedding_rate(store, model) is None
    verified = verify_store(hash_ws)
    assert verified["consistent"], verified["problems"]
    assert any("outside the plausible" in n and "measured again" in n for n in verified["notes"]), verified["notes"]
    store.caches.keep_rate(rate_name(model), 5_000.0)
    assert embedding_rate(store, model) == 5_000.0
    assert MIN_CHARS_PER_S < 5_000.0 < MAX_CHARS_PER_S


def test_an_unreadable_generation_counter_is_read_as_zero_named_and_reported_by_verify(hash_sample_ws):
    ws = hash_sample_ws
    ws.search("how are backups kept?", "plain")
    ws.store.db.execute("UPDATE meta SET value = 'abc' WHERE key = 'generation'")
    result = ws.search("how are the drives rotated?", "plain")
    assert result.passages
    assert any("meta 'generation'" in w and "'abc'" in w for w in result.warnings), result.warnings
    report = verify_store(ws)
    assert not report["consistent"] and any("meta 'generation'" in p for p in report["problems"])
    repaired = verify_store(ws, repair=True)
    assert any("generation" in r for r in repaired["repaired"]) and not repaired["unrepaired"]
    assert ws.store.generation() > 0
    ws.store.bad_values = type(ws.store.bad_values)()  # a fresh connection's view
    assert verify_store(ws)["consistent"]


def test_a_damaged_saved_strategy_is_named_and_the_others_still_read(hash_sample_ws, capsys, hash_cli):
    ws = hash_sample_ws
    ws.records.save_strategy("mine", resolve("neighbours"))
    ws.store.runs.save_strategy("broken", "[1]")
    ws.store.runs.save_strategy("deep", "[" * 5000)
    assert list(ws.records.saved_strategies()) == ["mine"]
    assert "'broken'" in str(ws.store.bad_values.messages())
    code, out, err = run_cli(capsys, "strategies", "--data-dir", ws.data_dir)
    assert code == 0 and "mine" in out and "broken" not in out
    assert "saved strategy 'broken': strategy_json is JSON list, not an object" in err
    assert "saved strategy 'deep': strategy_json is JSON nested too deeply" in err
    try:
        ws.records.resolve_strategy("broken")
    except ValueError as exc:
        assert "saved strategy 'broken'" in str(exc)
    else:
        raise AssertionError("a damaged saved strategy resolved")


def test_an_unreadable_chunk_set_row_is_named_left_out_and_removed_by_repair(hash_sample_ws):
    ws = hash_sample_ws
    other = ws.sets.ensure_chunk_set(ChunkConfig(size=120))
    damaged = next(i for i in ws.store.sets.chunk_sets() if i.id != other.id)
    ws.store.db.execute("UPDATE chunk_sets SET config_json = '{\"size\": -5}' WHERE id = ?", [damaged.id])
    assert [i.id for i in ws.store.sets.chunk_sets()] == [other.id]
    try:
        ws.search("how are backups kept?", "plain")
    except Exception as exc:  # one line naming the set and the field, not a TypeError of ChunkConfig
        assert damaged.id in str(exc) and "config_json" in str(exc) and "--repair" in str(exc)
    else:
        raise AssertionError("searched a chunk set whose row does not read")
    assert ws.search("how are backups kept?", Strategy(chunk=other.config)).passages, "the other set is unaffected"
    report = verify_store(ws)
    assert not report["consistent"] and any(damaged.id in p for p in report["problems"])
    assert any(damaged.id in r for r in verify_store(ws, repair=True)["repaired"])
    assert ws.search("how are backups kept?", "plain").passages, "rebuilt when next used"



def test_the_advisors_plan_with_an_implausible_rate_tries_configurations(hash_cli, capsys, tmp_path):
    """A kept 1e-10 characters/s planned 'about 115341666666 h' and tried nothing; it is now ignored and measured
    again (issue #48 item 14), and ``verify`` does not call it damage."""
    data = tmp_path / "d"
    assert run_cli(capsys, "index", SAMPLE, "--data-dir", data, "--quiet")[0] == 0
    _sql(data, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1e-10')",
         f"rate:{rate_name(hash_cli.model_id)}")
    code, out, err = run_cli(capsys, "advise", DATASET, "--plan-only", "--chunkers", "fixed", "--sizes", "64",
                             "--data-dir", data)
    assert code == 0, err
    assert "115341666666" not in out and "try nothing" not in out, out
    _sql(data, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1e-10')", f"rate:{rate_name(hash_cli.model_id)}")
    code, out, err = run_cli(capsys, "verify", "--data-dir", data)
    assert code == 0 and "INCONSISTENT" not in out + err, out + err
