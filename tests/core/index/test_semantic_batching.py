"""Semantic chunkers embed each sentence once per model, and the sentences of many documents in one batched
job: across thresholds, sizes and chunkers the store's vector cache (keyed by model and text) and the
workspace's shared in-memory cache serve every sentence embedded before. Hashed embedder (plumbing)."""

from __future__ import annotations

import math

from conftest import SAMPLE
from fake_embedder import RecordingEmbedder

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import SAVE_EVERY, text_hash
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.chunkers.vector_cache import text_key
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.workspace import Workspace


def semantic(**params):
    return resolve({"chunker": {"name": "semantic", **params}}).chunk


def sentence_windows(ws: Workspace, config) -> dict[int, list[str]]:
    """Each stored document's sentence windows under ``config``'s semantic chunker."""
    cutter = SetCutter(config, ws.store, ws.embedder, ws.counter)
    docs = [ws.store.documents.document(d["id"]) for d in ws.records.documents()]
    return {doc.id: cutter.chunker.texts_to_embed(doc.text, doc.headings) for doc in docs}


def test_sentences_of_many_documents_are_embedded_in_one_job(tmp_path):
    emb = RecordingEmbedder()
    ws = Workspace(tmp_path / "data", embedder=emb)
    ws.add_paths([str(SAMPLE)])
    config = semantic(percentile=90)
    windows = sentence_windows(ws, config)
    owner = {text_hash(t): doc for doc, texts in windows.items() for t in texts}
    emb.batches.clear()
    ws.sets.ensure_chunk_set(config)
    sentence_calls = [b for b in emb.batches if all(text_hash(t) in owner for t in b)]
    assert sentence_calls, "the sentence windows were embedded"
    assert len({owner[text_hash(t)] for t in sentence_calls[0]}) > 1, "one call holds sentences of several documents"
    unique = {text_hash(t) for texts in windows.values() for t in texts}
    assert sum(len(b) for b in sentence_calls) == len(unique), "each sentence window embedded once"
    assert len(sentence_calls) == math.ceil(len(unique) / SAVE_EVERY), "one job for all documents, committed in slices"
    ws.close()


def test_each_sentence_is_embedded_once_per_model_across_thresholds_sizes_and_chunkers(tmp_path):
    emb = RecordingEmbedder()
    ws = Workspace(tmp_path / "data", embedder=emb)
    ws.add_paths([str(SAMPLE)])
    ws.sets.ensure_chunk_set(semantic(percentile=90))
    embedded = {text_hash(t) for b in emb.batches for t in b}
    for config in (semantic(percentile=70), semantic(percentile=90, max_tokens=128)):
        emb.batches.clear()
        info = ws.sets.ensure_chunk_set(config)
        again = {text_hash(t) for b in emb.batches for t in b} & embedded
        assert not again, f"{chunking_label(config)} embedded {len(again)} text(s) a second time"
        assert set(ws.store.sets.chunk_table(info.id).text_hashes) <= embedded | {text_hash(t) for b in emb.batches
                                                                             for t in b}
        embedded |= {text_hash(t) for b in emb.batches for t in b}
    keys = [text_key(emb.model_id, t) for texts in sentence_windows(ws, semantic(percentile=90)).values()
            for t in texts]
    assert all(k in ws.sentence_vectors for k in keys), "the workspace's shared cache holds every sentence"
    other = Workspace(tmp_path / "data", embedder=RecordingEmbedder())  # a later session: the store remembers
    other.sets.ensure_chunk_set(semantic(percentile=50))
    assert not {text_hash(t) for b in other.embedder.batches for t in b} & set(
        t for texts in sentence_windows(ws, semantic(percentile=90)).values() for t in map(text_hash, texts))
    other.close()
    ws.close()
