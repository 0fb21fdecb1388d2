"""The ``edited:NAME`` chunkers: a hand-made chunking (``hand_edits.HandChunking``) as a chunker like any other.

Its edits are data kept in the data folder (the store's ``hand_chunkings`` table), not code, so naming one needs
no consent. Whoever names one passes the data folder's chunkings along (a ``HandSource``: name → chunking, the
workspace's ``ws.cuts.get``) to ``registry.get_kind`` / ``chunker_spec`` / ``chunk_set_id``, so each workspace
reads its own folder's edits (no chunking is read from anywhere else; without a source the name is unknown).
The chunker cuts a
document with the base chunker, then applies the edits made for that text (``apply_edits``); an edit that no
longer applies is skipped (``workbench cuts show`` says which and why). Its spec's version is the chunking's
identity (base spec and edits), so a chunk set's id changes whenever the edits do, and the chunks whose text
is unchanged reuse their cached vectors. A base is never a ``custom:`` chunker (data would then name code), a
``late`` one (its vectors are pooled per span) or another hand-made chunking.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX, CutEdit, HandChunking, apply_edits, text_sha
from workbench.core.ingest.chunkers.protocol import (
    Chunker,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    verify_spans,
)
from workbench.core.ingest.headings import Heading

HandSource = Callable[[str], HandChunking | None]
KindLookup = Callable[[str], ChunkerKind]
REFUSED_BASES = ("custom:", HAND_PREFIX, "late")


def find_hand(name: str, hands: HandSource | None) -> HandChunking:
    """The hand-made chunking called ``name`` in ``hands`` (``ChunkerError`` when there is none, or no source
    was given)."""
    hand = None if hands is None else hands(name)
    if hand is None:
        raise ChunkerError(f"no hand-made chunking called {name!r} in this data folder (see 'workbench cuts list')")
    return hand


def base_refusal(base_name: str) -> str | None:
    """Why ``base_name`` cannot be a hand-made chunking's base, or None."""
    if base_name.startswith("custom:"):
        return (f"its base chunker {base_name!r} is custom code, which a stored chunking may not name "
                "(data never names code); choose a base with a built-in or library chunker")
    if base_name.startswith(HAND_PREFIX):
        return f"its base chunker {base_name!r} is itself hand-made; start from that chunking's base instead"
    if base_name == "late":
        return "its base chunker is 'late' (vectors pooled per span), which hand edits cannot keep"
    return None


def base_kind(hand: HandChunking, lookup: KindLookup) -> tuple[ChunkerKind, dict[str, object]]:
    """The base chunker's kind and parameters (``ChunkerError`` for a refused base)."""
    data = json.loads(hand.base_chunker)
    params = dict(data)
    name = str(params.pop("name"))
    why = base_refusal(name)
    if why:
        raise ChunkerError(f"hand-made chunking {hand.name!r}: {why}")
    return lookup(name), params


def hand_identity(hand: HandChunking, lookup: KindLookup) -> str:
    """``hand``'s identity (its base chunker's full spec and its edits)."""
    kind, params = base_kind(hand, lookup)
    return hand.identity(kind.spec(**params).to_json())


class EditedChunker:
    """The base chunker's spans with the edits for each text applied."""

    def __init__(self, spec: ChunkerSpec, base: Chunker, edits: Sequence[CutEdit]) -> None:
        self.spec = spec
        self.base = base
        self.edits = tuple(edits)

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[tuple[int, int]]:
        """The base's spans of ``text``, then the edits made for this text, in order (those that no longer
        apply are skipped)."""
        spans = verify_spans(text, self.base.chunk(text, headings), self.base.spec.name, "this document")
        sha = text_sha(text)
        if not any(e.doc_sha == sha for e in self.edits):
            return spans
        return apply_edits(spans, text, self.edits, sha).spans


def edited_kind(name: str, lookup: KindLookup, hands: HandSource | None) -> ChunkerKind:
    """The kind ``edited:NAME`` of the chunkings ``hands`` holds: no parameters; version: the chunking's identity
    (read when asked)."""

    def version() -> str:
        return hand_identity(find_hand(name, hands), lookup)

    def build(spec: ChunkerSpec, resources: ChunkerResources) -> Chunker:
        hand = find_hand(name, hands)
        kind, params = base_kind(hand, lookup)
        base = kind.make(resources, **params)
        return EditedChunker(spec, base, hand.edits)

    return ChunkerKind(name=HAND_PREFIX + name, summary=f"hand-made chunking {name!r} (a base and edited cuts)",
                       params=(), build=build, version=version)
