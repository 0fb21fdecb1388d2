"""Extractive answers: no language model, only the sentences of the current passages that are closest
to the question, quoted with their exact spans and cited by passage number.

The rule, in order:

1. Each numbered passage (``(doc, start, end)``) is split into sentences with the project's rule-based
   splitter (``workbench.core.ingest.sentences``), with heading lines taken out. Sentences of fewer than
   ``MIN_WORDS`` words are skipped, and a sentence already found in a better-ranked passage (passages of
   one document may overlap) is not taken twice.
2. The sentences are embedded with the workspace's own embedding model (vectors cached in the store by
   text hash, as chunks are), each with its section's heading in front ("Day pass: It costs 8.50 euros."
   says what "it" is), and scored by cosine similarity with the question.
3. Sentences are taken best first while they score at least ``RELATIVE_CUTOFF`` × the best one, until
   ``MAX_SENTENCES`` are chosen, so weak sentences are left out instead of filling a quota.
4. A chosen sentence that opens by pointing back ("This", "Otherwise", "So", …) brings the sentence right
   before it in the same section of the same passage, so it reads as written (both count towards the cap;
   the last one taken may go one over it).
5. The answer lists the chosen sentences in passage order (passage number, then position in the
   document), each followed by its ``[n]``. The quoted text is the sentence alone, never the heading.

Every quoted sentence satisfies ``text == document.text[start:end]`` and lies inside its passage.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from workbench.core.ingest.headings import heading_path_at
from workbench.core.ingest.sentences import sentence_spans
from workbench.core.jobs import CancelToken
from workbench.core.llm.base import GenerationStats, LLMError
from workbench.core.llm.no_model import LABEL, MAX_SENTENCES, NAME, RELATIVE_CUTOFF, ExtractiveBackend
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.answer.answer_result import Answer
    from workbench.core.answer.needs import AnswerWorkspace
    from workbench.core.answer.prompt import NumberedPassage, Prompt
    from workbench.core.ingest.documents import Document

MIN_WORDS = 4
_POINTS_BACK = re.compile(
    r"(?:this|that|these|those|it|its|they|then|so|thus|therefore|hence|otherwise|also|instead|however|"
    r"because|but|and|which|such|there)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    """One candidate sentence: the passage it is quoted from, its exact span and text, and its score."""

    number: int
    span: Span
    text: str
    score: float = 0.0
    heading: str = ""  # the title of the section the sentence is in ("" before the first heading)
    region: int = -1  # start of its stretch of text between headings: neighbours share it


def passage_sentences(doc: Document, number: int, span: Span) -> list[Sentence]:
    """Sentences inside ``span`` of ``doc`` (heading lines removed, short ones skipped), in document order."""
    text = doc.text
    cuts = sorted((max(h.start, span.start), min(h.end, span.end)) for h in doc.headings
                  if h.start < span.end and h.end > span.start)
    regions, cursor = [], span.start
    for a, b in cuts:
        if a > cursor:
            regions.append((cursor, a))
        cursor = max(cursor, b)
    if cursor < span.end:
        regions.append((cursor, span.end))
    out = []
    for a, b in regions:
        path = heading_path_at(doc.headings, a)
        for s, e in sentence_spans(text[a:b], offset=a):
            piece = text[s:e]
            if len(piece.split()) >= MIN_WORDS and not piece.lstrip().startswith("#"):
                out.append(Sentence(number, Span(span.doc_id, s, e), piece, heading=path[-1] if path else "",
                                    region=a))
    return out


def embedded_text(sentence: Sentence) -> str:
    """What is embedded for a sentence: its section heading, then the sentence."""
    return f"{sentence.heading}: {sentence.text}" if sentence.heading else sentence.text


def select(candidates: Sequence[Sentence], scores: np.ndarray, max_sentences: int = MAX_SENTENCES,
           cutoff: float = RELATIVE_CUTOFF) -> list[Sentence]:
    """The chosen sentences (rule steps 3–5), with their scores, in passage order."""
    if not candidates:
        return []
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    best = float(scores[order[0]])
    floor = best * cutoff if best > 0 else best
    chosen: set[int] = set()
    for i in order:
        if len(chosen) >= max_sentences or float(scores[i]) < floor:
            break
        chosen.add(i)
        prev = i - 1
        if prev >= 0 and _continues(candidates[prev], candidates[i]):
            chosen.add(prev)
    picked = [replace(c, score=float(scores[i])) for i, c in enumerate(candidates) if i in chosen]
    return sorted(picked, key=lambda s: (s.number, s.span.start))


def _continues(before: Sentence, sentence: Sentence) -> bool:
    """True when ``sentence`` points back to ``before``, right before it in the same passage and section."""
    return (before.number == sentence.number and before.region == sentence.region
            and bool(_POINTS_BACK.match(sentence.text.lstrip("\"'“‘(*-– "))))


def extract(ws: AnswerWorkspace, question: str, passages: Sequence[NumberedPassage], max_sentences: int = MAX_SENTENCES,
            cutoff: float = RELATIVE_CUTOFF, cancel: CancelToken | None = None) -> list[Sentence]:
    """The sentences of ``passages`` (numbered passages, best first) that answer ``question`` best."""

    candidates: list[Sentence] = []
    seen: set[tuple[int, int, int]] = set()
    for p in sorted(passages, key=lambda p: p.number):
        for s in passage_sentences(ws.corpus.document(p.span.doc_id), p.number, p.span):
            key = (s.span.doc_id, s.span.start, s.span.end)
            if key not in seen:
                seen.add(key)
                candidates.append(s)
    if not candidates:
        return []
    if cancel is not None:
        cancel.check()
    vectors = ws.corpus.embed_texts([embedded_text(c) for c in candidates], cancel=cancel)
    scores = vectors @ np.asarray(ws.corpus.query_vector(question), dtype=np.float32)
    return select(candidates, scores, max_sentences, cutoff)


def display(text: str) -> str:
    """A quoted sentence as it reads in the answer (white space runs, line breaks included, made one space)."""
    return " ".join(text.split())


def extractive_answer(ws: AnswerWorkspace | None, prompt: Prompt, backend: ExtractiveBackend,
                      on_token: Callable[[str], None] | None = None, cancel: CancelToken | None = None,
                      warnings: list[str] | None = None) -> Answer:
    """Quote the best sentences of ``prompt``'s passages; the same ``Answer`` a generated answer gives, with
    one citation per sentence (its span and text) and zero tokens in and out."""
    from workbench.core.answer.answer_result import Answer
    from workbench.core.answer.citations import Citation

    if ws is None:
        raise LLMError("extractive answers need the workspace (its documents and embedding model)")
    t0 = time.perf_counter()
    stats = GenerationStats(model=getattr(ws.corpus.embedder, "model_id", ""), backend=NAME, stop_reason="stop")
    sentences = extract(ws, prompt.question, prompt.passages, backend.max_sentences, backend.cutoff, cancel)
    by_number = {p.number: p for p in prompt.passages}
    notes = list(warnings or [])
    pieces: list[str] = []
    citations: list[Citation] = []
    length = 0
    for i, s in enumerate(sentences):
        joint = ""
        if i:
            before = sentences[i - 1]
            same_run = (before.number == s.number
                        and not ws.corpus.doc_text(s.span.doc_id)[before.span.end:s.span.start].strip())
            joint = " " if same_run else "\n"
        body = f"{joint}{display(s.text)} "
        mark = f"[{s.number}]"
        citations.append(Citation(s.number, length + len(body), length + len(body) + len(mark), by_number[s.number],
                                  quote=s.span, quote_text=s.text, score=round(s.score, 4)))
        piece = body + mark
        length += len(piece)
        pieces.append(piece)
        if stats.time_to_first_token_s is None:
            stats.time_to_first_token_s = time.perf_counter() - t0
        if on_token is not None:
            on_token(piece)
    if not sentences:
        text = "The passages hold no sentence to quote." if prompt.passages else "No passages were found."
        pieces.append(text)
        if on_token is not None:
            on_token(text)
        notes.append("no sentence was close enough to the question to quote")
    stats.total_s = time.perf_counter() - t0
    return Answer("".join(pieces), prompt, citations, stats, LABEL, notes)
