"""A hand-made chunking: a named base chunker plus an ordered list of edits to its cuts, and how the edits apply.

A *cut* is where a chunk starts (every chunk but the first); where the base left white space between two chunks,
any offset in that gap names the cut too. The edits, each for one document:

- ``split DOC:AT``: cut the chunk that holds ``AT`` in two there;
- ``merge DOC:AT``: remove the cut at ``AT`` (the chunk starting there joins the one before it);
- ``move DOC:FROM:TO``: the cut at ``FROM`` moves to ``TO``: the chunk before it now ends there and the chunk
  after it starts there (where the base overlapped them, only the later chunk's start moves); ``TO`` stays
  strictly inside the two chunks around the cut;
- ``spans DOC``: the document's chunks are exactly the given spans (an imported export).

Each edit names its document by id and path and records the sha256 of the document's text when it was made. An
edit applies only to a text with that hash: when a document changed, its edits are skipped, never shifted; an
edit whose cut is gone (the base cuts differently now) or whose offset lies outside the text is skipped too, and
``apply_edits`` says why for each. Applying keeps the base's coverage: tiled chunks stay tiled (no gap, no
overlap, every character covered); a gap of white space the base left between two chunks is closed by a move
or merge there, never widened; overlap exists only where the base had it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

Span = tuple[int, int]
EDIT_OPS = ("split", "merge", "move", "spans")
HAND_PREFIX = "edited:"


def hand_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a hand-made chunking (None: it can): 1 to 80 characters, none of ``:`` ``/``
    braces or new lines, so ``edited:NAME`` never reads as a path or a custom chunker."""
    if not name or any(c in name for c in ":/{}\n") or len(name) > 80:
        return f"{name!r}: a name is 1 to 80 characters without ':', '/', braces or new lines"
    return None


def text_sha(text: str) -> str:
    """The sha256 (hex) of a document's text: what an edit records to know its document is unchanged."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CutEdit:
    """One edit of a hand-made chunking (see the module's docstring for ``op``'s meanings)."""

    op: str
    doc_id: int
    doc_path: str
    doc_sha: str
    at: int = 0  # split/merge: the offset; move: FROM
    to: int = 0  # move: TO
    spans: tuple[Span, ...] = ()  # spans: the document's chunks

    def describe(self) -> str:
        """The edit as the command line writes it, e.g. ``move 3:120:134``."""
        if self.op == "move":
            return f"move {self.doc_id}:{self.at}:{self.to}"
        if self.op == "spans":
            return f"spans {self.doc_id} ({len(self.spans)} chunks)"
        return f"{self.op} {self.doc_id}:{self.at}"

    def to_dict(self) -> dict[str, object]:
        """The stored form (JSON-ready)."""
        data: dict[str, object] = {"op": self.op, "doc_id": self.doc_id, "doc_path": self.doc_path,
                                   "doc_sha": self.doc_sha}
        if self.op == "spans":
            data["spans"] = [list(s) for s in self.spans]
        else:
            data["at"] = self.at
            if self.op == "move":
                data["to"] = self.to
        return data

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> CutEdit:
        """The edit ``to_dict`` wrote (``ValueError`` when it does not read)."""
        op = str(data["op"])
        if op not in EDIT_OPS:
            raise ValueError(f"unknown edit {op!r}")
        raw = data.get("spans", [])
        spans = tuple((int(a), int(b)) for a, b in raw) if isinstance(raw, list) else ()
        return cls(op, int(str(data["doc_id"])), str(data["doc_path"]), str(data["doc_sha"]),
                   int(str(data.get("at", 0))), int(str(data.get("to", 0))), spans)


@dataclass(frozen=True)
class HandChunking:
    """A named hand-made chunking: the base strategy's name (for people), its chunker (canonical JSON: name and
    parameters; what is cut) and the edits, in order."""

    name: str
    base_strategy: str
    base_chunker: str
    edits: tuple[CutEdit, ...] = ()

    def edits_json(self) -> str:
        """The edits as canonical JSON (the stored form)."""
        return json.dumps([e.to_dict() for e in self.edits], sort_keys=True, separators=(",", ":"))

    def identity(self, base_spec_json: str) -> str:
        """16 hex digits naming what this chunking cuts: the base chunker's full spec and the edits (the
        version of its chunker spec, so a chunk set's id changes whenever its edits do)."""
        payload = f"{base_spec_json}|{self.edits_json()}"
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def edits_from_json(text: str) -> tuple[CutEdit, ...]:
    """The edits ``HandChunking.edits_json`` wrote (``ValueError`` when they do not read)."""
    raw = json.loads(text)
    if not isinstance(raw, list):
        raise ValueError("edits are not a JSON list")
    return tuple(CutEdit.from_dict(item) for item in raw)


