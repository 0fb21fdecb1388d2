"""The workspace's hand-made chunkings (``ws.cuts``): a base chunker's cuts edited by hand, kept by name in the data
folder and cut through the chunker ``edited:NAME`` like any other chunker.

A part the workspace owns: it receives this thread's store, the default embedder and token counter (a base
chunker may need them to cut), and how to hold the folder's writer lock. The command line (``workbench cuts``)
and the window's chunk map go through it and nowhere else. Every change is one read-modify-write under the
writer lock and in one store transaction (``HandChunkingTables.update``): parallel edits each keep theirs. The
chunkings are read by the chunker ``edited:NAME`` from the store of the workspace that cuts (``get`` is the
source), never from a module-wide setting: two workspaces in one process each cut with their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from workbench.core.index.embedding import Embedder
from workbench.core.index.hand_cuts import DocCuts, EditRefused, EditStatus, HandCuts, base_chunker_json
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX, CutEdit, HandChunking, hand_name_problem
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.jobs import ProgressSink
from workbench.core.store import Store

__all__ = ["HAND_PREFIX", "CutChange", "Cuts", "DocCuts", "EditRefused", "EditStatus", "base_chunker_json",
           "hand_name_problem"]

Writing = Callable[[ProgressSink | None], AbstractContextManager[None]]
"""Holds the data folder's writer lock (``Workspace.writing``)."""


@dataclass(frozen=True)
class CutChange:
    """A kept change: the chunking as it was stored before (None: it is new) and as it is now."""

    before: HandChunking | None
    after: HandChunking


class Cuts:
    """The hand-made chunkings of one data folder."""

    def __init__(self, store: Callable[[], Store], embedder: Callable[[], Embedder],
                 counter: Callable[[], TokenCounter], writing: Writing) -> None:
        self._store = store
        self._embedder = embedder
        self._counter = counter
        self._writing = writing

    def _cuts(self, store: Store | None = None) -> HandCuts:
        return HandCuts(store or self._store(), self._embedder(), self._counter())

    # ----- reading ------------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every chunking's name, sorted."""
        return self._store().cuts.names()

    def get(self, name: str) -> HandChunking | None:
        """The chunking called ``name``, or None (also when its stored edits do not read). The source the
        chunker ``edited:NAME`` reads from when this workspace cuts."""
        return self._store().cuts.get(name)

    def all(self) -> list[HandChunking]:
        """Every chunking that reads, by name."""
        return [h for h in (self.get(n) for n in self.names()) if h is not None]

    def document_cuts(self, hand: HandChunking, doc_id: int) -> DocCuts:
        """Document ``doc_id`` under ``hand``: its base spans and the spans after the edits (``DocumentGone``
        when it is not stored)."""
        return self._cuts().document_cuts(hand, doc_id)

    def status(self, hand: HandChunking) -> list[EditStatus]:
        """Whether each stored edit of ``hand`` applies now, and why not (``HandCuts.status``)."""
        return self._cuts().status(hand)

    # ----- changing -----------------------------------------------------------------------------------
    def edit(self, name: str, edits: Sequence[CutEdit], start: HandChunking | None = None) -> CutChange:
        """Append ``edits`` to the chunking ``name`` as stored at this moment (``start``, when none is stored yet:
        the new chunking's base), each checked against its document first; read, checked and kept in one
        transaction under the writer lock, so an edit another process kept meanwhile stays. ``EditRefused``
        (nothing kept) when an edit would not apply, when there is no chunking and no ``start``, or when
        ``start`` cuts otherwise than the stored chunking."""
        with self._writing(None):
            store = self._store()
            cuts = self._cuts(store)

            def change(stored: HandChunking | None) -> HandChunking:
                if stored is None and start is None:
                    raise EditRefused(f"no hand-made chunking called {name!r}; nothing was changed")
                if stored is not None and start is not None and stored.base_chunker != start.base_chunker:
                    raise EditRefused(f"{name!r} starts from {stored.base_strategy!r} ({stored.base_chunker}), "
                                      "another chunker; nothing was changed")
                hand = stored or start
                assert hand is not None
                return cuts.with_edits(hand, edits)

            before = store.cuts.update(name, change)
            after = store.cuts.get(name)
        assert after is not None
        return CutChange(before, after)

    def restore(self, hand: HandChunking) -> None:
        """Keep ``hand`` as it is given (an undo: the chunking as it was before an edit)."""
        with self._writing(None):
            self._store().cuts.save(hand)

    def delete(self, name: str) -> bool:
        """Forget the chunking ``name``; False when there was none."""
        with self._writing(None):
            return self._store().cuts.delete(name)
