"""BM25 in memory (``workbench.core.retrieve.lexical``): FTS5's tokens, FTS5's scores, per-set statistics."""

import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.lexical import LexicalIndex, question_words
from workbench.core.retrieve.strategy.presets import PRESETS, override
from workbench.core.store.tokenizer import FtsTokenizer

QUESTIONS = [
    "How do I roll back a deployment?",
    "What is the extension for the lab safety officer?",
    "Which chemicals must be stored apart, and why?",
    "orbit-admin rollback --to previous",
    "the of and a",
]


def _fts5(texts: list[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(text, tokenize = 'porter unicode61')")
    db.executemany("INSERT INTO f (rowid, text) VALUES (?, ?)", enumerate(texts))
    return db


def _set_texts(ws, config: ChunkConfig) -> list[str]:
    info = ws.sets.find_chunk_set(config)
    t = ws.sets.runtime(info.id).table
    return [ws.corpus.doc_text(int(d))[int(s):int(e)] for d, s, e in zip(t.doc_ids, t.starts, t.ends, strict=True)]


def test_scores_are_fts5_bm25_over_the_same_rows(hash_sample_ws):
    """Every row FTS5's MATCH finds is found, with FTS5's own bm25() value (sign flipped)."""
    texts = _set_texts(hash_sample_ws, ChunkConfig())
    assert len(texts) > 20
    db, index = _fts5(texts), LexicalIndex.build(texts)
    for question in QUESTIONS:
        match = " OR ".join('"' + w + '"' for w in question_words(question))
        expected = dict(db.execute("SELECT rowid, -bm25(f) FROM f WHERE f MATCH ?", [match]).fetchall())
        rows, scores = index.scores(question)
        assert expected and set(rows.tolist()) == set(expected)
        for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
            assert abs(score - expected[row]) <= 1e-9 * max(1.0, abs(score))
        top = index.top(question, 5)
        assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
        assert top[0][1] == max(expected.values())


_ALPHABET = st.sampled_from(list("abcXYZ019 _-.,'é\u00e9e\u0301İß²\u2014\u00a0\t\nçñ日本語"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(_ALPHABET, max_size=40), min_size=1, max_size=5))
def test_the_tokenizer_gives_exactly_the_terms_fts5_indexes(texts):
    db = _fts5(texts)
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')")
    tokenizer = FtsTokenizer()
    for row, text in enumerate(texts):
        indexed = [t for t, _ in sorted(
            ((t, o) for t, o in db.execute("SELECT term, offset FROM v WHERE doc = ?", [row])), key=lambda x: x[1])]
        assert tokenizer.tokens(text) == indexed


def test_a_set_ranks_the_same_whichever_other_sets_share_the_folder(hash_sample_ws):
    """Statistics are the set's own: building a second chunk set changes nothing in the first one's BM25."""
    ws = hash_sample_ws
    strategy = override(PRESETS["hybrid"], search="bm25", top_k=8)
    before = [(h.chunk_id, h.score) for h in ws.search(QUESTIONS[0], strategy).hits]
    ws.sets.ensure_chunk_set(ChunkConfig(size=60))
    ws.cache.invalidate(ws.sets.find_chunk_set(strategy.chunk).id)  # a fresh load, as in another process
    after = [(h.chunk_id, h.score) for h in ws.search(QUESTIONS[0], strategy).hits]
    assert before and before == after


def test_no_indexable_word_means_no_hits_and_an_empty_set_is_fine():
    index = LexicalIndex.build(["alpha beta", "gamma — delta", ""])
    assert index.top("— ... ?", 5) == []
    assert index.top("zeta", 5) == []
    assert [r for r, _ in index.top("Delta", 5)] == [1]
    empty = LexicalIndex.build([])
    assert empty.top("alpha", 3) == []


@pytest.mark.parametrize("seed", range(6))
def test_best_rows_are_exactly_the_k_largest(seed):
    from workbench.core.retrieve.lexical import best_rows

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30_000))
    values = np.round(rng.exponential(size=n), 1) * (rng.random(n) < 0.7)  # ties and zeros, like BM25 totals
    for k in (1, 5, 20, n, n + 3):
        picked = best_rows(values, k)
        assert len(picked) == min(k, n) and len(set(picked.tolist())) == len(picked)
        assert np.array_equal(np.sort(values[picked]), np.sort(values)[n - min(k, n):])
