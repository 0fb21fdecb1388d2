"""Indexing: embedding cache, re-indexing, FAISS verification and rebuild (on the hashed embedder)."""

import numpy as np
from conftest import SAMPLE

from workbench.core.index.build import index_path
from workbench.core.index.verify import verify_store
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import from_dict


def test_repeated_configuration_reuses_cached_embeddings(hash_ws):
    embedder = hash_ws.embedder
    hash_ws.add_paths([str(SAMPLE / "deploy-guide.md")], ChunkConfig(size=40))
    texts_before = embedder.texts_encoded
    info = hash_ws.sets.find_chunk_set(ChunkConfig(size=40))
    for doc in hash_ws.store.documents.rows():  # forget the chunk set's chunks, keep the vector cache
        hash_ws.store.sets.drop_doc_from_set(info.id, doc["id"])
    rebuilt = hash_ws.sets.ensure_chunk_set(ChunkConfig(size=40))
    assert rebuilt.chunk_count == info.chunk_count > 0
    assert embedder.texts_encoded == texts_before, "every chunk text was served from the cache"


def test_overlapping_configurations_embed_only_new_texts(hash_ws):
    embedder = hash_ws.embedder
    hash_ws.add_paths([str(SAMPLE / "transit-prices.md")], ChunkConfig(size=100, structure_aware=True))
    before = embedder.texts_encoded
    # Another configuration id whose chunks are the same texts (every section is one short paragraph,
    # so 1000-word structure-aware chunks equal the 100-token ones): all cache hits, nothing embedded.
    info = hash_ws.sets.ensure_chunk_set(ChunkConfig(unit="words", size=1000, structure_aware=True))
    assert info.chunk_count > 0
    assert embedder.texts_encoded == before


def test_unchanged_files_skipped_and_changed_files_replaced(hash_ws, tmp_path):
    f = tmp_path / "notes.md"
    f.write_text("# Notes\n\nThe first version talks about apples.\n")
    r1 = hash_ws.add_paths([str(f)])
    assert len(r1.added) == 1
    r2 = hash_ws.add_paths([str(f)])
    assert len(r2.unchanged) == 1 and r2.chunks_added == 0
    f.write_text("# Notes\n\nThe second version talks about pears and nothing else at all.\n")
    r3 = hash_ws.add_paths([str(f)])
    assert len(r3.updated) == 1
    res = hash_ws.search("pears", from_dict({"top_k": 3}))
    texts = [hash_ws.corpus.doc_text(p.span.doc_id)[p.span.start : p.span.end] for p in res.passages]
    assert any("pears" in t for t in texts) and not any("apples" in t for t in texts)
    info = hash_ws.sets.find_chunk_set(ChunkConfig())
    assert info.chunk_count == len(hash_ws.store.sets.chunk_ids(info.id))


def test_faiss_file_deleted_or_truncated_is_rebuilt(hash_sample_ws):
    info = hash_sample_ws.sets.find_chunk_set(ChunkConfig())
    path = index_path(hash_sample_ws.data_dir, info.id)
    expected = hash_sample_ws.search("flush the cache", "plain").spans()
    for damage in ("delete", "truncate", "garbage"):
        if damage == "delete":
            path.unlink()
        elif damage == "truncate":
            path.write_bytes(path.read_bytes()[:100])
        else:
            path.write_bytes(b"not a faiss index at all" * 10)
        report = verify_store(hash_sample_ws)
        assert not report["consistent"]
        hash_sample_ws.cache.invalidate(info.id)
        assert hash_sample_ws.search("flush the cache", "plain").spans() == expected
        assert verify_store(hash_sample_ws)["consistent"]


def test_index_ids_match_database(hash_sample_ws):
    info = hash_sample_ws.sets.find_chunk_set(ChunkConfig())
    rt = hash_sample_ws.sets.runtime(info.id)
    assert np.array_equal(rt.index.ids(), hash_sample_ws.store.sets.chunk_ids(info.id))
    assert verify_store(hash_sample_ws)["consistent"]


def test_per_file_failures_reported_and_rest_indexed(hash_ws, tmp_path):
    (tmp_path / "ok.md").write_text("# Fine\n\nA perfectly fine document about tea.")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7 broken")
    (tmp_path / "zero.txt").write_bytes(b"")
    report = hash_ws.add_paths([str(tmp_path)])
    assert len(report.added) == 1
    assert [r.reason for r in report.failed] and "PDF" in report.failed[0].reason
    skipped = {r.path.split("/")[-1]: r.reason for r in report.skipped}  # also the data folder's own files
    assert skipped["zero.txt"] == "empty file"
    problems = {p["path"].split("/")[-1]: p for p in hash_ws.store.documents.problems()}
    assert set(problems) == {"broken.pdf", "zero.txt"}


def test_every_stored_chunk_reproduces_its_text(hash_sample_ws):
    info = hash_sample_ws.sets.find_chunk_set(ChunkConfig())
    t = hash_sample_ws.store.sets.chunk_table(info.id)
    for doc_id, start, end in zip(t.doc_ids, t.starts, t.ends):
        text = hash_sample_ws.corpus.doc_text(int(doc_id))
        assert 0 <= start < end <= len(text)


def test_chunks_longer_than_the_model_reads_are_warned_about(hash_ws):
    report = hash_ws.add_paths([str(SAMPLE / "deploy-guide.md")], ChunkConfig(size=300))
    assert report.warnings and "longer than the embedding model reads (256 tokens)" in report.warnings[0]
    small = hash_ws.add_paths([str(SAMPLE / "lab-safety.md")], ChunkConfig(size=100))
    assert not small.warnings
