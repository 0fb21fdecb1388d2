"""The SQLite schema as recorded migrations (``PRAGMA user_version`` holds the applied count)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import sqlite_utils


def _script(db: sqlite_utils.Database, script: str) -> None:
    """Run statements one by one (``executescript`` would commit the open transaction). ``CREATE`` statements
    are made idempotent (``IF NOT EXISTS``): a step that meets its own tables does no harm."""
    for statement in script.split(";\n"):
        text = statement.strip()
        if not text:
            continue
        for kind in ("CREATE TABLE ", "CREATE INDEX ", "CREATE VIRTUAL TABLE "):
            if text.startswith(kind) and not text.startswith(kind + "IF NOT EXISTS"):
                text = kind + "IF NOT EXISTS " + text[len(kind):]
        db.execute(text)


def _v1(db: sqlite_utils.Database) -> None:
    _script(
        db,
        """
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            text TEXT NOT NULL,
            format TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'indexed',
            note TEXT NOT NULL DEFAULT '',
            added TEXT NOT NULL
        );
        CREATE TABLE headings (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            level INTEGER NOT NULL,
            title TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL
        );
        CREATE INDEX headings_doc ON headings(doc_id, start);
        CREATE TABLE problems (
            path TEXT PRIMARY KEY,
            status TEXT NOT NULL,
            reason TEXT NOT NULL,
            checked TEXT NOT NULL
        );
        CREATE TABLE chunk_sets (
            id TEXT PRIMARY KEY,
            config_json TEXT NOT NULL,
            model_id TEXT NOT NULL,
            state TEXT NOT NULL,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        CREATE TABLE chunk_set_docs (
            set_id TEXT NOT NULL REFERENCES chunk_sets(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            doc_sha256 TEXT NOT NULL,
            PRIMARY KEY (set_id, doc_id)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            set_id TEXT NOT NULL REFERENCES chunk_sets(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            heading_path TEXT NOT NULL,
            prefix TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            UNIQUE (set_id, doc_id, position)
        );
        CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model_id, text_hash)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE chunk_fts USING fts5(text, tokenize = 'porter unicode61');
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """
    )


def _v2(db: sqlite_utils.Database) -> None:
    _script(
        db,
        """
        CREATE TABLE llm_cache (
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            model TEXT NOT NULL,
            value TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (kind, key, model)
        ) WITHOUT ROWID;
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            label TEXT NOT NULL,
            config_json TEXT NOT NULL,
            dataset_hash TEXT NOT NULL,
            code_version TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT,
            summary_json TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE run_questions (
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            config_key TEXT NOT NULL,
            q_index INTEGER NOT NULL,
            question TEXT NOT NULL,
            spans_json TEXT NOT NULL,
            metrics_json TEXT NOT NULL,
            answer TEXT,
            label TEXT,
            PRIMARY KEY (run_id, config_key, q_index)
        );
        """
    )


def _v3(db: sqlite_utils.Database) -> None:
    """sha256 of each chunk set's FAISS file, checked on every load (a damaged file is rebuilt)."""
    _script(
        db,
        """
        CREATE TABLE index_files (
            set_id TEXT PRIMARY KEY,
            sha256 TEXT NOT NULL,
            previous_sha256 TEXT,
            size INTEGER NOT NULL,
            written TEXT NOT NULL
        );
        """
    )


def _v4(db: sqlite_utils.Database) -> None:
    """The full-text table goes: BM25 is scored in memory per chunk set with FTS5's tokenizer
    (``workbench.core.retrieve.lexical``), so the stored copy of every chunk's text was never read."""
    _script(db, "DROP TABLE IF EXISTS chunk_fts;")


def _v5(db: sqlite_utils.Database) -> None:
    """Chunk sets scoped to some documents (a question set's corpora: evaluation searches exactly those), and
    strategies saved by name in the data folder (the advisor's picks)."""
    _script(
        db,
        """
        CREATE TABLE chunk_set_scopes (
            set_id TEXT NOT NULL REFERENCES chunk_sets(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL,
            PRIMARY KEY (set_id, doc_id)
        ) WITHOUT ROWID;
        CREATE TABLE saved_strategies (
            name TEXT PRIMARY KEY,
            strategy_json TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL
        );
        """
    )


def _v6(db: sqlite_utils.Database) -> None:
    """Question sets stored in the data folder: each question with its reference spans (document, start, end,
    and the text they held, to re-locate them when the document is indexed again) and its provenance (by hand,
    drafted by a model from a passage and reviewed or not, imported from a named format)."""
    _script(
        db,
        """
        CREATE TABLE question_sets (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            note TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        CREATE TABLE question_set_docs (
            set_id INTEGER NOT NULL REFERENCES question_sets(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL,
            PRIMARY KEY (set_id, doc_id)
        ) WITHOUT ROWID;
        CREATE TABLE questions (
            id INTEGER PRIMARY KEY,
            set_id INTEGER NOT NULL REFERENCES question_sets(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            notes TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '',
            reference_answer TEXT NOT NULL DEFAULT '',
            origin TEXT NOT NULL,
            origin_model TEXT NOT NULL DEFAULT '',
            origin_format TEXT NOT NULL DEFAULT '',
            origin_item TEXT NOT NULL DEFAULT '',
            passage_doc INTEGER,
            passage_start INTEGER,
            passage_end INTEGER,
            reviewed INTEGER NOT NULL DEFAULT 1,
            created TEXT NOT NULL
        );
        CREATE INDEX questions_set ON questions(set_id, position);
        CREATE TABLE question_refs (
            id INTEGER PRIMARY KEY,
            question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            content TEXT NOT NULL,
            doc_sha256 TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'ok',
            status_note TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX question_refs_question ON question_refs(question_id);
        """
    )


def _v7(db: sqlite_utils.Database) -> None:
    """Hand-made chunkings: a name, the base strategy it started from, the base chunker (canonical JSON) and its
    edits to the cuts, in order (a JSON list; an imported export holds whole span lists, so a row, not code)."""
    _script(
        db,
        """
        CREATE TABLE hand_chunkings (
            name TEXT PRIMARY KEY,
            base_strategy TEXT NOT NULL,
            base_chunker TEXT NOT NULL,
            edits_json TEXT NOT NULL DEFAULT '[]',
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        """
    )


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3, _v4, _v5, _v6, _v7]
SCHEMA_VERSION = len(MIGRATIONS)


OWN_TABLES = ("documents", "chunk_sets", "chunks", "meta")  # tables every version of the schema has


def foreign_tables(db: sqlite_utils.Database, version: int) -> str:
    """``""`` when the database is empty or a workbench store; else a few of its table names (the file
    belongs to another program and must be left untouched). Only reads."""
    names = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    if not names or (version > 0 and all(t in names for t in OWN_TABLES)):
        return ""
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"table{'s' if len(names) > 1 else ''} {shown}"


def migrate(db: sqlite_utils.Database, transaction: Callable[[], AbstractContextManager[None]]) -> int:
    """Apply the migrations this database lacks, each in its own write transaction (``transaction()``:
    ``BEGIN IMMEDIATE``), re-reading the version inside it: several processes opening an older or new
    store at once apply each step exactly once, one after another. Returns the new version."""
    while True:
        with transaction():
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version >= SCHEMA_VERSION:
                return SCHEMA_VERSION
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
