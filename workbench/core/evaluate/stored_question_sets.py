"""Question sets stored in the data folder, as evaluation uses them: names, references checked against the stored
text, re-located when a document is indexed again (or flagged *needs review*, never shifted silently), quotes
located exactly, and a stored set turned into the ``QuestionSet`` the lab, ``eval`` and ``advise`` run on.

Plain functions over the store's rows (``core.store.question_sets``) and documents; the workspace part
``core.workspace.question_sets.QuestionBank`` calls them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.evaluate.question_rule import question_refusal
from workbench.core.evaluate.question_set import DatasetError, Question, QuestionSet, Reference
from workbench.core.ingest.documents import Document
from workbench.core.spans import Span
from workbench.core.store.question_sets import NEEDS_REVIEW, OK, StoredQuestion, StoredReference

_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$")
QUOTE_CANDIDATES_SHOWN = 5


def check_set_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` can name a stored set: 1-80 letters, digits, spaces, '_', '.' or '-',
    starting with a letter or digit."""
    if not _SET_NAME.match(name) or name != name.strip():
        shown = repr(name) if len(name) <= 80 else f"{name[:60]!r}… ({len(name):,} characters)"
        raise ValueError(f"{shown} cannot name a question set: use 1-80 letters, digits, spaces, '_', '.' or '-', "
                         "starting with a letter or digit")


# ----- references against the stored text -------------------------------------------------------------------
@dataclass(frozen=True)
class Relocation:
    """What became of a reference after its document changed: where its text is now (``status`` ok), or
    ``needs review`` with the reason."""

    start: int
    end: int
    status: str
    note: str


def relocate(ref: StoredReference, doc: Document | None) -> Relocation | None:
    """None when ``ref`` still matches ``doc`` as stored (same sha256, or already flagged); else where its text is
    now: at the same offsets, or at its one occurrence in the new text. Text that is gone, or found more than
    once, makes it *needs review* (never moved to a guess)."""
    if ref.status != OK:
        return None
    if doc is None:
        return Relocation(ref.start, ref.end, NEEDS_REVIEW, f"document {ref.doc_id} is no longer stored")
    if doc.sha256 == ref.doc_sha256:
        return None
    text = doc.text
    if text[ref.start:ref.end] == ref.content:
        return Relocation(ref.start, ref.end, OK, "")
    found = occurrences(text, ref.content, 2)
    if len(found) == 1:
        return Relocation(found[0], found[0] + len(ref.content), OK, "")
    why = ("its text is no longer in the document" if not found
           else "its text now appears more than once in the document")
    return Relocation(ref.start, ref.end, NEEDS_REVIEW, f"the document changed: {why}")


def occurrences(text: str, needle: str, limit: int = 0) -> list[int]:
    """Every start offset of ``needle`` in ``text`` (overlapping ones too), at most ``limit`` (0: all)."""
    out: list[int] = []
    if not needle:
        return out
    at = text.find(needle)
    while at >= 0 and (not limit or len(out) < limit):
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def span_problem(span: Span, doc: Document | None) -> str:
    """'' when ``span`` is a non-empty span inside ``doc``; else what is wrong, in a few words."""
    if doc is None:
        return f"document {span.doc_id} is not stored"
    if span.start < 0 or span.end > len(doc.text) or span.start > span.end:
        return f"{span.start}:{span.end} lies outside document {span.doc_id} ({len(doc.text):,} characters)"
    if span.start == span.end or not doc.text[span.start:span.end].strip():
        return f"{span.doc_id}:{span.start}:{span.end} is empty"
    return ""


def locate_quote(quote: str, docs: Sequence[Document]) -> list[Span]:
    """Every exact occurrence of ``quote`` in these documents (at most ``QUOTE_CANDIDATES_SHOWN + 1``)."""
    out: list[Span] = []
    for doc in docs:
        assert doc.id is not None
        for at in occurrences(doc.text, quote, QUOTE_CANDIDATES_SHOWN + 1 - len(out)):
            out.append(Span(doc.id, at, at + len(quote)))
        if len(out) > QUOTE_CANDIDATES_SHOWN:
            break
    return out


def quote_refusal(quote: str, found: Sequence[Span], docs: Sequence[Document]) -> str:
    """The one line refusing a quote found zero or several times, with the candidates listed."""
    short = quote if len(quote) <= 50 else quote[:49] + "…"
    if not found:
        return f"{short!r} is not in {'document ' + str(docs[0].id) if len(docs) == 1 else 'any stored document'}" \
               " (it is located exactly: copy it from the text)"
    shown = ", ".join(f"{s.doc_id}:{s.start}:{s.end}" for s in found[:QUOTE_CANDIDATES_SHOWN])
    more = " and more" if len(found) > QUOTE_CANDIDATES_SHOWN else ""
    return f"{short!r} appears {len(found)}{'+' if more else ''} times ({shown}{more}); " \
           "give --doc, a longer quote or --ref DOC:START:END"