@dataclass(frozen=True)
class Skipped:
    """An edit that did not apply, and why."""

    index: int  # its position in the chunking's list of edits
    edit: CutEdit
    reason: str


@dataclass
class Applied:
    """The spans after the edits that applied, and the edits that did not."""

    spans: list[Span]
    skipped: list[Skipped] = field(default_factory=list)


def _blank(text: str, span: Span) -> bool:
    return not text[span[0]:span[1]].strip()


def _chunk_starting(spans: Sequence[Span], at: int) -> int | None:
    """The index (≥ 1) of the chunk whose cut is at ``at``, or None: the chunk starts at ``at``, or the white
    space the base left between it and the chunk before holds ``at`` (either end of that gap names the cut)."""
    return next((i for i in range(1, len(spans)) if spans[i][0] == at or spans[i - 1][1] <= at <= spans[i][0]),
                None)


def apply_one(spans: list[Span], text: str, edit: CutEdit) -> str | None:
    """Apply ``edit`` to ``spans`` (in place); returns None when it applied, else why it could not (``spans``
    unchanged)."""
    n = len(text)
    if edit.op == "spans":
        return _replace_spans(spans, text, edit.spans)
    if not 0 < edit.at < n:
        return f"offset {edit.at} lies outside the document's text (1..{n - 1})"
    if edit.op == "split":
        if _chunk_starting(spans, edit.at) is not None:
            return f"there is a cut at {edit.at} already"
        i = next((k for k, (a, b) in enumerate(spans) if a < edit.at < b), None)
        if i is None:
            return f"offset {edit.at} lies in no chunk"
        a, b = spans[i]
        if _blank(text, (a, edit.at)) or _blank(text, (edit.at, b)):
            return f"a split at {edit.at} would leave a chunk of only white space"
        spans[i:i + 1] = [(a, edit.at), (edit.at, b)]
        return None
    i = _chunk_starting(spans, edit.at)
    if i is None:
        return f"there is no cut at {edit.at}"
    (pa, pb), cb = spans[i - 1], spans[i][1]
    if edit.op == "merge":
        spans[i - 1:i + 1] = [(pa, max(pb, cb))]
        return None
    to = edit.to
    if not pa < to < cb:
        return f"{to} lies outside the two chunks around the cut at {edit.at} ({pa}..{cb})"
    if _chunk_starting(spans, to) not in (None, i):
        return f"there is a cut at {to} already"
    if i + 1 < len(spans) and spans[i + 1][0] < to:
        return f"{to} lies past the start of the next chunk ({spans[i + 1][0]})"
    overlapped = pb > spans[i][0]  # the base overlaps here: only the later chunk's start moves
    if overlapped and to > pb:
        return f"moving the cut at {edit.at} to {to} would open a gap after {pb}"
    new_prev = (pa, pb) if overlapped else (pa, to)
    if _blank(text, new_prev) or _blank(text, (to, cb)):
        return f"moving the cut at {edit.at} to {to} would leave a chunk of only white space"
    spans[i - 1:i + 1] = [new_prev, (to, cb)]
    return None


def _replace_spans(spans: list[Span], text: str, given: Sequence[Span]) -> str | None:
    if not given:
        return "no spans given"
    last = -1
    for a, b in given:
        if not 0 <= a < b <= len(text):
            return f"span {a}..{b} lies outside the document's text (length {len(text)}) or is empty"
        if a < last:
            return f"span {a}..{b} starts before the span before it"
        if _blank(text, (a, b)):
            return f"span {a}..{b} is only white space"
        last = a
    spans[:] = list(given)
    return None


def apply_edits(base: Sequence[Span], text: str, edits: Sequence[CutEdit], sha: str | None = None) -> Applied:
    """``base`` (one document's spans) with those of ``edits`` made for this text (same sha256) applied in
    order; the others are not for this text and are ignored. An edit for this text that does not apply is
    skipped with its reason (``Applied.skipped``, indexed in ``edits``)."""
    sha = sha or text_sha(text)
    out = Applied(list(base))
    for index, edit in enumerate(edits):
        if edit.doc_sha != sha:
            continue
        why = apply_one(out.spans, text, edit)
        if why is not None:
            out.skipped.append(Skipped(index, edit, why))
    return out


def cuts_of(spans: Sequence[Span]) -> list[int]:
    """The cuts of ``spans``: where each chunk but the first starts."""
    return [a for a, _ in spans[1:]]
