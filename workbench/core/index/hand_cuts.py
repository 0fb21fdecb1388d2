"""Working with a hand-made chunking against the stored documents: a document's base cuts and edited cuts,
checking new edits before they are kept, and which stored edits still apply (``workbench cuts``, the window's
chunk map editing). The chunking itself cuts through ``edited:NAME`` (``chunkers.edited``) like any chunker.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from workbench.core.index.chunker_build import SetCutter
from workbench.core.index.embedding import Embedder
from workbench.core.ingest.chunkers.choice import apply_chunker, config_chunker
from workbench.core.ingest.chunkers.edited import base_refusal
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import (
    Applied,
    CutEdit,
    HandChunking,
    Span,
    apply_edits,
    text_sha,
)
from workbench.core.ingest.documents import Document
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkConfig
from workbench.core.store import DocumentGone, Store


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


def checked_base(base_chunker: str) -> None:
    """Refuse (``EditRefused``) a base chunker JSON that does not read."""
    try:
        apply_chunker(ChunkConfig(), base_chunker)
    except ChunkerError as exc:
        raise EditRefused(str(exc)) from None
