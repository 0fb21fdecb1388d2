"""The workspace's hand-made chunkings (``ws.cuts``): a base chunker's cuts edited by hand, kept by name in the data
folder and cut through the chunker ``edited:NAME`` like any other chunker.

A part the workspace owns: it receives this thread's store, the default embedder and token counter (a base
chunker may need them to cut), and how to hold the folder's writer lock. The command line (``workbench cuts``)
and the window's chunk map go through it and nowhere else. Every change is one read-modify-write under the
writer lock and in one store transaction (``HandChunkingTables.update``): parallel edits each keep theirs. The
chunkings are read by the chunker ``edited:NAME`` from the store of the workspace that cuts (``get`` is the
source), never from a module-wide setting: two workspaces in one process each cut with their own.

``HandCuts`` holds the work against the stored documents: a document's base cuts and edited cuts, new edits
checked before they are kept, and which stored edits still apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import Embedder
from workbench.core.ingest.chunkers.choice import apply_chunker, config_chunker
from workbench.core.ingest.chunkers.edited import base_refusal
from workbench.core.ingest.chunkers.hand_edits import (
    HAND_PREFIX,
    Applied,
    CutEdit,
    HandChunking,
    Span,
    apply_edits,
    hand_name_problem,
    text_sha,
)
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import ProgressSink
from workbench.core.store import DocumentGone, Store

__all__ = ["HAND_PREFIX", "CutChange", "Cuts", "DocCuts", "EditRefused", "EditStatus", "HandCuts",
           "base_chunker_json", "hand_name_problem"]

Writing = Callable[[ProgressSink | None], AbstractContextManager[None]]
"""Holds the data folder's writer lock (``Workspace.writing``)."""


class EditRefused(ValueError):
    """A new edit that would not apply; nothing was kept."""


def base_chunker_json(config: ChunkConfig) -> str:
    """The chunker that cuts ``config`` as canonical JSON (name and parameters): a hand-made chunking's base
    (``EditRefused`` for a base it cannot have)."""
    name, params = config_chunker(config)
    why = base_refusal(name)
    if why:
        raise EditRefused(f"a hand-made chunking cannot start here: {why}")
    return json.dumps({"name": name, **params}, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class DocCuts:
    """One document under a hand-made chunking: its base spans and the spans after the edits."""

    doc: Document
    sha: str
    base: list[Span]
    applied: Applied


@dataclass(frozen=True)
class EditStatus:
    """Whether one stored edit applies now, and if not why (``state``: applies / skipped / changed / gone)."""

    index: int
    edit: CutEdit
    state: str
    reason: str = ""


class HandCuts:
    """A store's documents cut by the base of hand-made chunkings (with the workspace's embedder and counter)."""

    def __init__(self, store: Store, embedder: Embedder, counter: TokenCounter) -> None:
        self.store = store
        self.embedder = embedder
        self.counter = counter
        self._cutters: dict[str, SetCutter] = {}
        self._shas: dict[str, int] | None = None

    def base_spans(self, base_chunker: str, doc: Document) -> list[Span]:
        """``doc`` cut by the chunker ``base_chunker`` (canonical JSON)."""
        cutter = self._cutters.get(base_chunker)
        if cutter is None:
            cutter = SetCutter(apply_chunker(ChunkConfig(), base_chunker), self.store, self.embedder, self.counter)
            self._cutters[base_chunker] = cutter
        return [(p.start, p.end) for p in cutter.pieces(doc)]

    def document_cuts(self, hand: HandChunking, doc_id: int) -> DocCuts:
        """Document ``doc_id`` under ``hand`` (``DocumentGone`` when it is not stored)."""
        doc = self.store.documents.document(doc_id)
        base = self.base_spans(hand.base_chunker, doc)
        sha = text_sha(doc.text)
        return DocCuts(doc, sha, base, apply_edits(base, doc.text, hand.edits, sha))

    def with_edits(self, hand: HandChunking, new: Sequence[CutEdit]) -> HandChunking:
        """``hand`` with ``new`` appended, each checked against the document as the edits before it left it;
        ``EditRefused`` (one line naming the edit) when any would not apply: then nothing is to be kept."""
        out = replace(hand, edits=hand.edits + tuple(new))
        first_new = len(hand.edits)
        for doc_id in sorted({e.doc_id for e in new}):
            cuts = self.document_cuts(out, doc_id)
            bad = [s for s in cuts.applied.skipped if s.index >= first_new]
            if bad:
                raise EditRefused(f"{bad[0].edit.describe()} ({cuts.doc.path}): {bad[0].reason}; nothing was changed")
        return out

    def _text_shas(self) -> dict[str, int]:
        """The sha256 of every stored document's text → its id (read once per ``HandCuts``)."""
        if self._shas is None:
            self._shas = {}
            for row in self.store.documents.rows():
                doc_id = int(row["id"])
                self._shas.setdefault(text_sha(self.store.documents.document(doc_id).text), doc_id)
        return self._shas

    def status(self, hand: HandChunking) -> list[EditStatus]:
        """Every stored edit of ``hand``: applies, skipped (why), changed (the document's text changed since)
        or gone (the document is no longer stored). Edits follow the text, as the chunker applies them: an edit
        whose document was removed and indexed again under another id is judged on that document."""
        out: list[EditStatus] = []
        by_doc: dict[int, DocCuts | None] = {}

        def cuts_of(doc_id: int) -> DocCuts | None:
            if doc_id not in by_doc:
                try:
                    by_doc[doc_id] = self.document_cuts(hand, doc_id)
                except DocumentGone:
                    by_doc[doc_id] = None
            return by_doc[doc_id]

        for index, edit in enumerate(hand.edits):
            cuts = cuts_of(edit.doc_id)
            if cuts is None or cuts.sha != edit.doc_sha:
                moved = self._text_shas().get(edit.doc_sha)
                if moved is not None:
                    cuts = cuts_of(moved)
            if cuts is None:
                out.append(EditStatus(index, edit, "gone", f"document {edit.doc_id} ({edit.doc_path}) is no longer "
                                                            "stored"))
            elif cuts.sha != edit.doc_sha:
                out.append(EditStatus(index, edit, "changed", f"the text of {cuts.doc.path} changed since this edit "
                                                              "(its hash differs); the edit is not applied"))
            else:
                skipped = next((s for s in cuts.applied.skipped if s.index == index), None)
                out.append(EditStatus(index, edit, "skipped", skipped.reason) if skipped
                           else EditStatus(index, edit, "applies"))
        return out


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

    def take_back(self, name: str, edits: Sequence[CutEdit]) -> HandChunking:
        """Remove ``edits`` (the last time each appears) from the chunking ``name`` as stored at this moment: an
        undo that keeps every edit made meanwhile elsewhere; in one transaction under the writer lock.
        ``EditRefused`` when the chunking is no longer stored."""

        def change(stored: HandChunking | None) -> HandChunking:
            if stored is None:
                raise EditRefused(f"edited:{name} is no longer stored; nothing to undo")
            kept = list(stored.edits)
            for edit in reversed(edits):
                where = [i for i, e in enumerate(kept) if e == edit]
                if where:
                    del kept[where[-1]]
            return replace(stored, edits=tuple(kept))

        with self._writing(None):
            store = self._store()
            store.cuts.update(name, change)
            after = store.cuts.get(name)
        assert after is not None
        return after

    def delete(self, name: str) -> bool:
        """Forget the chunking ``name``; False when there was none."""
        with self._writing(None):
            return self._store().cuts.delete(name)
