"""The advisor's fit/confirm split: half the questions choose a strategy, the other half confirm it.

The split is seeded and recorded (the question indexes of each half), so an advice run is reproducible.
Questions that could leak from one half into the other stay together:

* **by document**, when the set's questions are spread over at least ``DOCUMENT_GROUPS`` documents (a
  Chroma corpus file is one document): every question of a document goes to the same half, documents dealt
  in a seeded order to whichever half has fewer questions so far. The confirm half then holds documents the
  strategy was not chosen on.
* **stratified by corpus**, when there are fewer documents (the bundled benchmark's five corpora): each
  corpus's questions are split half and half, keeping together questions whose reference passages overlap
  (near-duplicates about the same passage), so both halves have the same mix of corpora.

A question's document is its row's corpus id, else its first reference's.

``fold_questions`` deals the questions into K folds the same way (whole documents when there are at least
``FOLD_DOCUMENTS`` and two per fold, else stratified by corpus with overlapping references together): each fold
is held out once while the others choose (cross-fitting, ``crossfit``). Two folds are today's fit/confirm split.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.core.evaluate.question_set import Question, QuestionSet

DOCUMENT_GROUPS = 8  # documents with questions needed before whole documents are kept together
FOLD_DOCUMENTS = 10  # documents with questions needed before K folds keep whole documents together
DEFAULT_FOLDS = 5


@dataclass(frozen=True)
class Split:
    """The two halves as question indexes (``Question.index``), how they were made and the seed."""

    fit: tuple[int, ...]
    confirm: tuple[int, ...]
    method: str  # "documents" or "stratified"
    seed: int
    fit_documents: tuple[str, ...] = ()
    confirm_documents: tuple[str, ...] = ()
    per_corpus: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False)  # corpus → (fit, confirm)

    def describe(self) -> str:
        """One line: ``236 fit / 236 confirm questions, stratified by corpus (seed 0)``."""
        how = (f"whole documents kept together ({len(self.fit_documents)} fit, {len(self.confirm_documents)} "
               "confirm)" if self.method == "documents" else "stratified by corpus, overlapping references together")
        return f"{len(self.fit)} fit / {len(self.confirm)} confirm questions, {how} (seed {self.seed})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what a record keeps to rebuild the halves)."""
        return {"method": self.method, "seed": self.seed, "fit": list(self.fit), "confirm": list(self.confirm),
                "fit_documents": list(self.fit_documents), "confirm_documents": list(self.confirm_documents),
                "per_corpus": {k: list(v) for k, v in self.per_corpus.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Split:
        """The split a record kept."""
        return cls(tuple(int(i) for i in data["fit"]), tuple(int(i) for i in data["confirm"]), str(data["method"]),
                   int(data["seed"]), tuple(data.get("fit_documents", ())), tuple(data.get("confirm_documents", ())),
                   {str(k): (int(v[0]), int(v[1])) for k, v in (data.get("per_corpus") or {}).items()})

    def halves(self, qset: QuestionSet) -> tuple[QuestionSet, QuestionSet]:
        """``(fit, confirm)`` question sets (each searches the whole set's corpora)."""
        return qset.subset(indexes=self.fit), qset.subset(indexes=self.confirm)


def document_of(q: Question) -> str:
    """The document a question is about: its row's corpus id, else its first reference's ('' for neither)."""
    if q.corpus_id:
        return q.corpus_id
    return q.references[0].corpus_id if q.references else ""


def split_questions(qset: QuestionSet, seed: int = 0) -> Split:
    """The seeded fit/confirm split of ``qset`` (see the module docstring)."""
    if len(qset.questions) < 2:
        raise ValueError("advice needs at least 2 questions: one half chooses, the other confirms")
    rng = random.Random(seed)
    by_doc: dict[str, list[Question]] = {}
    for q in qset.questions:
        by_doc.setdefault(document_of(q), []).append(q)
    if len(by_doc) >= DOCUMENT_GROUPS:
        fit, confirm = _deal([qs for _, qs in sorted(by_doc.items())], rng)
        fit_docs = tuple(sorted({document_of(q) for q in fit}))
        confirm_docs = tuple(sorted({document_of(q) for q in confirm}))
        return _split(fit, confirm, "documents", seed, fit_docs, confirm_docs)
    fit, confirm = [], []
    for doc in sorted(by_doc):
        f, c = _deal(_overlap_groups(by_doc[doc]), rng)
        fit += f
        confirm += c
    if not fit or not confirm:  # a few documents with one group each, all dealt to one side: deal them together
        groups = [g for doc in sorted(by_doc) for g in _overlap_groups(by_doc[doc])]
        if len(groups) < 2:
            raise ValueError("advice needs questions that can be split in two, and these all overlap one another's "
                             "references (one group): add questions with other reference passages")
        fit, confirm = _deal(groups, random.Random(seed))
    return _split(fit, confirm, "stratified", seed)


def _split(fit: Sequence[Question], confirm: Sequence[Question], method: str, seed: int,
           fit_docs: tuple[str, ...] = (), confirm_docs: tuple[str, ...] = ()) -> Split:
    per_corpus: dict[str, list[int]] = {}
    for q in fit:
        per_corpus.setdefault(document_of(q), [0, 0])[0] += 1
    for q in confirm:
        per_corpus.setdefault(document_of(q), [0, 0])[1] += 1
    return Split(tuple(sorted(q.index for q in fit)), tuple(sorted(q.index for q in confirm)), method, seed,
                 fit_docs, confirm_docs, {k: (v[0], v[1]) for k, v in sorted(per_corpus.items())})


def _deal(groups: Sequence[Sequence[Question]], rng: random.Random) -> tuple[list[Question], list[Question]]:
    """Deal groups of questions into two halves (``_deal_into`` with two)."""
    first, second = _deal_into(groups, rng, 2)
    return first, second


def _deal_into(groups: Sequence[Sequence[Question]], rng: random.Random, k: int) -> list[list[Question]]:
    """Deal groups of questions into ``k`` parts: a seeded shuffle, then largest first, each to the part with
    fewest questions so far (a seeded draw among those on a tie)."""
    order = list(range(len(groups)))
    rng.shuffle(order)
    order.sort(key=lambda i: -len(groups[i]))  # stable: equal sizes keep the shuffled order
    parts: list[list[Question]] = [[] for _ in range(k)]
    for i in order:
        sizes = [len(p) for p in parts]
        fewest = [j for j, n in enumerate(sizes) if n == min(sizes)]
        side = fewest[rng.randrange(len(fewest))] if len(fewest) > 1 else fewest[0]
        parts[side].extend(groups[i])
    return parts


@dataclass(frozen=True)
class Folds:
    """K folds as question indexes (``Question.index``), how they were made and the seed; ``documents``: each
    fold's documents when whole documents were kept together."""

    folds: tuple[tuple[int, ...], ...]
    method: str  # "documents" or "stratified"
    seed: int
    documents: tuple[tuple[str, ...], ...] = ()

    @property
    def k(self) -> int:
        """How many folds."""
        return len(self.folds)

    def training(self, fold: int) -> tuple[int, ...]:
        """The questions every other fold holds (what fold ``fold``'s search and selection may read)."""
        return tuple(sorted(i for j, f in enumerate(self.folds) if j != fold for i in f))

    def everything(self) -> tuple[int, ...]:
        """Every question of every fold."""
        return tuple(sorted(i for f in self.folds for i in f))

    def describe(self) -> str:
        """One line: ``5 folds of 94-95 questions, whole documents kept together (seed 0)``."""
        sizes = sorted(len(f) for f in self.folds)
        size = f"{sizes[0]}" if sizes[0] == sizes[-1] else f"{sizes[0]}-{sizes[-1]}"
        how = ("whole documents kept together" if self.method == "documents"
               else "stratified by corpus, overlapping references together")
        return f"{self.k} folds of {size} questions, {how} (seed {self.seed})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what a record keeps to rebuild the folds)."""
        return {"method": self.method, "seed": self.seed, "folds": [list(f) for f in self.folds],
                "documents": [list(d) for d in self.documents]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Folds:
        """The folds a record kept."""
        return cls(tuple(tuple(int(i) for i in f) for f in data["folds"]), str(data["method"]), int(data["seed"]),
                   tuple(tuple(str(d) for d in docs) for docs in data.get("documents", ())))


def default_folds(qset: QuestionSet, seed: int = 0) -> int:
    """``DEFAULT_FOLDS`` when the set can be dealt into that many folds of at least two questions each, else 2
    (the fit/confirm split)."""
    try:
        folds = fold_questions(qset, DEFAULT_FOLDS, seed)
    except ValueError:
        return 2
    return DEFAULT_FOLDS if min(len(f) for f in folds.folds) >= 2 else 2


def fold_questions(qset: QuestionSet, k: int = DEFAULT_FOLDS, seed: int = 0) -> Folds:
    """The seeded ``k`` folds of ``qset``: whole documents together when at least ``FOLD_DOCUMENTS`` documents
    (and two per fold) have questions, else each corpus's questions dealt over the folds, overlapping references
    together."""
    if k < 3:
        raise ValueError("cross-fitting needs at least 3 folds (2 folds are the fit/confirm split)")
    if len(qset.questions) < k:
        raise ValueError(f"{k} folds need at least {k} questions; this set has {len(qset.questions)}")
    rng = random.Random(seed)
    by_doc: dict[str, list[Question]] = {}
    for q in qset.questions:
        by_doc.setdefault(document_of(q), []).append(q)
    if len(by_doc) >= max(FOLD_DOCUMENTS, 2 * k):
        parts = _deal_into([qs for _, qs in sorted(by_doc.items())], rng, k)
        return Folds(tuple(tuple(sorted(q.index for q in p)) for p in parts), "documents", seed,
                     tuple(tuple(sorted({document_of(q) for q in p})) for p in parts))
    parts = [[] for _ in range(k)]
    for doc in sorted(by_doc):
        for j, p in enumerate(_deal_into(_overlap_groups(by_doc[doc]), rng, k)):
            parts[j] += p
    if any(not p for p in parts):
        raise ValueError(f"{k} folds: some fold would hold no question (too few groups of questions); "
                         "choose fewer folds")
    return Folds(tuple(tuple(sorted(q.index for q in p)) for p in parts), "stratified", seed)


def _overlap_groups(questions: Sequence[Question]) -> list[list[Question]]:
    """Questions whose reference passages overlap (in the same corpus), joined into groups (union-find);
    a question without references is a group of its own."""
    parent = list(range(len(questions)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    spans = sorted(((r.corpus_id, r.start, r.end, i) for i, q in enumerate(questions) for r in q.references))
    reach: dict[str, tuple[int, int]] = {}  # corpus → (end of the current run of overlapping spans, its owner)
    for corpus, start, end, i in spans:
        run = reach.get(corpus)
        if run is not None and start < run[0]:
            parent[find(i)] = find(run[1])
            reach[corpus] = (max(run[0], end), run[1])
        else:
            reach[corpus] = (end, i)
    groups: dict[int, list[Question]] = {}
    for i, q in enumerate(questions):
        groups.setdefault(find(i), []).append(q)
    return list(groups.values())
