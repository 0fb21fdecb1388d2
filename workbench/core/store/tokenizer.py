"""SQLite FTS5's own tokenizer (``porter unicode61``), run on a private in-memory database.

BM25 is scored in memory per chunk set (``workbench.core.retrieve.lexical``); the words it counts must be
exactly the ones FTS5 would index, so the tokenizing is FTS5's, not a re-implementation of it: each distinct
whitespace-separated word is handed to an FTS5 table once and its terms are read back from ``fts5vocab``.
Whitespace always separates tokens under ``unicode61``, so splitting on it first never changes the result.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence

TOKENIZE = "porter unicode61"
_BATCH = 50_000  # words per round trip (bounds the temporary table)
_CACHE_LIMIT = 2_000_000  # distinct words remembered before the cache starts over


class FtsTokenizer:
    """Words → their FTS5 terms (``porter unicode61``); results are cached per word."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '{TOKENIZE}')")
        self._db.execute("CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, 'instance')")
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, ...]] = {}

    def terms_of(self, words: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """``{word: its terms in order}`` for each distinct word (a word of punctuation has none)."""
        wanted = list(dict.fromkeys(words))
        with self._lock:
            missing = [w for w in wanted if w not in self._cache]
            if len(self._cache) + len(missing) > _CACHE_LIMIT:
                self._cache.clear()
                missing = wanted
            for i in range(0, len(missing), _BATCH):
                self._tokenize(missing[i : i + _BATCH])
            return {w: self._cache[w] for w in wanted}

    def _tokenize(self, words: Sequence[str]) -> None:
        found: dict[int, list[tuple[int, str]]] = {}
        with self._db:
            self._db.executemany("INSERT INTO words (rowid, w) VALUES (?, ?)", enumerate(words))
            for term, row, offset in self._db.execute("SELECT term, doc, offset FROM word_terms"):
                found.setdefault(row, []).append((offset, term))
            self._db.execute("DELETE FROM words")
        for row, word in enumerate(words):
            self._cache[word] = tuple(term for _, term in sorted(found.get(row, ())))

    def tokens(self, text: str) -> list[str]:
        """Every FTS5 term of ``text``, in order (what FTS5 would index for it)."""
        words = text.split()
        terms = self.terms_of(words)
        return [t for w in words for t in terms[w]]


_SHARED: FtsTokenizer | None = None
_SHARED_GUARD = threading.Lock()


def shared_tokenizer() -> FtsTokenizer:
    """The process's tokenizer (its word cache is shared by every chunk set and question)."""
    global _SHARED
    with _SHARED_GUARD:
        if _SHARED is None:
            _SHARED = FtsTokenizer()
        return _SHARED