# ----- a stored set as a QuestionSet --------------------------------------------------------------------------
@dataclass
class StoredSetView:
    """A stored set made ready for evaluation: the ``QuestionSet`` and what was left out of it, and why."""

    qset: QuestionSet
    left_out: list[str] = field(default_factory=list)  # one line per reason, with counts
    unreviewed: int = 0  # drafts not reviewed (in the set unless reviewed_only)
    provenance: dict[int, dict[str, object]] = field(default_factory=dict)  # question index → provenance


def corpus_ids(docs: Mapping[int, Document]) -> dict[int, str]:
    """A readable corpus id per document (its file name's stem, made unique with the document id)."""
    out: dict[int, str] = {}
    taken: set[str] = set()
    for doc_id in sorted(docs):
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(docs[doc_id].path).stem).strip("._") or "doc"
        cid = stem if stem not in taken else f"{stem}-{doc_id}"
        taken.add(cid)
        out[doc_id] = cid
    return out


def as_question_set(name: str, questions: Sequence[StoredQuestion], docs: Mapping[int, Document],
                    reviewed_only: bool = False) -> StoredSetView:
    """The ``QuestionSet`` of a stored set: its documents (``docs``: every document of the set, by id) as the
    corpora, each question with its references. A question whose reference needs review is left out of scoring;
    with ``reviewed_only`` unreviewed drafts are left out too. ``Question.index`` is the question's position in
    the stored set (its number minus one). A question ``eval`` cannot ask (``question_rule``: empty, too long;
    kept by an older version) is refused, named with the command that fixes it."""
    for number, q in enumerate(questions, start=1):
        problem = question_refusal(q.text)
        if problem:
            raise DatasetError(f"{name!r} question {number} cannot be asked: {problem}; fix it with workbench "
                               f"questions edit {name} {number} --text \"…\" (or remove it)")
    cids = corpus_ids(docs)
    kept: list[Question] = []
    provenance: dict[int, dict[str, object]] = {}
    needs_review = unreviewed = removed = 0
    for number, q in enumerate(questions):
        draft = q.provenance.origin == "drafted" and not q.provenance.reviewed
        unreviewed += draft
        if any(r.doc_id not in docs for r in q.references):
            removed += 1
            continue
        if q.needs_review:
            needs_review += 1
            continue
        if draft and reviewed_only:
            continue
        refs = tuple(Reference(cids[r.doc_id], r.start, r.end, r.content) for r in q.references)
        kept.append(Question(number, q.text, refs[0].corpus_id if refs else "", refs, q.reference_answer))
        provenance[number] = q.provenance.as_dict()
    left_out = []
    if removed:
        left_out.append(f"{removed} question(s) left out: a reference lies in a document no longer in the library")
    if needs_review:
        left_out.append(f"{needs_review} question(s) left out: a reference needs review (its document changed); "
                        "fix it with workbench questions edit")
    if reviewed_only and unreviewed:
        left_out.append(f"{unreviewed} unreviewed draft(s) left out (--reviewed-only)")
    digest = hashlib.sha256(json.dumps(
        [[q.index, q.question, [[r.corpus_id, r.start, r.end] for r in q.references]] for q in kept]).encode())
    corpora = {cids[d]: Path(docs[d].path) for d in docs}
    hashes = {cids[d]: docs[d].sha256 for d in docs}
    qset = QuestionSet(Path(name), kept, corpora, hashes, digest.hexdigest(), max_file_mb=0.0,
                       skipped=list(left_out), stored_docs={cids[d]: d for d in docs},
                       provenance=provenance)
    return StoredSetView(qset, left_out, unreviewed, provenance)


def check_names_free(name: str, taken: Sequence[str]) -> None:
    """Refuse ``name`` when a stored set has it already."""
    check_set_name(name)
    if name in taken:
        raise DatasetError(f"a question set called {name!r} exists already")


def check_lines(questions: Sequence[StoredQuestion], docs: Mapping[int, Document]) -> list[str]:
    """Every problem of a set, one line each: a reference outside its document or empty, one that needs review,
    a question with no reference, a question ``eval`` refuses to ask (``question_rule``), questions asked twice,
    references given twice."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for number, q in enumerate(questions, start=1):
        if not q.references:
            out.append(f"question {number}: has no reference (the corpus does not answer it)")
        spans = [(r.doc_id, r.start, r.end) for r in q.references]
        if len(set(spans)) < len(spans):
            out.append(f"question {number}: the same reference is given twice")
        for r in q.references:
            problem = span_problem(Span(r.doc_id, r.start, r.end), docs.get(r.doc_id))
            if problem:
                out.append(f"question {number}: {problem}")
            elif r.status != OK:
                out.append(f"question {number}: reference {r.doc_id}:{r.start}:{r.end} needs review ({r.status_note})")
        refused = question_refusal(q.text)
        if refused:
            out.append(f"question {number}: {refused} (eval refuses it)")
        key = " ".join(q.text.split()).casefold()
        if key in seen:
            out.append(f"question {number} asks the same as question {seen[key]}")
        seen.setdefault(key, number)
    return out
