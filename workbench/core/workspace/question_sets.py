"""The workspace's question sets (``ws.questions``): sets of questions with reference spans into the stored
documents, kept in the data folder; created, renamed, duplicated, deleted, edited and reviewed here, and read as
the ``QuestionSet`` the lab, ``eval`` and ``advise`` run on.

A part the workspace owns, not a mixin: it receives what it needs (the store of the calling thread and the
documents) in its constructor. Every change checks its values against the stored text first and writes nothing
when one is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from workbench.core.evaluate.question_rule import question_refusal, question_text
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.evaluate.question_set_power import power_line
from workbench.core.evaluate.stored_question_sets import (
    StoredSetView,
    as_question_set,
    check_names_free,
    locate_quote,
    quote_refusal,
    relocate,
    span_problem,
)
from workbench.core.ingest.documents import Document
from workbench.core.spans import Span
from workbench.core.store import DocumentGone, Store
from workbench.core.store.question_sets import (
    NewQuestion,
    NewReference,
    Provenance,
    SetRead,
    StoredQuestion,
    StoredSetInfo,
)


@dataclass(frozen=True)
class SetDeletion:
    """What deleting a set removes (``questions``) and what stays in the data folder (``documents``)."""

    name: str
    questions: int
    documents: int

    @property
    def words(self) -> str:
        """For a confirmation or a report: ``'orbit' (7 questions; its 2 documents stay in the data folder)``."""
        docs = self.documents
        kept = (f"; its {docs} documents stay in the data folder" if docs > 1 else
                "; its document stays in the data folder" if docs else "")
        return f"{self.name!r} ({self.questions} question{'s' if self.questions != 1 else ''}{kept})"


@dataclass(frozen=True)
class SetSummary:
    """What a set holds, counted: questions, documents, reviewed / unreviewed drafts / imported / by hand, and
    the questions whose reference needs review."""

    name: str
    questions: int
    documents: int
    by_hand: int
    drafted_reviewed: int
    unreviewed: int
    imported: int
    needs_review: int

    def lines(self) -> list[str]:
        """What the set holds and what it can tell, in two lines (``questions show``, the Questions tab)."""
        kinds = [f"{self.by_hand} by hand", f"{self.drafted_reviewed} reviewed drafts",
                 f"{self.unreviewed} unreviewed",
                 f"{self.imported} imported"]
        review = f"; {self.needs_review} need review (left out of scoring)" if self.needs_review else ""
        return [f"{self.name}: {self.questions} questions over {self.documents} documents ({', '.join(kinds)})"
                f"{review}", f"  {power_line(self.questions - self.needs_review)}"]


class QuestionBank:
    """The question sets of one data folder."""

    def __init__(self, store: Callable[[], Store], document: Callable[[int], Document]) -> None:
        self._store = store
        self._document = document

    @property
    def tables(self) -> Store:
        """This thread's store (its ``question_sets`` part holds the SQL)."""
        return self._store()

    # ----- sets -----------------------------------------------------------------------------------------
    def sets(self) -> list[StoredSetInfo]:
        """Every stored set, by name."""
        return self.tables.question_sets.sets()

    def names(self) -> list[str]:
        """The stored sets' names."""
        return [s.name for s in self.sets()]

    def info(self, name: str) -> StoredSetInfo:
        """The set called ``name``; ``KeyError`` naming the sets there are when none is."""
        found = self.tables.question_sets.find(name)
        if found is None:
            names = ", ".join(self.names()) or "none yet"
            raise KeyError(f"no question set {name!r} in this data folder (stored sets: {names})")
        return found

    def create(self, name: str, note: str = "", library: bool = False) -> StoredSetInfo:
        """A new empty set called ``name`` (refused when the name is taken or cannot name a set). With ``library``
        it searches every document now in the data folder besides those its references point into (distractors
        count: a set made on a library searches the library, so its recall is not measured on the answers'
        documents alone); an importer adds its benchmark's documents itself."""
        check_names_free(name, self.names())
        self.tables.question_sets.create(name, note)
        if library:
            self.add_documents(name, [int(r["id"]) for r in self.tables.documents.rows()])
        return self.info(name)

    def rename(self, name: str, new: str) -> None:
        """Call the set ``name`` ``new``."""
        info = self.info(name)
        check_names_free(new, self.names())
        self.tables.question_sets.rename(info.id, new)

    def delete(self, name: str) -> None:
        """Remove the set ``name`` with its questions (its documents stay: see ``deletion_words``)."""
        self.tables.question_sets.delete(self.info(name).id)

    def deletion(self, name: str) -> SetDeletion:
        """What deleting ``name`` removes (its questions) and what stays (its documents), before it is deleted."""
        read = self.read(name)
        return SetDeletion(name, len(read.questions), len(self.documents_of(read)))

    def duplicate(self, name: str, new: str) -> StoredSetInfo:
        """A copy of ``name`` called ``new``."""
        info = self.info(name)
        check_names_free(new, self.names())
        self.tables.question_sets.duplicate(info.id, new)
        return self.info(new)

    def add_documents(self, name: str, doc_ids: Sequence[int]) -> None:
        """Make these stored documents part of the set (searched with it: distractors count)."""
        for d in doc_ids:
            self._doc(d)
        self.tables.question_sets.add_documents(self.info(name).id, doc_ids)

    # ----- reading ------------------------------------------------------------------------------------
    def read(self, name: str) -> SetRead:
        """The set's questions, in order, with every reference checked against its document's stored text: one
        whose document changed is re-located when its text is still there exactly once, else flagged *needs
        review* (recorded in the store when it can be written)."""
        store = self.tables
        read = store.question_sets.read(self.info(name).id)
        docs: dict[int, Document | None] = {}
        questions: list[StoredQuestion] = []
        for q in read.questions:
            refs = []
            for ref in q.references:
                if ref.doc_id not in docs:
                    docs[ref.doc_id] = self._maybe_doc(ref.doc_id)
                doc = docs[ref.doc_id]
                moved = relocate(ref, doc)
                if moved is not None:
                    sha = doc.sha256 if doc is not None else ref.doc_sha256
                    if store.writable:
                        store.question_sets.set_reference(ref.id, moved.start, moved.end, sha, moved.status,
                                                          moved.note)
                    ref = replace(ref, start=moved.start, end=moved.end, doc_sha256=sha, status=moved.status,
                                  status_note=moved.note)
                refs.append(ref)
            questions.append(replace(q, references=tuple(refs)))
        return SetRead(read.info, questions, read.skipped)

    def question(self, name: str, number: int) -> StoredQuestion:
        """Question ``number`` (1-based, in the set's order)."""
        questions = self.read(name).questions
        if not 1 <= number <= len(questions):
            raise KeyError(f"{name!r} has questions 1-{len(questions)}, not {number}" if questions
                           else f"{name!r} has no questions yet")
        return questions[number - 1]

    def documents_of(self, read: SetRead) -> dict[int, Document]:
        """The stored documents of a set: those added to it and those its references point into."""
        ids = set(read.info.doc_ids) | {r.doc_id for q in read.questions for r in q.references}
        return {d: doc for d in sorted(ids) if (doc := self._maybe_doc(d)) is not None}

    def question_set(self, name: str, reviewed_only: bool = False) -> StoredSetView:
        """The set as the lab, ``eval`` and ``advise`` run on it (``stored_question_sets.as_question_set``); a row that
        could not be read is named in its warnings."""
        read = self.read(name)
        view = as_question_set(name, read.questions, self.documents_of(read), reviewed_only)
        view.qset.skipped[:0] = read.skipped
        view.left_out[:0] = read.skipped
        return view

    def summary(self, name: str) -> SetSummary:
        """The set counted (``SetSummary``)."""
        read = self.read(name)
        qs = read.questions
        origin = [q.provenance for q in qs]
        return SetSummary(
            name, len(qs), len(self.documents_of(read)),
            sum(p.origin == "hand" for p in origin),
            sum(p.origin == "drafted" and p.reviewed for p in origin),
            sum(p.origin == "drafted" and not p.reviewed for p in origin),
            sum(p.origin == "imported" for p in origin),
            sum(q.needs_review for q in qs))

    # ----- questions ----------------------------------------------------------------------------------
    def references(self, spans: Sequence[Span]) -> tuple[NewReference, ...]:
        """Spans checked against the stored text (inside the document, not empty) as references to write."""
        out = []
        for span in spans:
            doc = self._maybe_doc(span.doc_id)
            problem = span_problem(span, doc)
            if problem:
                raise DatasetError(problem)
            assert doc is not None
            out.append(NewReference(span.doc_id, span.start, span.end, doc.text[span.start:span.end], doc.sha256))
        return tuple(out)

    def locate(self, quote: str, doc_ids: Sequence[int]) -> Span:
        """The one place ``quote`` appears exactly in these documents; refused (``DatasetError`` listing the
        candidates) when it appears nowhere or more than once."""
        if not quote.strip():
            raise DatasetError("the quote is empty (give the exact text of the reference)")
        docs = [self._doc(d) for d in doc_ids]
        found = locate_quote(quote, docs)
        if len(found) != 1:
            raise DatasetError(quote_refusal(quote, found, docs))
        return found[0]

    def add(self, name: str, text: str, spans: Sequence[Span], notes: str = "", tags: Sequence[str] = (),
            provenance: Provenance | None = None, reference_answer: str = "") -> int:
        """Append a question with these reference spans; returns its number in the set."""
        text = question_text(text)
        info = self.info(name)
        refs = self.references(spans)
        self.tables.question_sets.add_questions(info.id, [NewQuestion(
            text, refs, notes, tuple(tags), reference_answer, provenance or Provenance())])
        return info.questions + 1

    def add_many(self, name: str, questions: Sequence[NewQuestion]) -> None:
        """Append questions (an importer's, a generator's), in one transaction; each question's text is checked by
        the one rule (``question_rule``) first, and one refused names its place in ``questions``."""
        for n, q in enumerate(questions, start=1):
            problem = question_refusal(q.text)
            if problem:
                raise DatasetError(f"question {n} of the {len(questions)} to add: {problem}")
        self.tables.question_sets.add_questions(self.info(name).id, questions)

    def edit(self, name: str, number: int, text: str | None = None, spans: Sequence[Span] | None = None,
             notes: str | None = None, tags: Sequence[str] | None = None, reviewed: bool | None = None) -> None:
        """Change question ``number``: its text, its references (all replaced), notes, tags, review mark."""
        q = self.question(name, number)
        if text is not None:
            text = question_text(text)
        refs = self.references(spans) if spans is not None else None
        self.tables.question_sets.update_question(q.id, text, notes, tags, reviewed, refs)

    def remove(self, name: str, number: int) -> StoredQuestion:
        """Remove question ``number``; returns it (to undo with ``restore``)."""
        q = self.question(name, number)
        self.tables.question_sets.remove_question(q.id)
        return q

    # ----- documents ----------------------------------------------------------------------------------
    def _maybe_doc(self, doc_id: int) -> Document | None:
        try:
            return self._document(doc_id)
        except DocumentGone:
            return None

    def _doc(self, doc_id: int) -> Document:
        doc = self._maybe_doc(doc_id)
        if doc is None:
            raise DatasetError(f"no document {doc_id} is stored (workbench docs lists them)")
        return doc
