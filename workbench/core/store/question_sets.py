"""The store's question sets: named sets of questions, each with its reference spans into stored documents and
its provenance (the ``question_sets``, ``question_set_docs``, ``questions`` and ``question_refs`` tables).

A part over the store's connection (``store.question_sets``), not a mixin: every SQL statement about question
sets lives here. Rows are read totally: a damaged row (a value of the wrong type) is named in ``skipped`` and
left out, never breaks a command.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from workbench.core.store.connection import StoreConnection, now

ORIGINS = ("hand", "drafted", "imported")
OK, NEEDS_REVIEW = "ok", "needs review"


@dataclass(frozen=True)
class StoredReference:
    """One reference span of a stored question: ``doc_id`` text ``[start, end)`` that held ``content`` when the
    document had ``doc_sha256``; ``status`` is ``ok`` or ``needs review`` (its text changed: left out of
    scoring until fixed), ``status_note`` says why."""

    id: int
    question_id: int
    doc_id: int
    start: int
    end: int
    content: str
    doc_sha256: str
    status: str = OK
    status_note: str = ""


@dataclass(frozen=True)
class Provenance:
    """Where a question came from: ``hand`` (typed by a person), ``drafted`` (by ``model`` from the passage
    ``passage`` = (doc_id, start, end), ``reviewed`` once a person accepted it) or ``imported`` (from ``format``,
    its item id ``item``)."""

    origin: str = "hand"
    model: str = ""
    format: str = ""
    item: str = ""
    passage: tuple[int, int, int] | None = None
    reviewed: bool = True

    def describe(self) -> str:
        """One short phrase, e.g. ``drafted by qwen3 from passage 3:120-480, not reviewed``."""
        if self.origin == "drafted":
            where = f" from passage {self.passage[0]}:{self.passage[1]}-{self.passage[2]}" if self.passage else ""
            return f"drafted by {self.model or 'a model'}{where}, {'reviewed' if self.reviewed else 'not reviewed'}"
        if self.origin == "imported":
            return f"imported from {self.format}" + (f", item {self.item}" if self.item else "")
        return "by hand"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (run records keep it per question)."""
        return {"origin": self.origin, "model": self.model, "format": self.format, "item": self.item,
                "passage": list(self.passage) if self.passage else None, "reviewed": self.reviewed}


@dataclass(frozen=True)
class StoredQuestion:
    """One stored question: its text, references, notes, tags, written answer and provenance."""

    id: int
    set_id: int
    position: int
    text: str
    references: tuple[StoredReference, ...] = ()
    notes: str = ""
    tags: tuple[str, ...] = ()
    reference_answer: str = ""
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def needs_review(self) -> bool:
        """True when one of its references lost its text (the question is left out of scoring)."""
        return any(r.status != OK for r in self.references)


@dataclass(frozen=True)
class StoredSetInfo:
    """One stored question set: its name, question count and the documents added to it explicitly (those its
    references point into are its documents too)."""

    id: int
    name: str
    note: str
    created: str
    updated: str
    questions: int
    doc_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class NewReference:
    """A reference to write: a span of a stored document with the text it holds and the document's sha256."""

    doc_id: int
    start: int
    end: int
    content: str
    doc_sha256: str
    status: str = OK
    status_note: str = ""


@dataclass(frozen=True)
class NewQuestion:
    """A question to write."""

    text: str
    references: tuple[NewReference, ...] = ()
    notes: str = ""
    tags: tuple[str, ...] = ()
    reference_answer: str = ""
    provenance: Provenance = field(default_factory=Provenance)


@dataclass
class SetRead:
    """A set's questions as read, with the rows that could not be read named (one line each)."""

    info: StoredSetInfo
    questions: list[StoredQuestion]
    skipped: list[str] = field(default_factory=list)


def _tags(raw: object) -> tuple[str, ...]:
    return tuple(t for t in str(raw or "").split("\n") if t)


