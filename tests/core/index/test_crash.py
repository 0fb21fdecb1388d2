"""Crash consistency: SIGKILL the indexer at random moments, then check the store and finish the work.

The indexer is a real ``workbench index`` process (the SIGKILL is the point) embedding with the hashed
embedder (``tests/hashed_cli.py``), each batch of vectors slowed to about the real model's pace so the kills
still land while it reads, chunks and embeds."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from conftest import CHROMA, ROOT, SAMPLE, TESTS

from workbench.core.index.verify import verify_store
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import Store
from workbench.core.workspace import Workspace

KILLS = 4


@pytest.mark.slow
def test_sigkill_during_indexing_leaves_a_consistent_store(tmp_path, hash_embedder):
    embedder = hash_embedder
    data = tmp_path / "data"
    corpus = [str(SAMPLE), str(CHROMA / "corpora" / "state_of_the_union.md")]
    cmd = [sys.executable, str(TESTS / "hashed_cli.py"), "index", *corpus, "--data-dir", str(data), "--quiet",
           "--chunk-size", "60"]
    env = {**os.environ, "WORKBENCH_TEST_EMBED_DELAY": "0.6"}  # 64 vectors per 0.6 s, about MiniLM's pace here
    rng = random.Random(7)
    started = time.monotonic()
    observed = []
    triggers = ["[reading]", "[chunking]", "[embedding]", "[embedding]"]
    for i in range(KILLS):
        # kill at a random moment after a chosen stage started (a random delay alone mostly hits model loading)
        proc = subprocess.Popen([c for c in cmd if c != "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        for line in proc.stderr:
            if line.startswith(triggers[i % len(triggers)]):
                break
        time.sleep(rng.uniform(0.0, 1.5))
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        Store(data / "workbench.sqlite3").close()  # opening succeeds
        ws = Workspace(data, embedder=embedder)
        report = verify_store(ws)
        assert report["consistent"], report["problems"]
        observed.append((killed, report["documents"], ws.store.caches.embedding_count(), len(report["notes"])))
        ws.close()
    assert any(k for k, *_ in observed), "at least one run was killed mid-way"
    final = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert final.returncode == 0, final.stderr
    ws = Workspace(data, embedder=embedder)
    report = verify_store(ws)
    assert report["consistent"] and not report["notes"], report
    assert len(ws.store.documents.rows()) == 7
    info = ws.sets.find_chunk_set(ChunkConfig(size=60))
    assert info is not None and info.state == "ready"
    res = ws.search("How do I flush the cache?", {"size": 60})
    assert res.passages
    print(f"\n  {KILLS} runs, kills/docs/vectors/incomplete-sets after each: {observed}; "
          f"{time.monotonic() - started:.0f} s")
