"""A chunk set loaded for searching: its FAISS index and its chunk table as arrays, with fast lookups.

Everything right of the search step (windows, merges, budgets) works on these arrays in memory, which
is why moving a window slider costs milliseconds and never re-embeds anything.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from workbench.core.index.vectors import VectorIndex
from workbench.core.retrieve.lexical import LexicalIndex
from workbench.core.spans import Span
from workbench.core.store import ChunkSetInfo, ChunkTable


@dataclass
class LoadedSet:
    """A ready chunk set in memory."""

    info: ChunkSetInfo
    table: ChunkTable
    index: VectorIndex
    generation: int = 0  # the store generation it was last known current at
    chunked: dict[int, str] = field(default_factory=dict)  # doc id → sha256 of the text its chunks were cut from
    _id_order: np.ndarray = field(init=False, repr=False)
    _sorted_ids: np.ndarray = field(init=False, repr=False)
    doc_first_row: dict[int, int] = field(init=False, repr=False)
    doc_row_count: dict[int, int] = field(init=False, repr=False)
    _lexical: LexicalIndex | None = field(default=None, init=False, repr=False)
    _lexical_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._id_order = np.argsort(self.table.ids, kind="stable")
        self._sorted_ids = self.table.ids[self._id_order]
        self.doc_first_row, self.doc_row_count = {}, {}
        if len(self.table):
            docs = self.table.doc_ids
            change = np.flatnonzero(np.diff(docs)) + 1
            firsts = np.concatenate([[0], change])
            counts = np.diff(np.concatenate([firsts, [len(docs)]]))
            for first, count in zip(firsts.tolist(), counts.tolist(), strict=True):
                self.doc_first_row[int(docs[first])] = first
                self.doc_row_count[int(docs[first])] = count

    def __len__(self) -> int:
        return len(self.table)

    def lexical(self, doc_text: Callable[[int], str]) -> LexicalIndex:
        """The set's BM25 index, built from its chunks' text on first use (then kept with the set)."""
        with self._lexical_lock:
            if self._lexical is None:
                t = self.table
                self._lexical = LexicalIndex.build(
                    [doc_text(d)[s:e] for d, s, e in zip(t.doc_ids.tolist(), t.starts.tolist(), t.ends.tolist(),
                                                         strict=True)])
            return self._lexical

    def rows_of(self, chunk_ids: np.ndarray) -> np.ndarray:
        """Row numbers (into the table arrays) of chunk ids."""
        pos = np.searchsorted(self._sorted_ids, chunk_ids)
        return self._id_order[pos]

    def contains(self, chunk_ids: np.ndarray) -> np.ndarray:
        """Boolean mask: which of ``chunk_ids`` belong to this (possibly snapshot) chunk set."""
        if not len(self._sorted_ids):
            return np.zeros(len(chunk_ids), dtype=bool)
        pos = np.clip(np.searchsorted(self._sorted_ids, chunk_ids), 0, len(self._sorted_ids) - 1)
        mask: np.ndarray = self._sorted_ids[pos] == chunk_ids
        return mask


    def doc_rows(self, doc_id: int) -> tuple[int, int]:
        """``[first, end)`` rows of a document (its chunks in position order)."""
        first = self.doc_first_row.get(doc_id, 0)
        return first, first + self.doc_row_count.get(doc_id, 0)

    def span(self, row: int) -> Span:
        """The character span of the chunk at ``row``."""
        t = self.table
        return Span(int(t.doc_ids[row]), int(t.starts[row]), int(t.ends[row]))

    def heading_path(self, row: int) -> tuple[str, ...]:
        """Heading path of the chunk at ``row``."""
        return tuple(json.loads(self.table.heading_paths[row]))

    def chunk_id(self, row: int) -> int:
        """Chunk id at ``row``."""
        return int(self.table.ids[row])

    def range_span(self, first_row: int, last_row: int) -> Span:
        """Span from the start of ``first_row`` to the furthest end of rows ``first..last``."""
        t = self.table
        return Span(int(t.doc_ids[first_row]), int(t.starts[first_row]),
                    int(t.ends[first_row : last_row + 1].max()))

    def chunks_in(self, span: Span) -> list[int]:
        """Rows of the chunks of this set that overlap ``span`` (chunk boundaries for display)."""
        first, end = self.doc_rows(span.doc_id)
        t = self.table
        rows = np.arange(first, end)
        mask = (t.starts[first:end] < span.end) & (t.ends[first:end] > span.start)
        overlapping: list[int] = rows[mask].tolist()
        return overlapping
