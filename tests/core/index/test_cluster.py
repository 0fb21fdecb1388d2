"""Chunk sets embedded on a Ray cluster (``--cluster``): the addresses refused before any work (fast tier), the
streamed route of the vector cache (fast tier, no Ray), and builds on a private local Ray that equal the local
ones, survive a lost worker and lose nothing when the cluster goes away (slow tier: each starts Ray)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_support import run_cli
from cluster_support import chunk_sets, descendants
from fake_embedder import HashEmbedder

from workbench.core.index.cluster import (
    Cluster,
    ClusterAddress,
    ClusterAddressError,
    ClusterError,
    CopyRecipe,
    ModelRecipe,
    parse_cluster_address,
    recipe_for,
)
from workbench.core.index.embedding import SentenceTransformerEmbedder, embed_cached
from workbench.core.store import Store

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "resources" / "sample"


# ---- fast tier: no Ray is started -------------------------------------------------------------------------------

def test_addresses_parse_to_local_workers_or_a_remote_host():
    assert parse_cluster_address("local:2") == ClusterAddress(workers=2)
    assert parse_cluster_address("local").workers >= 1
    assert parse_cluster_address("ray://head.example:10001") == ClusterAddress(host="head.example", port=10001)
    assert parse_cluster_address("ray://[::1]:10001").host == "::1"
    for bad in ("local:0", "local:-1", "local:x", "local:", "ray://host", "ray://:1", "ray://h:0", "ray://h:99999",
                "ray://bad host:1", "http://h:1", "", "remote"):
        with pytest.raises(ClusterAddressError):
            parse_cluster_address(bad)


@pytest.mark.parametrize("address", ["local:0", "local:-1", "local:x", "ray://nohost.invalid:1"])
def test_bad_addresses_are_one_line_and_exit_2_before_any_change(capsys, tmp_path, hash_cli, address):
    data = tmp_path / "data"
    extra = ["--allow-remote"] if address.startswith("ray://") else []
    code, out, err = run_cli(capsys, "index", SAMPLE, "--cluster", address, *extra, "--data-dir", data)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and address in err and not out
    assert not data.exists(), "nothing was created"


def test_a_remote_cluster_needs_allow_remote_and_is_announced(capsys, tmp_path, hash_cli):
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", SAMPLE, "--cluster", "ray://10.0.0.1:10001", "--data-dir", data)
    assert code == 1 and "--allow-remote" in err and len(err.strip().splitlines()) == 1
    assert not data.exists()
    with pytest.raises(ClusterError, match="--allow-remote"):
        Cluster(ClusterAddress(host="10.0.0.1", port=10001))
    code, _, err = run_cli(capsys, "eval", "--cluster", "ray://localhost:1", "--allow-remote", "--compare", "a", "b",
                           "--data-dir", data, "--quiet")
    assert "will be sent to the Ray cluster at localhost:1" in err, "said before any work"


def test_an_ollama_model_is_not_sent_to_a_cluster(capsys, tmp_path, hash_cli):
    code, _, err = run_cli(capsys, "index", SAMPLE, "--cluster", "local:1", "--model", "ollama:nomic-embed-text",
                           "--data-dir", tmp_path / "data")
    assert code == 1 and "ollama" in err and not (tmp_path / "data").exists()


def test_workers_get_the_drivers_model_or_a_copy_of_its_embedder(tmp_path):
    hashed = HashEmbedder()
    recipe = recipe_for(hashed)
    assert isinstance(recipe, CopyRecipe) and recipe().model_id == hashed.model_id
    packaged = recipe_for(SentenceTransformerEmbedder(precision="bf16"))
    assert isinstance(packaged, ModelRecipe) and packaged.model_path is None, "the worker's own packaged model"
    assert packaged.precision == "bf16" and packaged.model_id.endswith("+bf16")
    wrong = ModelRecipe(None, "fp32", 16, "another-model@0")
    with pytest.raises(RuntimeError, match="not another-model@0"):
        wrong()  # a worker whose model differs refuses (builds nothing: nothing is loaded before the check)


class StreamedEmbedder(HashEmbedder):
    """The hashed embedder with the streamed route a cluster takes (``encode_slices``), recording the slices."""

    def __init__(self):
        super().__init__()
        self.slices: list[list[str]] = []

    def encode(self, texts, progress=None, cancel=None):
        raise AssertionError("a streamed embedder is given every slice at once")

    def encode_slices(self, slices, cancel=None):
        for texts in slices:
            self.slices.append(list(texts))
            yield HashEmbedder.encode(self, texts)


def test_streamed_slices_are_committed_one_transaction_each_and_cached_texts_not_sent(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    texts = [f"text number {i} about lanterns" for i in range(150)]
    streamed = StreamedEmbedder()
    embed_cached(store, HashEmbedder(), texts[:20])  # cached before: never sent
    vectors = embed_cached(store, streamed, texts)
    assert np.array_equal(vectors, HashEmbedder().encode(texts))
    sent = [t for s in streamed.slices for t in s]
    assert sorted(sent) == sorted(texts[20:]) and [len(s) for s in streamed.slices] == [64, 64, 2]
    store.close()


def test_importing_the_workbench_does_not_import_ray():
    code = ("import sys, workbench.cli, workbench.core.workspace, workbench.core.index.cluster, "
            "workbench.commands.cluster_options; print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


# ---- slow tier: a private local Ray (num_cpus=2 at most) ----------------------------------------------------------

def _search(capsys, data, question):
    code, out, err = run_cli(capsys, "search", question, "--data-dir", data, "--json", "--quiet")
    assert code == 0, err
    return [(h["doc_path"], h["chunk_id"], h["start"], h["end"], h["score"]) for h in json.loads(out)]


@pytest.mark.slow
def test_index_on_a_local_cluster_equals_the_local_build(capsys, tmp_path, hash_cli):
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    assert run_cli(capsys, "index", SAMPLE, "--data-dir", local, "--quiet")[0] == 0
    code, out, err = run_cli(capsys, "index", SAMPLE, "--cluster", "local:2", "--data-dir", cluster)
    assert code == 0, err
    assert "[embedding]" in err
    a, b = chunk_sets(local), chunk_sets(cluster)
    assert a.keys() == b.keys() and a
    for set_id in a:
        assert a[set_id][0] == b[set_id][0], "same chunk ids, spans, prefixes and text hashes"
        assert np.abs(a[set_id][1] - b[set_id][1]).max() <= 1e-5
    for question in ("How do I back up the database?", "greenhouse humidity sensor", "ticket prices"):
        assert _search(capsys, local, question) == _search(capsys, cluster, question)
    # a second run has nothing to embed: nothing is sent, Ray is not even started
    code, out, err = run_cli(capsys, "index", SAMPLE, "--cluster", "local:2", "--data-dir", cluster, "--json")
    assert code == 0 and json.loads(out)["chunks_embedded"] == 0


@pytest.mark.slow
def test_eval_and_advise_on_a_cluster_give_the_local_results(capsys, tmp_path, hash_cli):
    from advise_support import topic_set

    topic_set(tmp_path / "set", documents=6)
    results = {}
    for name, extra in (("local", []), ("cluster", ["--cluster", "local:2"])):
        data = tmp_path / name
        code, out, err = run_cli(capsys, "eval", tmp_path / "set", "--strategy", "plain", "--grid", "chunk_size=32,64",
                                 "--data-dir", data, "--json", "--quiet", *extra)
        assert code == 0, err
        rows = [{k: r[k] for k in ("key", "recall", "precision", "iou", "mrr")} for r in json.loads(out)]
        code, out, err = run_cli(capsys, "advise", tmp_path / "set", "--chunkers", "fixed", "--sizes", "32,48",
                                 "--searches", "dense", "--expansions", "none", "--top-k", "3", "--budget", "300",
                                 "--time-limit", "5m", "--folds", "2", "--data-dir", data, "--json", "--quiet", *extra)
        assert code == 0, err
        advice = json.loads(out)
        results[name] = (rows, advice["pick"], [(r["key"], r["recall"]) for r in advice["confirm"]["rows"]])
        assert {k: v[0] for k, v in chunk_sets(data).items()}
    assert results["local"] == results["cluster"]


def _index_in_a_child(data, *extra, delay="0.3"):
    env = dict(os.environ, WORKBENCH_TEST_EMBED_DELAY=delay, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, str(ROOT / "tests" / "hashed_cli.py"), "index", str(SAMPLE),
                             "--chunk-size", "40", "--data-dir", str(data), *extra],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


def _wait_for_vectors(child) -> list[str]:
    """stderr lines up to the first embedding progress with vectors returned."""
    lines = []
    for line in child.stderr:
        lines.append(line)
        if line.startswith("[embedding]") and not line.startswith("[embedding] 0/"):
            return lines
    raise AssertionError("".join(lines))


def _processes(pid, *names):
    out = []
    for child in descendants(pid):
        try:
            comm = Path(f"/proc/{child}/comm").read_text().strip()
        except OSError:
            continue
        if not names or any(comm.startswith(n) for n in names):
            out.append(child)
    return out


@pytest.mark.slow
def test_a_cluster_that_goes_away_mid_build_is_one_line_and_loses_nothing(capsys, tmp_path, hash_cli):
    data = tmp_path / "data"
    child = _index_in_a_child(data, "--cluster", "local:1")
    _wait_for_vectors(child)
    for pid in _processes(child.pid):  # the whole private Ray: its servers and its worker
        os.kill(pid, signal.SIGKILL)
    _, err = child.communicate(timeout=240)
    assert child.returncode == 1, err
    lines = [line for line in err.splitlines() if not line.startswith("[")]
    assert len(lines) == 1 and "failed mid-build" in lines[0] and "resume" in lines[0], err
    code, out, err = run_cli(capsys, "index", SAMPLE, "--chunk-size", "40", "--data-dir", data, "--json", "--quiet")
    assert code == 0, err
    assert 0 < json.loads(out)["chunks_embedded"] < json.loads(out)["chunks_total"], "what was returned was kept"
    assert run_cli(capsys, "index", SAMPLE, "--chunk-size", "40", "--data-dir", tmp_path / "local", "--quiet")[0] == 0
    a, b = chunk_sets(data), chunk_sets(tmp_path / "local")
    assert {k: v[0] for k, v in a.items()} == {k: v[0] for k, v in b.items()}


@pytest.mark.slow
def test_a_worker_lost_mid_build_is_restarted_by_ray(capsys, tmp_path, hash_cli):
    data = tmp_path / "data"
    child = _index_in_a_child(data, "--cluster", "local:1", "--json")
    _wait_for_vectors(child)
    workers = _processes(child.pid, "ray::EmbedWorke")
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    out, err = child.communicate(timeout=240)
    assert child.returncode == 0, err
    assert run_cli(capsys, "index", SAMPLE, "--chunk-size", "40", "--data-dir", tmp_path / "local", "--quiet")[0] == 0
    a, b = chunk_sets(data), chunk_sets(tmp_path / "local")
    assert {k: v[0] for k, v in a.items()} == {k: v[0] for k, v in b.items()}


@pytest.mark.slow
def test_cancel_stops_the_clusters_tasks(tmp_path, hash_embedder):
    import sqlite3

    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.jobs import Cancelled, CancelToken
    from workbench.core.workspace import Workspace

    ws = Workspace(tmp_path / "data", embedder=hash_embedder)
    ws.add_paths([str(SAMPLE)])
    db = sqlite3.connect(tmp_path / "data" / "workbench.sqlite3")
    before = db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    cancel = CancelToken()
    config = ChunkConfig(size=8)

    def progress(ev):
        if ev.stage == "embedding" and ev.done:
            cancel.cancel()  # as soon as the first slice came back

    with Cluster(ClusterAddress(workers=1)) as cluster:
        ws.sets.cluster = cluster
        with pytest.raises(Cancelled):
            ws.sets.ensure_chunk_set(config, progress=progress, cancel=cancel)
    kept = db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] - before
    assert ws.sets.find_chunk_set(config) is None, "no partial set is visible"
    ws.sets.cluster = None
    total = ws.sets.ensure_chunk_set(config).chunk_count
    assert 0 < kept <= total // 3, "the queued slices were dropped, the returned ones kept"
    db.close()
    ws.close()


@pytest.mark.slow
def test_minilm_vectors_built_on_a_cluster_agree_with_the_local_ones(tmp_path, embedder):
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.workspace import Workspace

    config = ChunkConfig(size=64)
    built = {}
    for name in ("local", "cluster"):
        ws = Workspace(tmp_path / name, embedder=embedder)
        if name == "cluster":
            with Cluster(ClusterAddress(workers=1)) as cluster:
                ws.sets.cluster = cluster
                ws.add_paths([str(SAMPLE)], config)
                ws.sets.cluster = None
        else:
            ws.add_paths([str(SAMPLE)], config)
        ws.close()
        built[name] = chunk_sets(tmp_path / name)
    assert built["local"].keys() == built["cluster"].keys()
    for set_id, (rows, vectors) in built["local"].items():
        assert built["cluster"][set_id][0] == rows
        assert np.abs(built["cluster"][set_id][1] - vectors).max() <= 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_driver_stopped_mid_build_leaves_no_ray_process_and_no_folder(tmp_path, stop):
    import shutil
    import tempfile
    import time

    from workbench.core.index.ray_supervisor import ray_processes

    temp = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))  # short: Ray's socket paths must stay < 108 bytes
    try:
        env = dict(os.environ, WORKBENCH_TEST_EMBED_DELAY="0.3", PYTHONPATH=str(ROOT), TMPDIR=str(temp))
        child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "hashed_cli.py"), "index", str(SAMPLE),
                                  "--chunk-size", "40", "--data-dir", str(tmp_path / "data"), "--cluster", "local:2"],
                                 stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        _wait_for_vectors(child)
        # the private Ray's one folder (the child's other temporary files, if any, may sit beside it)
        (folder,) = [p for p in temp.iterdir() if p.name.startswith("wb-ray-")]
        assert folder.stat().st_mode & 0o777 == 0o700
        ray = ray_processes(str(folder))
        names = {_comm(pid) for pid, _ in ray} - {""}  # a short-lived helper may have ended since it was listed
        assert {"raylet", "gcs_server", "ray::DashboardA", "ray::RuntimeEnv"} <= names, names
        os.kill(child.pid, stop)
        _, err = child.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (folder.exists() or ray_left(ray)):
            time.sleep(0.2)
        assert not ray_left(ray) and not folder.exists(), (ray_left(ray), err)
        if stop != signal.SIGKILL:  # one line, no stack dump
            lines = [line for line in err.splitlines() if line.strip() and not line.startswith("[")]
            said = "workbench: terminated (SIGTERM)" if stop == signal.SIGTERM else "workbench: interrupted"
            assert lines == [said] and child.returncode == 130, err
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _comm(pid: int) -> str:
    """A running process's name, or "" once it has ended."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def ray_left(processes) -> list[str]:
    """The processes of ``processes`` (pid, start time) that still run, by name."""
    left = []
    for pid, started in processes:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = _comm(pid)
        if stat[19] == started and stat[0] != "Z" and name:
            left.append(name)
    return left
