"""BM25 over one chunk set, in memory: FTS5's tokens and FTS5's formula, the set's own statistics.

SQLite's ``bm25()`` scores every row that holds any question word, and "the" or "of" are in nearly all of
them: at 100k chunks a query spent ~190 ms in FTS5. Here the set's chunks are tokenized once by FTS5's own
tokenizer (``workbench.core.store.tokenizer``) into a term → chunk matrix whose entries are already
BM25 weights, so a question costs one vector add per distinct word (~2 ms at 100k chunks).

The score is FTS5's: Σ over the question's words of ``idf · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))``
with ``k1 = 1.2``, ``b = 0.75`` and ``idf = ln((N − n + 0.5)/(n + 0.5))`` (``1e-6`` when not positive).
N, n and avgdl count this chunk set's chunks only, so a set ranks the same whichever other sets share
the data folder (FTS5's table held every set, and its statistics mixed them).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from workbench.core.store.tokenizer import shared_tokenizer

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6
_QUESTION_WORD = re.compile(r"\w+", re.UNICODE)


def question_words(question: str) -> list[str]:
    """The question's distinct words, lower-cased, in order (each is one BM25 query term or phrase)."""
    return list(dict.fromkeys(w.lower() for w in _QUESTION_WORD.findall(question)))


@functools.lru_cache(maxsize=256)
def question_terms(question: str) -> tuple[tuple[str, ...], ...]:
    """FTS5's terms of each of the question's words (worked out once per question, however many chunk sets
    it searches: multi-granularity search asks three)."""
    return tuple(tuple(terms) for terms in shared_tokenizer().terms_of(question_words(question)).values())


@dataclass(frozen=True)
class LexicalIndex:
    """A chunk set's BM25 weights as a term → row matrix (CSR: ``indptr``, ``rows``, ``weights``)."""

    terms: dict[str, int]
    indptr: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    n_rows: int

    @classmethod
    def build(cls, texts: Sequence[str]) -> LexicalIndex:
        """The index of ``texts`` (one per chunk row, in row order).

        Term frequencies are (row × word counts) @ (word × term counts): each distinct whitespace word is
        tokenized by FTS5 once, and a word FTS5 splits ("x_y") counts as each of its terms."""
        from scipy import sparse  # imported on first use (keeps ``import workbench.core`` light)

        split = [t.split() for t in texts]
        row_of_token = np.repeat(np.arange(len(texts)), np.fromiter(map(len, split), dtype=np.int64, count=len(split)))
        tokens = list(chain.from_iterable(split))
        word_ids = {w: i for i, w in enumerate(dict.fromkeys(tokens))}
        word_of_token = np.fromiter(map(word_ids.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        terms_of_word = shared_tokenizer().terms_of(word_ids)
        terms: dict[str, int] = {}
        pairs = [(w, terms.setdefault(t, len(terms))) for word, w in word_ids.items() for t in terms_of_word[word]]
        words = np.fromiter((w for w, _ in pairs), dtype=np.int64, count=len(pairs))
        word_terms = np.fromiter((t for _, t in pairs), dtype=np.int64, count=len(pairs))
        row_words = sparse.csr_matrix((np.ones(len(word_of_token)), (row_of_token, word_of_token)),
                                      shape=(len(texts), len(word_ids)))
        word_term = sparse.csr_matrix((np.ones(len(words)), (words, word_terms)), shape=(len(word_ids), len(terms)))
        tf = (row_words @ word_term).tocsc()  # term-major: a column per term, its rows sorted
        tf.sort_indices()
        return cls.from_counts(terms, tf.indptr.astype(np.int64), tf.indices, tf.data,
                               np.asarray(tf.sum(axis=1)).ravel())

    @classmethod
    def from_counts(cls, terms: dict[str, int], indptr: np.ndarray, rows: np.ndarray, tf: np.ndarray,
                    dl: np.ndarray) -> LexicalIndex:
        """The index from term frequencies in term-major CSR form and each row's length in tokens."""
        n_rows = len(dl)
        df = np.diff(indptr).astype(np.float64)
        idf = np.log((n_rows - df + 0.5) / (df + 0.5))
        idf[idf <= 0] = IDF_FLOOR
        avgdl = float(dl.mean()) if n_rows and dl.sum() else 1.0
        norm = K1 * (1 - B + B * dl / avgdl)
        term_of_entry = np.repeat(np.arange(len(df)), np.diff(indptr))
        weights = idf[term_of_entry] * tf * (K1 + 1) / (tf + norm[rows])
        return cls(terms, indptr, rows.astype(np.int32), weights, n_rows)

    def totals(self, question: str) -> np.ndarray | None:
        """Every row's score for ``question`` (0 for a row without a question term), or None when no question
        word is a term of this set (FTS5's MATCH of the words ORed; a word FTS5 splits, "x_y", counts as its
        terms, not as a phrase)."""
        picked = [t for word_terms in question_terms(question) for t in map(self.terms.get, word_terms)
                  if t is not None]
        if not picked:
            return None
        pieces = [slice(int(self.indptr[t]), int(self.indptr[t + 1])) for t in picked]
        total: np.ndarray = np.bincount(np.concatenate([self.rows[p] for p in pieces]),
                                        weights=np.concatenate([self.weights[p] for p in pieces]),
                                        minlength=self.n_rows)
        return total

    def scores(self, question: str) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of every row holding a question term."""
        total = self.totals(question)
        if total is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        hit_rows = np.flatnonzero(total)  # every weight is positive (idf is floored above zero)
        return hit_rows, total[hit_rows]

    def top(self, question: str, k: int) -> list[tuple[int, float]]:
        """The best ``k`` ``(row, score)`` by BM25 (higher is better; ties by row).

        The best ``k`` are picked straight from every row's total (``best_rows``): with "the" or "of" in
        the question nearly every row holds a term, so listing the rows that do would cost as much again."""
        total = self.totals(question)
        if total is None or k <= 0:
            return []
        rows = best_rows(total, k)
        rows = rows[total[rows] > 0]
        order = np.lexsort((rows, -total[rows]))
        return [(int(rows[i]), float(total[rows[i]])) for i in order]

    @property
    def memory_bytes(self) -> int:
        """Approximate size of the arrays."""
        return int(self.indptr.nbytes + self.rows.nbytes + self.weights.nbytes)


SAMPLE_ROWS = 2048


def best_rows(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest ``values`` (in no order; exact).

    A threshold is read off an evenly spaced sample (the value ranked ``4k`` of the whole, about); the rows at
    or above it are one vectorised comparison, and only those are partitioned. Every row at or above the
    k-th largest value is among them whenever at least ``k`` are, so the answer is exact; else the whole
    array is partitioned."""
    n = len(values)
    if k >= n:
        return np.arange(n)
    step = max(1, n // SAMPLE_ROWS)
    sample = values[::step]
    above = min(len(sample) - 1, (4 * k) // step + 1)  # sample values above the threshold
    threshold = np.partition(sample, len(sample) - 1 - above)[len(sample) - 1 - above]
    rows = np.flatnonzero(values >= threshold)
    if len(rows) < k:
        rows = np.arange(n)
    if len(rows) > k:
        rows = rows[np.argpartition(values[rows], len(rows) - k)[len(rows) - k:]]
    return rows

