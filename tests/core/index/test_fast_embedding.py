"""Faster embedding with the same vectors: the bf16 model ``minilm-bf16`` (its own identity, agreeing with the
exact model), one torch thread for a question and a lane per core for a bulk job (batches side by side, the
vectors unchanged), and texts ordered by length over a whole embedding job. The real MiniLM where vectors are
the point; the hashed embedder for the plumbing."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from conftest import SAMPLE
from fake_embedder import RecordingEmbedder

from workbench.cli import main
from workbench.core import lanes
from workbench.core.index.embedder_pool import (
    FAST_MODEL,
    EmbedderPool,
    missing_model_folder,
    model_label,
    named_model_id,
    normalise_model_spec,
)
from workbench.core.index.embedding import embed_cached
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import Cancelled, CancelToken
from workbench.core.workspace import Workspace


def sample_texts(n: int = 40) -> list[str]:
    texts: list[str] = []
    for path in sorted(SAMPLE.glob("*.md")) + sorted(SAMPLE.glob("*.txt")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 40]
        texts += paragraphs
    return texts[:n]


def test_fast_model_spec_is_named_by_the_workbench():
    assert normalise_model_spec(" MiniLM-BF16 ") == FAST_MODEL
    assert model_label(FAST_MODEL) == FAST_MODEL and missing_model_folder(FAST_MODEL) is None
    pool = EmbedderPool()
    fast = pool.get(FAST_MODEL)  # packaged: no consent asked, nothing loaded yet
    assert fast.model_id == named_model_id(FAST_MODEL) == pool.default.model_id + "+bf16"
    assert EmbedderPool().by_model_id(fast.model_id).model_id == fast.model_id, "a stored set's model opens again"


@pytest.mark.slow
def test_fast_model_agrees_with_the_exact_one_and_shares_its_weights(embedder):
    fast = EmbedderPool(embedder).get(FAST_MODEL)
    texts = sample_texts()
    exact, quick = embedder.encode(texts), fast.encode(texts)
    assert fast.model is embedder.model, "bf16 runs the loaded fp32 weights under autocast: no second copy"
    assert np.allclose(np.linalg.norm(quick, axis=1), 1.0, atol=1e-5)
    cosine = np.einsum("ij,ij->i", exact, quick)
    assert cosine.mean() >= 0.995 and cosine.min() >= 0.99
    assert np.abs(exact - quick).max() > 1e-6, "the fast path really computes in bf16"


@pytest.mark.slow
def test_fast_model_keeps_its_own_chunk_sets_and_cached_vectors(tmp_path, embedder):
    ws = Workspace(tmp_path / "data", embedder=embedder)
    config = ChunkConfig()
    ws.add_paths([str(SAMPLE)], config)
    exact_set = ws.sets.find_chunk_set(config)
    cached_exact = ws.store.caches.embedding_count(embedder.model_id)
    fast_set = ws.sets.ensure_chunk_set(config, model=FAST_MODEL)
    fast_id = ws.embedder_for(FAST_MODEL).model_id
    assert fast_set.id != exact_set.id and fast_set.model_id == fast_id
    assert fast_set.chunk_count == exact_set.chunk_count, "the same chunks, embedded by another model"
    assert ws.store.caches.embedding_count(fast_id) >= fast_set.chunk_count
    assert ws.store.caches.embedding_count(embedder.model_id) == cached_exact, "the exact cache is untouched"
    result = ws.search("How much does a monthly transit pass cost?", {"preset": "plain", "model": FAST_MODEL})
    assert result.set_id == fast_set.id and result.hits
    ws.close()


@pytest.mark.slow
def test_index_command_takes_the_fast_model(tmp_path, capsys, embedder):
    data = tmp_path / "data"
    assert main(["index", str(SAMPLE / "transit-prices.md"), "--data-dir", str(data), "--model", FAST_MODEL,
                 "--json", "--quiet"]) == 0
    capsys.readouterr()
    ws = Workspace(data, embedder=embedder)
    assert {info.model_id for info in ws.store.sets.chunk_sets()} == {embedder.model_id + "+bf16"}
    ws.close()


@pytest.mark.slow
def test_a_question_runs_on_one_thread(embedder):
    import torch

    embedder.encode(["a long chunk of text " * 40] * 8)  # a bulk job first: whichever setting it measured
    embedder.encode(["How much is a monthly pass?"])
    assert torch.get_num_threads() == 1


def test_lanes_keep_the_items_order_and_run_side_by_side(monkeypatch):
    monkeypatch.setattr(lanes, "lane_count", lambda: 2)
    both = threading.Barrier(2, timeout=60)  # the first two batches meet: proof that they ran at once

    def work(i: int) -> int:
        if i < 2:
            both.wait()  # raises BrokenBarrierError (after a minute) unless the other lane is running too
        time.sleep(0.002 if i % 2 else 0.005)  # uneven batches: later items finish first on the other lane
        return i * i

    assert list(lanes.in_lanes(work, list(range(12)))) == [i * i for i in range(12)]
    assert not both.broken, "two batches ran at once"
    import torch

    assert torch.get_num_threads() == 1, "each lane runs its batch on one torch thread"


def test_a_cancel_stops_the_lanes_batches_not_yet_started(monkeypatch):
    monkeypatch.setattr(lanes, "lane_count", lambda: 2)
    cancel, started, cancelled = CancelToken(), [], threading.Event()

    def work(i: int) -> int:
        started.append(i)
        if i >= 4:  # the batches after the first four wait for the cancel (however slow the machine is)
            cancelled.wait(60)
        return i

    results = []
    with pytest.raises(Cancelled):
        for value in lanes.in_lanes(work, list(range(40)), cancel):
            results.append(value)
            if value == 3:
                cancel.cancel()
                cancelled.set()
    assert results == list(range(len(results))) and 4 <= len(results) <= 6, "the batches begun before the cancel"
    assert set(started) <= set(range(6)), "the queued batches were dropped, not run"


def test_work_on_a_lane_that_asks_for_lanes_runs_there(monkeypatch):
    monkeypatch.setattr(lanes, "lane_count", lambda: 2)

    def outer(i: int) -> list[int]:
        return list(lanes.in_lanes(lambda j: i * 10 + j, [0, 1, 2]))

    done = threading.Event()
    result: list[list[list[int]]] = []
    worker = threading.Thread(target=lambda: (result.append(list(lanes.in_lanes(outer, [1, 2, 3, 4]))), done.set()),
                              daemon=True)
    worker.start()
    assert done.wait(20), "every lane waiting for a lane would never finish"
    assert result[0] == [[10, 11, 12], [20, 21, 22], [30, 31, 32], [40, 41, 42]]


def test_an_error_in_a_lane_is_raised_as_it_was(monkeypatch):
    monkeypatch.setattr(lanes, "lane_count", lambda: 2)

    def work(i: int) -> int:
        if i == 5:
            raise ValueError("batch 5 is broken")
        return i

    with pytest.raises(ValueError, match="batch 5"):
        list(lanes.in_lanes(work, list(range(10))))


@pytest.mark.slow
def test_lanes_give_the_vectors_of_one_encode_call(embedder):
    texts = sample_texts(40)
    expected = embedder.model.encode(texts, batch_size=64, normalize_embeddings=True)
    got = embedder.encode(texts)
    assert np.abs(got - expected).max() < 1e-5, "same model, same vectors, whatever lane ran the batch"


def test_one_embedding_job_is_ordered_by_length_across_its_commits(hash_ws):
    rng = np.random.default_rng(3)
    texts = [" ".join(f"w{i}x{j}" for j in range(int(n))) for i, n in enumerate(rng.integers(1, 120, 300))]
    emb = RecordingEmbedder()
    vectors = embed_cached(hash_ws.store, emb, texts)
    assert len(emb.batches) > 1, "the job is committed in slices"
    lengths = [len(t) for batch in emb.batches for t in batch]
    assert lengths == sorted(lengths, reverse=True), "every slice holds texts of about one length"
    assert np.allclose(vectors, emb.encode(texts)), "each text keeps its own vector"


@pytest.mark.slow
def test_late_chunking_runs_at_the_embedders_precision(embedder):
    from workbench.core.ingest.chunkers.late import late_chunk_vectors

    text = " ".join(sample_texts(6))
    spans = [(0, len(text) // 2), (len(text) // 2, len(text))]
    fast = EmbedderPool(embedder).get(FAST_MODEL)
    exact, quick = late_chunk_vectors(embedder, text, spans), late_chunk_vectors(fast, text, spans)
    cosine = np.einsum("ij,ij->i", exact, quick)
    assert cosine.min() >= 0.995 and np.abs(exact - quick).max() > 1e-6


def test_cli_does_not_take_the_fast_model_for_an_llm(tmp_path, capsys):
    from workbench.cli import build_parser
    from workbench.commands.common import check_common_paths
    from workbench.commands.llm_options import resolve_llm_options

    args = build_parser().parse_args(["ask", "a question", "--model", FAST_MODEL, "--data-dir", str(tmp_path)])
    resolve_llm_options(args)
    check_common_paths(args)  # not refused as a missing model folder
    assert args.model == FAST_MODEL and args.llm_model is None
    assert "deprecated" not in capsys.readouterr().err
