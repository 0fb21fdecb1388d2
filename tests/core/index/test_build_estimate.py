"""The cost estimate before a chunk set is built (``ws.sets.estimate_chunk_set``): the chunks it will hold,
the texts it will embed, seconds from this machine's measured rate (kept from every build); said by the CLI
before a build and shown on the window's progress lines. Hashed embedder (a slowed one where time matters)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from conftest import SAMPLE
from fake_embedder import HashEmbedder
from ui_support import WAIT_MS

from workbench.core.index.embedding import EmbedMeter
from workbench.core.index.estimate import BuildEstimate, about
from workbench.core.index.rates import embedding_rate, keep_rate, rate_name
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import ProgressEvent
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.workspace import Workspace

pytest_plugins = ["ui_support"]


class SlowEmbedder(HashEmbedder):
    """The hashed embedder taking ``per_char`` seconds per character: a model with a known rate."""

    def __init__(self, per_char: float = 2e-6) -> None:
        super().__init__()
        self.per_char = per_char

    def encode(self, texts, progress=None, cancel=None):
        time.sleep(self.per_char * sum(len(t) for t in texts))
        return super().encode(texts, progress, cancel)


def test_describe_for_people():
    assert BuildEstimate(1240, 310, 25.2).describe() == "~1,240 chunks, 310 to embed, about 25 s"
    assert BuildEstimate(12, 0, 0.2).describe() == "~12 chunks, nothing to embed, under a second"
    assert [about(s) for s in (300, 6000)] == ["about 5 min", "about 1 h 40 min"]


def test_estimate_counts_what_the_build_makes(hash_ws):
    hash_ws.add_paths([str(SAMPLE)])
    # measured: nothing embedded to measure it
    hash_ws.store.caches.keep_rate(rate_name(hash_ws.embedder.model_id), 1e6)
    config = ChunkConfig(size=64)
    estimate = hash_ws.sets.estimate_chunk_set(config)
    before = hash_ws.embedder.texts_encoded
    info = hash_ws.sets.ensure_chunk_set(config)
    assert estimate.chunks == info.chunk_count, "the sample corpus is cut whole: the count is exact"
    assert estimate.to_embed == hash_ws.embedder.texts_encoded - before > 0
    assert hash_ws.sets.estimate_chunk_set(config) == BuildEstimate(info.chunk_count, 0, 0.0), \
        "a current set costs nothing"
    overlapping = ChunkConfig(size=64, overlap=0, heading_prefix=True)  # other embedded texts, same cuts
    assert hash_ws.sets.estimate_chunk_set(overlapping).to_embed > 0


def test_seconds_come_from_the_kept_rate(hash_ws):
    hash_ws.add_paths([str(SAMPLE)])
    config = ChunkConfig(size=100)
    name = rate_name(hash_ws.embedder.model_id)
    hash_ws.store.caches.keep_rate(name, 1_000.0)
    slow = hash_ws.sets.estimate_chunk_set(config)
    hash_ws.store.caches.keep_rate(name, 100_000.0)
    fast = hash_ws.sets.estimate_chunk_set(config)
    assert slow.to_embed == fast.to_embed > 0 and slow.chunks == fast.chunks
    assert slow.seconds > 5 * fast.seconds and slow.seconds > 1, "a 100x slower rate costs far more time"


@pytest.mark.slow
def test_a_build_keeps_its_measured_rate_and_a_first_estimate_measures_one(tmp_path):
    emb = SlowEmbedder(per_char=4e-5)  # 25,000 characters a second
    ws = Workspace(tmp_path / "data", embedder=emb)
    ws.add_paths([str(SAMPLE)], ChunkConfig(size=32))  # about 1.4 s of embedding
    kept = embedding_rate(ws.store, emb.model_id)
    assert kept is not None and 5_000 < kept <= 25_000, kept
    fresh = Workspace(tmp_path / "fresh", embedder=SlowEmbedder(per_char=4e-6))
    fresh.add_paths([str(SAMPLE / "transit-prices.md")], ChunkConfig(size=200))
    config = ChunkConfig(size=48)
    fresh.store.caches.keep_rate(rate_name(emb.model_id), float("nan"))  # an unreadable rate counts as none
    estimate = fresh.sets.estimate_chunk_set(config)
    measured = embedding_rate(fresh.store, emb.model_id)
    assert measured is not None and measured > 0 and estimate.seconds > 0
    assert fresh.store.caches.embedding_count(emb.model_id) > 0
    ws.close()
    fresh.close()


def test_keep_rate_follows_the_machine_without_jumping(hash_ws):
    meter = EmbedMeter()
    meter.add(["x" * 1000], 1.0)
    assert keep_rate(hash_ws.store, "m", meter) == 1000.0
    meter.add(["x" * 1000], 0.0)  # twice as fast now
    assert keep_rate(hash_ws.store, "m", meter) == pytest.approx(1500.0)
    assert keep_rate(hash_ws.store, "m", EmbedMeter(chars=10, texts=1, seconds=0.01)) is None, "too little to tell"


def test_a_rate_weighs_each_measurement_by_the_seconds_behind_it(hash_ws):
    probe = EmbedMeter(chars=500, texts=32, seconds=1.0)  # the short measurement before a first build
    assert keep_rate(hash_ws.store, "m", probe, least_seconds=0.0) == 500.0
    build = EmbedMeter(chars=60_000, texts=1_000, seconds=60.0)  # the build itself: twice as fast
    kept = keep_rate(hash_ws.store, "m", build)
    assert kept == pytest.approx(500 + (1000 - 500) * 60 / 61), "the build outweighs the probe"
    busy = EmbedMeter(chars=30_000, texts=1_000, seconds=60.0)  # one slow build of a minute: halfway, no more
    assert keep_rate(hash_ws.store, "m", busy) == pytest.approx((kept + 500) / 2)


def test_semantic_estimate_is_exact_once_its_sentences_are_cached(hash_ws):
    hash_ws.add_paths([str(SAMPLE)])
    first = resolve({"chunker": {"name": "semantic", "percentile": 90}}).chunk
    guess = hash_ws.sets.estimate_chunk_set(first)
    built = hash_ws.sets.ensure_chunk_set(first)
    windows = hash_ws.store.caches.embedding_count(hash_ws.embedder.model_id)
    assert guess.to_embed >= built.chunk_count, "sentence windows count as texts to embed"
    assert abs(guess.chunks - built.chunk_count) <= 0.25 * built.chunk_count, "a percentile's expected count"
    assert windows > 0
    second = resolve({"chunker": {"name": "semantic", "percentile": 70}}).chunk
    estimate = hash_ws.sets.estimate_chunk_set(second)
    before = hash_ws.embedder.texts_encoded
    info = hash_ws.sets.ensure_chunk_set(second)
    assert estimate.chunks == info.chunk_count, "cut with the cached sentence vectors: exact"
    assert estimate.to_embed == hash_ws.embedder.texts_encoded - before


def test_large_corpora_are_sampled_and_scaled(hash_ws, monkeypatch):
    from workbench.core.index import estimate as module

    hash_ws.add_paths([str(SAMPLE)])
    config = ChunkConfig(size=64)
    whole = hash_ws.sets.estimate_chunk_set(config)
    sizes = hash_ws.store.documents.document_sizes([d["id"] for d in hash_ws.records.documents()])
    monkeypatch.setattr(module, "SAMPLE_CHARS", sum(sizes.values()) // 3)
    sampled = hash_ws.sets.estimate_chunk_set(config)
    assert sampled.chunks != 0 and abs(sampled.chunks - whole.chunks) <= 0.5 * whole.chunks


def test_the_cli_says_the_estimate_before_building(tmp_path, capsys, hash_cli):
    from workbench.cli import main

    assert main(["index", str(SAMPLE), "--data-dir", str(tmp_path / "d"), "--chunk-size", "64"]) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("[estimate]")]
    assert said and "chunks" in lines[said[0]] and "to embed" in lines[said[0]], err
    embedding = [i for i, line in enumerate(lines) if line.startswith("[embedding]")]
    assert not embedding or said[0] < embedding[0], "said before the work starts"


def test_progress_lines_keep_the_estimate_while_the_job_runs(qtbot):
    from workbench.ui.jobs.job_progress import JobProgress

    line = JobProgress()
    qtbot.addWidget(line)
    line.start("Building chunk set")
    line.update_event(ProgressEvent("estimate", 0, 0, "200 tokens: ~1,240 chunks, 310 to embed, about 25 s"))
    line.update_event(ProgressEvent("embedding", 10, 310, "", 1.0))
    assert line.expected.text() == "expects about 25 s · ~1,240 chunks, 310 to embed", "the time first"
    assert "200 tokens" in line.expected.toolTip() and "Embedding" in line.detail.text()
    line.start("Indexing")
    assert not line.expected.text(), "a new job starts without the old estimate"


def test_the_sides_build_line_shows_the_estimate(qtbot, make_window, hash_sample_ws):
    from ui_support import QUESTION

    window = make_window(hash_sample_ws)
    side = window.compare.a
    seen: list[str] = []
    side.controller.buildProgress.connect(lambda ev: ev.stage == "estimate" and seen.append(ev.message))
    window.question.setText(QUESTION)
    side.controller.search(QUESTION)
    side.set_strategy(resolve({"preset": "plain", "size": 80}))  # a chunk set not built yet
    qtbot.waitUntil(lambda: any(m.startswith("80 tokens") for m in seen) and not side.controller.building,
                    timeout=WAIT_MS)
    assert all(" chunks, " in m for m in seen), seen


def test_an_estimate_made_just_before_a_build_is_the_one_the_build_says(hash_ws, monkeypatch):
    import workbench.core.workspace.chunk_sets as workspace

    hash_ws.add_paths([str(SAMPLE)])
    config = ChunkConfig(size=90)
    calls = []
    real = workspace.estimate_build
    monkeypatch.setattr(workspace, "estimate_build", lambda *a, **k: calls.append(1) or real(*a, **k))
    estimate = hash_ws.sets.estimate_chunk_set(config)
    said: list[ProgressEvent] = []
    hash_ws.sets.ensure_chunk_set(config, said.append)
    assert len(calls) == 1, "the dry run is not made twice"
    build_own = replace(estimate, measured=0)  # the texts that estimate embedded were embedded before this build
    assert [e.message for e in said if e.stage == "estimate"] == [f"{chunking_label(config)}: {build_own.describe()}"]
    hash_ws.sets.ensure_chunk_set(ChunkConfig(size=91), said.append)
    assert len(calls) == 2, "a set nobody estimated is estimated before its build"


def test_a_build_counts_the_texts_its_estimate_embedded(tmp_path):
    ws = Workspace(tmp_path / "data", embedder=HashEmbedder())  # a fresh folder: no rate kept yet
    events: list[ProgressEvent] = []
    report = ws.add_paths([str(SAMPLE)], ChunkConfig(), progress=events.append)
    assert any(e.stage == "estimate" for e in events), "the rate was measured before the build"
    embedded = ws.store.caches.embedding_count(ws.embedder.model_id)
    assert report.chunks_embedded == embedded == report.chunks_total, "every chunk was embedded by this command"
    ws.close()


class OverheadEmbedder(HashEmbedder):
    """The hashed embedder with a fixed cost per call (a real model on a busy machine): a short text measures
    a rate that says nothing about the machine."""

    def encode(self, texts, progress=None, cancel=None):
        time.sleep(0.02)
        return super().encode(texts, progress, cancel)


def test_a_measurement_too_short_to_mean_anything_is_not_kept_and_verify_stays_consistent(tmp_path, capsys):
    """Issue #48 item 14: indexing a one-byte file kept 67-96 characters/s, which every later ``index`` warned
    about and ``verify`` called INCONSISTENT (exit 3)."""
    from workbench.core.index.rates import MIN_MEASURED_CHARS
    from workbench.core.index.verify import verify_store

    (tmp_path / "one.txt").write_text("x", encoding="utf-8")
    emb = OverheadEmbedder()
    ws = Workspace(tmp_path / "data", embedder=emb)
    report = ws.add_paths([str(tmp_path / "one.txt")], progress=lambda event: None)  # with its estimate
    assert report.chunks_total == 1 and not report.warnings
    assert embedding_rate(ws.store, emb.model_id) is None, "a one-character measurement was kept"
    verified = verify_store(ws)
    assert verified["consistent"], verified["problems"]
    assert keep_rate(ws.store, "m", EmbedMeter(chars=MIN_MEASURED_CHARS - 1, texts=1, seconds=2.0)) is None
    assert keep_rate(ws.store, "m", EmbedMeter(chars=50, texts=1, seconds=1.0), least_seconds=0.0) is None
    assert keep_rate(ws.store, "m", EmbedMeter(chars=10**12, texts=1, seconds=1.0)) is None, "implausible"
    assert keep_rate(ws.store, "m", EmbedMeter(chars=5_000, texts=1, seconds=1.0)) == 5_000.0
    ws.close()
