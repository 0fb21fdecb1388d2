"""The workspace and the store are small classes that own parts (issue #36 item 1): ``ws.records``, ``ws.sets``,
``ws.corpus`` and the one cache with its one ``invalidate``; ``store.documents``, ``store.sets``, ``store.caches`` and
``store.runs`` over one connection."""

import numpy as np
import pytest
from conftest import SAMPLE

from workbench.core.ingest.documents import load_file
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import Store
from workbench.core.workspace import Workspace
from workbench.core.workspace.cache import DOCUMENTS


def test_the_store_parts_share_one_connection_and_its_transactions(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    assert store.documents.connection is store.sets.connection is store.caches.connection is store.runs.connection
    doc = load_file(SAMPLE / "lab-safety.md").document
    with pytest.raises(RuntimeError), store.transaction():  # writes of two parts in one transaction
        store.documents.upsert_document(doc)
        store.runs.save_strategy("kept", "{}")
        raise RuntimeError("crash in the middle")
    assert store.documents.rows() == [] and store.runs.saved_strategies() == [], "both parts' writes rolled back"
    doc_id, _ = store.documents.upsert_document(doc)
    assert store.generation() == 1, "a document part's change moves the connection's generation"
    info = store.sets.ensure_chunk_set_row(ChunkConfig(), "m")
    store.sets.replace_doc_chunks(info.id, store.documents.document(doc_id), [], [], [], [])
    store.documents.remove_document(doc_id)  # the documents part drops the document's rows in the sets part
    assert store.sets.chunked_docs(info.id) == {}


def test_invalidating_a_chunk_set_reloads_it_and_nothing_else(hash_sample_ws):
    ws = hash_sample_ws
    info = ws.sets.find_chunk_set(ChunkConfig())
    assert info is not None
    loaded = ws.sets.runtime(info.id)
    assert ws.sets.runtime(info.id) is loaded, "kept while nothing changed"
    doc_id = int(loaded.table.doc_ids[0])
    text = ws.corpus.doc_text(doc_id)
    ws.cache.invalidate(info.id)
    again = ws.sets.runtime(info.id)
    assert again is not loaded and np.array_equal(again.index.ids(), loaded.index.ids())
    assert ws.cache.texts.get(doc_id) is not None, "the documents' texts stay"
    assert ws.corpus.doc_text(doc_id) == text


def test_invalidating_documents_drops_what_was_read_of_them_but_not_question_vectors(hash_sample_ws):
    ws = hash_sample_ws
    doc_id = ws.records.documents()[0]["id"]
    ws.corpus.parents_of(doc_id, 0)
    ws.corpus.token_offsets(doc_id)
    vector = ws.corpus.query_vector("how do I roll back?")
    info = ws.sets.find_chunk_set(ChunkConfig())
    loaded = ws.sets.runtime(info.id)
    ws.cache.invalidate(DOCUMENTS)
    assert ws.cache.texts.get(doc_id) is None and ws.cache.offsets.get(doc_id) is None
    assert ws.cache.parents.get((doc_id, 0, "tokens")) is None
    kept = ws.cache.query_vectors.get((ws.embedder.model_id, "how do I roll back?"))
    assert kept is not None and np.array_equal(kept, vector), "question vectors do not depend on documents"
    assert ws.sets.runtime(info.id) is loaded, "a loaded set stays until its own chunks change"


def test_a_document_changed_by_another_workspace_is_read_again(hash_sample_ws, hash_embedder, tmp_path):
    ws = hash_sample_ws
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe ferry leaves at nine.")
    ws.add_paths([str(note)])
    doc_id = next(d["id"] for d in ws.records.documents() if d["path"] == str(note.resolve()))
    assert "nine" in ws.corpus.doc_text(doc_id)
    other = Workspace(ws.data_dir, embedder=hash_embedder)  # as another process would
    note.write_text("# Note\n\nThe ferry leaves at ten.")
    other.add_paths([str(note)])
    other.close()
    info = ws.sets.find_chunk_set(ChunkConfig())
    ws.sets.runtime(info.id)  # observes the store's generation: what was read of the documents is stale
    assert "ten" in ws.corpus.doc_text(doc_id)
