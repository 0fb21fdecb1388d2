"""A question set as loaded: its questions with their reference passages, corpus files and hashes
(``evaluate.datasets`` reads and writes them in Chroma's format)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.ingest.documents import MAX_FILE_MB
from workbench.core.spans import Span


class DatasetError(ValueError):
    """A question set that cannot be used; the message says which file, row and reference."""


@dataclass(frozen=True)
class Reference:
    """One reference passage: ``corpus_id`` text ``[start, end)`` whose text is ``content``."""

    corpus_id: str
    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Question:
    """One question; ``index`` is its row in ``questions.csv`` (0-based, stable under filters)."""

    index: int
    question: str
    corpus_id: str
    references: tuple[Reference, ...] = ()
    reference_answer: str = ""

    @property
    def covered(self) -> bool:
        """True when the corpus holds an answer (the question has reference passages)."""
        return bool(self.references)

    def spans(self, doc_ids: Mapping[str, int]) -> list[Span]:
        """The references as spans of the stored documents (``doc_ids``: corpus id → document id)."""
        return [Span(doc_ids[r.corpus_id], r.start, r.end) for r in self.references]


@dataclass
class QuestionSet:
    """A loaded question set: its questions, corpus files, their hashes and any reference mismatches."""

    root: Path
    questions: list[Question]
    corpora: dict[str, Path]
    corpus_hashes: dict[str, str]
    questions_hash: str
    mismatches: list[str] = field(default_factory=list)
    max_file_mb: float = MAX_FILE_MB  # the size limit it was read with; its corpora are indexed with it too
    searched: tuple[str, ...] = ()  # the corpora chosen with subset(corpus=...); () = every corpus
    skipped: list[str] = field(default_factory=list)  # files in corpora/ that are not corpora, one line each
    # A set stored in the data folder (``evaluate.stored_question_sets``): corpus id → the stored document it is; {} for
    # a folder, whose corpus files are matched to stored documents by path or content.
    stored_docs: dict[str, int] = field(default_factory=dict)
    # Question index → where the question came from (by hand, drafted, imported), kept in run records.
    provenance: dict[int, dict[str, object]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The folder name."""
        return self.root.name

    @property
    def dataset_hash(self) -> str:
        """sha256 over the questions file and every corpus file (identifies the inputs of a run)."""
        digest = hashlib.sha256(self.questions_hash.encode())
        for cid in sorted(self.corpus_hashes):
            digest.update(f"|{cid}:{self.corpus_hashes[cid]}".encode())
        return digest.hexdigest()

    def subset(self, limit: int | None = None, corpus: str | Sequence[str] | None = None,
               indexes: Sequence[int] | None = None) -> QuestionSet:
        """Questions of some corpora only, those with the given ``indexes`` (``Question.index``: an advice run's
        fit or confirm half) and/or the first ``limit`` of them (indexes are kept). Choosing corpora also
        narrows what is searched to them (and any other corpus their questions' references point into):
        ``searched_corpora``; choosing questions by index does not."""
        wanted = [corpus] if isinstance(corpus, str) else list(corpus or [])
        unknown = [c for c in wanted if c not in self.corpora]
        if unknown:
            raise DatasetError(f"unknown corpus {', '.join(unknown)}; this set has {', '.join(sorted(self.corpora))}")
        chosen = None if indexes is None else set(indexes)
        qs = [q for q in self.questions if (not wanted or q.corpus_id in wanted)
              and (chosen is None or q.index in chosen)]
        searched = self.searched
        if wanted:
            referenced = {r.corpus_id for q in qs for r in q.references}
            searched = tuple(sorted(set(wanted) | referenced))
        if limit is not None:
            qs = qs[: max(0, limit)]
        return QuestionSet(self.root, qs, dict(self.corpora), dict(self.corpus_hashes), self.questions_hash,
                           list(self.mismatches), self.max_file_mb, searched, list(self.skipped),
                           dict(self.stored_docs), dict(self.provenance))

    def stratified(self, n: int, seed: int = 0) -> QuestionSet:
        """``n`` of the questions as a stratified sample: each corpus gives its share of ``n`` (largest
        remainders round), drawn from its own questions shuffled by ``seed``; question order and indexes are
        kept. The first ``n`` would all come from one corpus of a set ordered by corpus."""
        if n >= len(self.questions):
            return self.subset()
        groups: dict[str, list[int]] = {}
        for q in self.questions:
            groups.setdefault(q.corpus_id, []).append(q.index)
        total = len(self.questions)
        shares = {c: n * len(ix) / total for c, ix in groups.items()}
        counts = {c: int(share) for c, share in shares.items()}
        for c in sorted(groups, key=lambda c: (counts[c] - shares[c], c))[: n - sum(counts.values())]:
            counts[c] += 1
        chosen: list[int] = []
        for c in sorted(groups):
            indexes = list(groups[c])
            random.Random(f"{seed}:{c}").shuffle(indexes)
            chosen += indexes[: counts[c]]
        return self.subset(indexes=chosen)

    def sample_line(self, whole: QuestionSet, seed: int) -> str:
        """How many of ``whole``'s questions this sample (``stratified``) holds and how it was drawn, e.g. ``30 of
        472 questions, stratified by corpus, seed 0``; just the count when it holds them all."""
        if len(self.questions) >= len(whole.questions):
            return f"{len(whole.questions)} questions"
        return f"{len(self.questions)} of {len(whole.questions)} questions, stratified by corpus, seed {seed}"

    def searched_corpora(self) -> list[str]:
        """The corpus ids evaluation searches, sorted: every corpus of the set (those no question refers to
        included: distractors are part of the test), or the ones chosen with ``subset(corpus=...)``. Nothing
        else in the data folder is searched."""
        return sorted(self.searched) if self.searched else sorted(self.corpora)

    def scope_line(self, other_documents: int = 0) -> str:
        """One line saying what evaluation searches, e.g. ``searching 24 corpora of the set (2 that no question
        refers to); 3 other documents in the data folder are not searched``."""
        searched = self.searched_corpora()
        unreferenced = len(set(searched) - set(self.needed_corpora()))
        what = (f"searching {len(searched)} of the set's {len(self.corpora)} corpora ({', '.join(searched[:5])}"
                f"{', …' if len(searched) > 5 else ''}: chosen with --corpus)" if self.searched
                else f"searching the set's {len(searched)} corpora")
        if unreferenced:
            what += f" ({unreferenced} that no question refers to)"
        if other_documents:
            what += (f"; {other_documents} other document{'s' if other_documents != 1 else ''} in the data folder "
                     f"{'are' if other_documents != 1 else 'is'} not searched")
        return what

    def duplicate_note(self, shown: int = 3) -> str:
        """One line naming the ``questions.csv`` rows that ask the same question (same words, case and spacing
        aside, of the same corpus): each copy counts in the means as a question of its own. '' when none."""
        rows: dict[tuple[str, str], list[Question]] = {}
        for q in self.questions:
            rows.setdefault((" ".join(q.question.split()).casefold(), q.corpus_id), []).append(q)
        groups = [qs for qs in rows.values() if len(qs) > 1]
        if not groups:
            return ""
        parts = []
        for qs in groups[:shown]:
            numbers = [str(q.index + 2) for q in qs]  # row 1 is the header
            listed = " and ".join([", ".join(numbers[:-1]), numbers[-1]])
            text = " ".join(qs[0].question.split())
            parts.append(f"rows {listed} ask the same question ({text[:60] + ('…' if len(text) > 60 else '')!r})")
        more = f"; {len(groups) - shown} more question(s) are asked twice or more" if len(groups) > shown else ""
        return f"questions.csv: {'; '.join(parts)}{more}; each copy counts in the means as a question of its own"

    def needed_corpora(self) -> list[str]:
        """Corpus ids the questions refer to (row or reference), sorted."""
        ids = {q.corpus_id for q in self.questions if q.corpus_id} | {
            r.corpus_id for q in self.questions for r in q.references}
        return sorted(ids)
