"""The SQLite store: round trips, migrations, refusal to touch foreign or newer files."""

import sqlite3

import numpy as np
import pytest
from conftest import SAMPLE

from workbench.core.ingest.documents import load_file
from workbench.core.store import Store, StoreError
from workbench.core.store.schema import SCHEMA_VERSION


def test_document_round_trip_and_unchanged_skip(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    doc = load_file(SAMPLE / "deploy-guide.md").document
    doc_id, changed = store.documents.upsert_document(doc)
    assert changed
    again_id, changed_again = store.documents.upsert_document(doc)
    assert (again_id, changed_again) == (doc_id, False)
    back = store.documents.document(doc_id)
    assert back.text == doc.text and back.headings == doc.headings and back.sha256 == doc.sha256
    assert store.documents.rows()[0]["chars"] == len(doc.text)


def test_migrations_recorded_and_reopen_is_idempotent(tmp_path):
    path = tmp_path / "db.sqlite3"
    Store(path).close()
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"documents", "chunks", "chunk_sets", "embeddings", "runs"} <= set(store.db.table_names())


def test_newer_schema_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer"):
        Store(path)
    assert path.read_bytes() == before


def test_not_a_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "db.sqlite3"
    path.write_bytes(b"these are my precious notes, not a database")
    with pytest.raises(StoreError, match="not a SQLite database"):
        Store(path)
    assert path.read_bytes() == b"these are my precious notes, not a database"


def test_embedding_cache_round_trip(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    vecs = {"h1": np.arange(4, dtype=np.float32), "h2": np.ones(4, dtype=np.float32)}
    store.caches.put_vectors("m", vecs)
    got = store.caches.cached_vectors("m", ["h1", "h2", "h3"])
    assert set(got) == {"h1", "h2"}
    assert np.array_equal(got["h1"], vecs["h1"])
    assert store.caches.cached_vectors("other-model", ["h1"]) == {}


def test_failed_transaction_leaves_previous_state(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    doc = load_file(SAMPLE / "lab-safety.md").document
    store.documents.upsert_document(doc)
    with pytest.raises(RuntimeError), store.db.atomic():
        store.db.execute("DELETE FROM documents")
        raise RuntimeError("crash in the middle")
    assert len(store.documents.rows()) == 1
