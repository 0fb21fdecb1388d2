"""Privacy: index, search, evaluation and answering run with a socket guard that fails on any connection
to a non-loopback address; model loaders are offline; the Ollama host defaults to loopback."""

import json
import os
import socket

import pytest
from conftest import CHROMA, SAMPLE
from netguard import NetGuard

from workbench.cli import main


def test_the_guard_itself_refuses_outside_addresses(monkeypatch):
    guard = NetGuard(monkeypatch)
    with socket.socket() as s, pytest.raises(OSError, match="network guard"):
        s.connect(("192.0.2.1", 80))  # TEST-NET-1: refused by the guard before any packet is sent
    assert guard.blocked == [("192.0.2.1", 80)]


@pytest.mark.llm
def test_whole_workflow_stays_on_the_machine(monkeypatch, capsys, tmp_path):
    """With the real models (MiniLM and the embedded GGUF model): what they do is the point here. The
    process-wide model cache is emptied first, so that MiniLM is loaded inside the guard."""
    from workbench.core.index import embedding

    monkeypatch.setattr(embedding, "_LOADED", {})
    guard = NetGuard(monkeypatch)
    data = str(tmp_path / "data")
    assert main(["index", str(SAMPLE), "--data-dir", data, "--quiet"]) == 0
    assert main(["search", "How do I calibrate a sensor?", "--data-dir", data, "--json", "--window", "1"]) == 0
    qset = tmp_path / "qset"
    (qset / "corpora").mkdir(parents=True)
    text = (CHROMA / "corpora" / "chatlogs.md").read_text(encoding="utf-8")
    (qset / "corpora" / "chatlogs.md").write_text(text, encoding="utf-8")
    with open(CHROMA / "questions.csv", encoding="utf-8") as src:
        import csv

        rows = [r for r in csv.DictReader(src) if r["corpus_id"] == "chatlogs"][:5]
    with open(qset / "questions.csv", "w", encoding="utf-8", newline="") as dst:
        w = csv.DictWriter(dst, fieldnames=["question", "references", "corpus_id"])
        w.writeheader()
        w.writerows(rows)
    assert main(["eval", str(qset), "--strategy", "plain", "--data-dir", data, "--json", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["ask", "How much is the day pass?", "--data-dir", data, "--backend", "embedded",
                 "--max-tokens", "4", "--top-k", "1", "--json", "--quiet"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["stats"]["backend"] == "embedded"
    assert guard.blocked == []
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_ollama_host_defaults_to_loopback(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    from workbench.core.llm.ollama_backend import resolve_host

    host = resolve_host(None)
    assert "127.0.0.1" in host or "localhost" in host


def test_non_loopback_ollama_host_is_flagged():
    from workbench.core.llm.ollama_backend import host_warning, is_loopback_host

    for local in ("127.0.0.1:11434", "http://localhost:11434", "[::1]:11434", "http://127.0.0.2"):
        assert is_loopback_host(local), local
        assert host_warning(local) is None
    for remote in ("192.168.1.20:11434", "http://gpu-box.lan:11434", "10.0.0.5"):
        assert not is_loopback_host(remote), remote
        assert "not on this machine" in host_warning(remote)


@pytest.mark.slow
def test_a_local_cluster_build_listens_on_loopback_only_and_leaves_nothing_behind(monkeypatch, tmp_path,
                                                                                   hash_embedder):
    """``--cluster local``: while the private Ray runs a build, every socket its processes listen on is a
    loopback one, the driver connects to nothing else, and its files (and no token) stay out of the home
    folder; closing it removes its temporary folder."""
    import ipaddress
    from pathlib import Path

    from cluster_support import descendants, listening_addresses

    from workbench.core.index.cluster import Cluster, ClusterAddress
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.workspace import Workspace

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    guard = NetGuard(monkeypatch)
    ws = Workspace(tmp_path / "data", embedder=hash_embedder)
    ws.add_paths([str(SAMPLE)])
    seen: set[str] = set()

    def progress(ev):
        if ev.stage == "embedding" and ev.done:
            seen.update(listening_addresses(descendants(os.getpid())))

    with Cluster(ClusterAddress(workers=2)) as cluster:
        ws.sets.cluster = cluster
        ws.sets.ensure_chunk_set(ChunkConfig(size=40), progress=progress)
        temp = Path(cluster._temp or "")
        assert temp.is_dir() and not temp.is_relative_to(home)
    ws.close()
    assert seen, "Ray's processes were listening during the build"
    assert all(ipaddress.ip_address(a).is_loopback for a in seen), seen
    assert guard.blocked == []
    assert not temp.exists(), "its temporary folder is removed"
    assert not list(home.iterdir()), "nothing written to the home folder (no ~/.ray token)"