class QuestionSetTables:
    """The question-set tables of one store connection."""

    def __init__(self, conn: StoreConnection) -> None:
        self.conn = conn

    @property
    def db(self) -> Any:
        """The sqlite-utils database of the connection."""
        return self.conn.db

    @contextmanager
    def _write(self) -> Iterator[None]:
        with self.conn.writing(), self.conn.transaction():
            yield

    # ----- sets --------------------------------------------------------------------------------------
    def sets(self) -> list[StoredSetInfo]:
        """Every stored question set, by name."""
        out = []
        for r in self.db.execute(
                "SELECT s.id, s.name, s.note, s.created, s.updated, "
                "(SELECT count(*) FROM questions q WHERE q.set_id = s.id) FROM question_sets s ORDER BY s.name"):
            docs = tuple(int(d[0]) for d in self.db.execute(
                "SELECT doc_id FROM question_set_docs WHERE set_id = ? ORDER BY doc_id", [r[0]]))
            out.append(StoredSetInfo(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(r[5]), docs))
        return out

    def find(self, name: str) -> StoredSetInfo | None:
        """The set called ``name``, or None."""
        return next((s for s in self.sets() if s.name == name), None)

    def create(self, name: str, note: str = "") -> int:
        """A new empty set; returns its id (the name must be free: the caller checks)."""
        with self._write():
            cur = self.db.execute("INSERT INTO question_sets (name, note, created, updated) VALUES (?, ?, ?, ?)",
                                  [name, note, now(), now()])
            return int(cur.lastrowid)

    def rename(self, set_id: int, name: str) -> None:
        """Give a set another name."""
        with self._write():
            self.db.execute("UPDATE question_sets SET name = ?, updated = ? WHERE id = ?", [name, now(), set_id])

    def delete(self, set_id: int) -> None:
        """Remove a set with its questions and references."""
        with self._write():
            self.db.execute("DELETE FROM question_sets WHERE id = ?", [set_id])

    def duplicate(self, set_id: int, name: str) -> int:
        """A copy of a set (questions, references, documents) under ``name``; returns the new id. Read and
        written in one transaction: a question another process adds meanwhile is in both or in neither."""
        with self._write():
            read = self.read(set_id)
            new_id = self.create(name, read.info.note)
            self.add_documents(new_id, read.info.doc_ids)
            self.add_questions(new_id, [_as_new(q) for q in read.questions])
        return new_id

    def add_documents(self, set_id: int, doc_ids: Sequence[int]) -> None:
        """Make these documents part of the set (searched with it, whether a reference points there or not)."""
        with self._write():
            self.db.conn.executemany("INSERT OR IGNORE INTO question_set_docs (set_id, doc_id) VALUES (?, ?)",
                                     [(set_id, int(d)) for d in doc_ids])

    def _touch(self, set_id: int) -> None:
        self.db.execute("UPDATE question_sets SET updated = ? WHERE id = ?", [now(), set_id])

    # ----- questions ----------------------------------------------------------------------------------
    def add_questions(self, set_id: int, questions: Sequence[NewQuestion]) -> list[int]:
        """Append questions (after the set's last one), in one transaction; returns their ids."""
        ids: list[int] = []
        with self._write():
            row = self.db.execute("SELECT coalesce(max(position), -1) FROM questions WHERE set_id = ?",
                                  [set_id]).fetchone()
            position = int(row[0]) + 1
            for q in questions:
                p = q.provenance
                passage = p.passage or (None, None, None)
                cur = self.db.execute(
                    "INSERT INTO questions (set_id, position, text, notes, tags, reference_answer, origin, "
                    "origin_model, origin_format, origin_item, passage_doc, passage_start, passage_end, reviewed, "
                    "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [set_id, position, q.text, q.notes, "\n".join(q.tags), q.reference_answer, p.origin, p.model,
                     p.format, p.item, *passage, int(p.reviewed), now()])
                qid = int(cur.lastrowid)
                self._insert_refs(qid, q.references)
                ids.append(qid)
                position += 1
            self._touch(set_id)
        return ids

    def _insert_refs(self, question_id: int, refs: Sequence[NewReference]) -> None:
        self.db.conn.executemany(
            'INSERT INTO question_refs (question_id, doc_id, start, "end", content, doc_sha256, status, status_note) '
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(question_id, r.doc_id, r.start, r.end, r.content, r.doc_sha256, r.status, r.status_note)
             for r in refs])

    def update_question(self, question_id: int, text: str | None = None, notes: str | None = None,
                        tags: Sequence[str] | None = None, reviewed: bool | None = None,
                        references: Sequence[NewReference] | None = None) -> None:
        """Change some fields of a question; ``references`` replaces all of them (then each is ``ok``)."""
        fields: dict[str, object] = {}
        if text is not None:
            fields["text"] = text
        if notes is not None:
            fields["notes"] = notes
        if tags is not None:
            fields["tags"] = "\n".join(tags)
        if reviewed is not None:
            fields["reviewed"] = int(reviewed)
        with self._write():
            if fields:
                sets = ", ".join(f"{k} = ?" for k in fields)
                self.db.execute(f"UPDATE questions SET {sets} WHERE id = ?", [*fields.values(), question_id])
            if references is not None:
                self.db.execute("DELETE FROM question_refs WHERE question_id = ?", [question_id])
                self._insert_refs(question_id, references)
            row = self.db.execute("SELECT set_id FROM questions WHERE id = ?", [question_id]).fetchone()
            if row:
                self._touch(int(row[0]))

    def remove_question(self, question_id: int) -> None:
        """Remove one question with its references."""
        with self._write():
            self.db.execute("DELETE FROM questions WHERE id = ?", [question_id])

    def set_reference(self, ref_id: int, start: int, end: int, doc_sha256: str, status: str, note: str) -> None:
        """Record where a reference's text is now (re-located), or that it needs review."""
        with self._write():
            self.db.execute('UPDATE question_refs SET start = ?, "end" = ?, doc_sha256 = ?, status = ?, '
                            "status_note = ? WHERE id = ?", [start, end, doc_sha256, status, note, ref_id])

    # ----- reading ------------------------------------------------------------------------------------
    def read(self, set_id: int) -> SetRead:
        """A set with its questions in order; damaged rows are named in ``skipped`` and left out."""
        info = next((s for s in self.sets() if s.id == set_id), None)
        if info is None:
            raise KeyError(f"no question set {set_id}")
        skipped: list[str] = []
        refs: dict[int, list[StoredReference]] = {}
        for r in self.db.execute(
                'SELECT r.id, r.question_id, r.doc_id, r.start, r."end", r.content, r.doc_sha256, r.status, '
                "r.status_note FROM question_refs r JOIN questions q ON q.id = r.question_id WHERE q.set_id = ? "
                "ORDER BY r.id", [set_id]):
            try:
                ref = StoredReference(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), str(r[5]), str(r[6]),
                                      str(r[7]), str(r[8]))
            except (TypeError, ValueError):
                skipped.append(f"reference row {r[0]} of question {r[1]} could not be read; it is left out")
                continue
            refs.setdefault(ref.question_id, []).append(ref)
        questions: list[StoredQuestion] = []
        for r in self.db.execute(
                "SELECT id, position, text, notes, tags, reference_answer, origin, origin_model, origin_format, "
                "origin_item, passage_doc, passage_start, passage_end, reviewed FROM questions WHERE set_id = ? "
                "ORDER BY position, id", [set_id]):
            try:
                passage = (int(r[10]), int(r[11]), int(r[12])) if r[10] is not None else None
                origin = str(r[6])
                if origin not in ORIGINS:
                    raise ValueError(origin)
                prov = Provenance(origin, str(r[7]), str(r[8]), str(r[9]), passage, bool(int(r[13])))
                questions.append(StoredQuestion(int(r[0]), set_id, int(r[1]), str(r[2]),
                                                tuple(refs.get(int(r[0]), ())), str(r[3]), _tags(r[4]), str(r[5]),
                                                prov))
            except (TypeError, ValueError):
                skipped.append(f"question row {r[0]} could not be read; it is left out")
        return SetRead(info, questions, skipped)


def _as_new(q: StoredQuestion) -> NewQuestion:
    """A stored question as one to write again (a duplicate set's copy)."""
    refs = tuple(NewReference(r.doc_id, r.start, r.end, r.content, r.doc_sha256, r.status, r.status_note)
                 for r in q.references)
    return NewQuestion(q.text, refs, q.notes, q.tags, q.reference_answer, q.provenance)
