"""Synthetic question sets from the user's own corpus, written by the local LLM.

Passages (structure-aware chunks of the stored documents) are picked at random or stratified by document
(seeded). For each, the LLM writes a question and copies the excerpt(s) that answer it; each excerpt is
located by exact match inside that passage's own span only (whitespace- and quote-normalised matching is
mapped back to exact offsets; see ``excerpts``), never by searching the corpus. The prompt shows the passage
one numbered sentence per line after one worked example: a small model copies a line far more faithfully.
Questions whose excerpt is not found, is too
short or too long, or that duplicate an earlier question are dropped, and every drop keeps its reason.
``two_part`` asks for questions needing two separate parts of a window (the "why, then how" kind).

The set is saved in Chroma's format (``save_question_set``), so the evaluation lab reads it, and the
generation is recorded as a run of kind ``"questions"``. Raw model outputs are cached (``llm_cache``, kind
``"questions"``), so the same seed on the same corpus costs nothing the second time.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.datasets import CORPORA_DIR, QuestionSet, read_corpus, save_question_set
from workbench.core.evaluate.excerpts import (
    MIN_EXCERPT_CHARS,
    Parsed,
    locate_excerpt,
    parse_generation,
    variants,
)
from workbench.core.evaluate.question_prompts import (
    EXAMPLE_A,
    EXAMPLE_B,
    EXAMPLE_Q,
    EXAMPLE_Q2,
    question_messages,
    two_part_messages,
)
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.values import Windowing
from workbench.core.jobs import Cancelled, CancelToken, ProgressEvent, ProgressSink
from workbench.core.llm.base import Backend
from workbench.core.llm.open import LLMUsage, call_llm
from workbench.core.outputs import CHROMA_SET, claim_folder
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace
    from workbench.core.ingest.documents import Document

KIND = "questions"
PROMPT_VERSION = "questions-v2"  # v2: fenced with a nonce
MAX_EXCERPT_CHARS = 800
MIN_PASSAGE_CHARS = 150

_QUESTION_START = re.compile(r"^(what|why|how|when|where|who|whom|which|whose|is|are|was|were|do|does|did|can|"
                             r"could|should|would|will|has|have|had|in what|according)\b", re.IGNORECASE)


def _question_key(question: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", question.lower()))


def _similar(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
    """Word-set Jaccard similarity at least ``threshold`` (identical sets always are)."""
    return a == b or len(a & b) / max(1, len(a | b)) >= threshold


# ----- generation -----------------------------------------------------------------------------------
@dataclass
class Drop:
    """A question that was not kept, and why (``reason`` is a short code, ``detail`` says more)."""

    reason: str
    detail: str
    doc_path: str
    spans: list[tuple[int, int]]
    question: str = ""
    raw: str = ""


@dataclass
class GenerationResult:
    """Questions kept (``save_question_set`` dicts), their corpora, drops with reasons, and the LLM's cost."""

    questions: list[dict[str, Any]] = field(default_factory=list)
    corpora: dict[str, str] = field(default_factory=dict)
    dropped: list[Drop] = field(default_factory=list)
    usage: LLMUsage = field(default_factory=LLMUsage)
    attempts: int = 0
    seconds: float = 0.0
    model: str = ""
    backend: str = ""
    qset: QuestionSet | None = None
    run_id: str = ""

    @property
    def reasons(self) -> dict[str, int]:
        """Drop counts by reason."""
        return dict(Counter(d.reason for d in self.dropped).most_common())


def candidate_passages(ws: EvalWorkspace, doc_ids: Sequence[int],
                       passage_tokens: int = 160) -> dict[int, list[tuple[int, int]]]:
    """Passages per document: structure-aware chunks of ``passage_tokens`` with enough text."""
    config = Windowing("tokens", passage_tokens, 0, structure_aware=True)
    out: dict[int, list[tuple[int, int]]] = {}
    for doc_id in doc_ids:
        doc = ws.corpus.document(doc_id)
        spans = [(p.start, p.end) for p in chunk_document(doc.text, doc.headings, config, ws.corpus.counter,
                                                          units=ws.corpus.token_offsets(doc_id))]
        out[doc_id] = [s for s in spans if len(doc.text[s[0] : s[1]].strip()) >= MIN_PASSAGE_CHARS]
    return out


def sample_units(passages: dict[int, list[tuple[int, int]]], seed: int, stratified: bool = True,
                 two_part: bool = False) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """Every passage (or pair of consecutive passages) in a seeded order: ``(doc_id, spans)``.

    Stratified: documents take turns (each document's units shuffled), so every document is sampled."""
    rng = random.Random(seed)
    per_doc: dict[int, list[tuple[tuple[int, int], ...]]] = {}
    for doc_id in sorted(passages):
        spans = passages[doc_id]
        units: list[tuple[tuple[int, int], ...]] = (
            [tuple(spans[i : i + 2]) for i in range(len(spans) - 1)] if two_part else [(s,) for s in spans])
        rng.shuffle(units)
        if units:
            per_doc[doc_id] = units
    if not stratified:
        flat = [(d, u) for d, units in per_doc.items() for u in units]
        rng.shuffle(flat)
        return flat
    order = list(per_doc)
    rng.shuffle(order)
    out: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    for i in range(max((len(u) for u in per_doc.values()), default=0)):
        out += [(d, per_doc[d][i]) for d in order if i < len(per_doc[d])]
    return out


def _corpus_id(doc: Document, taken: dict[str, str]) -> str:
    cid = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(doc.path).stem).lstrip(".") or f"doc{doc.id}"
    if cid in taken and taken[cid] != doc.text:
        cid = f"{cid}-{doc.sha256[:8]}"
    return cid


def _check(text: str, spans: Sequence[tuple[int, int]], parsed: Parsed, kept_keys: list[frozenset[str]],
           two_part: bool) -> tuple[str, str, list[tuple[int, int]]]:
    """``(reason, detail, located spans)``; reason is '' when the question is kept."""
    q = parsed.question
    if not q:
        return "no_question", "no 'Question:' line or JSON question in the output", []
    if len(q.split()) < 3 or len(q) > 300 or not (q.endswith("?") or _QUESTION_START.match(q)):
        return "not_a_question", f"{q[:80]!r} does not read as a question", []
    if any(_similar(_question_key(q), _question_key(ex), 0.5) for ex in (EXAMPLE_Q, EXAMPLE_Q2)):
        return "copied_example", "the model repeated the worked example's question", []
    example = " ".join(f"{EXAMPLE_A} {EXAMPLE_B}".split())
    if any(len(v) >= MIN_EXCERPT_CHARS and v in example for e in parsed.excerpts for v in variants(e)):
        return "copied_example", "the model copied an excerpt of the worked example", []
    if not parsed.excerpts:
        return "no_excerpt", "no 'Excerpt:' line or JSON excerpt in the output", []
    located: list[tuple[int, int]] = []
    for ex in parsed.excerpts[: 2 if two_part else 1]:
        hit = next((loc for s in spans if (loc := locate_excerpt(text, s[0], s[1], ex))), None)
        if hit is None:
            return "excerpt_not_found", f"{' '.join(ex.split())[:80]!r} is not in its passage", []
        length = len(text[hit[0] : hit[1]].strip())
        if length < MIN_EXCERPT_CHARS or len(text[hit[0] : hit[1]].split()) < 4:
            return "excerpt_too_short", f"excerpt of {length} characters (at least {MIN_EXCERPT_CHARS})", []
        if length > MAX_EXCERPT_CHARS:
            return "excerpt_too_long", f"excerpt of {length} characters (at most {MAX_EXCERPT_CHARS})", []
        located.append(hit)
    if two_part:
        if len(located) < 2:
            return "two_part_one_excerpt", "a two-part question needs one excerpt from each part", []
        parts = {next(i for i, s in enumerate(spans) if s[0] <= a < s[1]) for a, _ in located}
        if len(parts) < 2:
            return "two_part_same_part", "both excerpts come from the same part", []
    norm = " ".join(q.rstrip("?").split()).lower()
    if len(norm) > 25 and norm in " ".join(text[spans[0][0] : spans[-1][1]].split()).lower():
        return "question_copies_text", "the question is a sentence copied from the passage", []
    key = _question_key(q)
    if any(_similar(key, earlier, 0.8) for earlier in kept_keys):
        return "duplicate", "the same (or nearly the same) question was already kept", []
    return "", "", sorted(located)


def generate_questions(ws: EvalWorkspace, llm: Backend, n: int = 50, seed: int = 0, two_part: bool = False,
                       stratified: bool = True, doc_ids: Sequence[int] | None = None, max_attempts: int | None = None,
                       passage_tokens: int = 160, progress: ProgressSink | None = None,
                       cancel: CancelToken | None = None) -> GenerationResult:
    """Ask ``llm`` for questions on seeded passages until ``n`` are kept or ``max_attempts`` (default 4n)
    passages were tried. Nothing is written; see ``make_question_set``."""
    started = time.perf_counter()
    result = GenerationResult(model=llm.model, backend=getattr(llm, "name", ""))
    ids = list(doc_ids) if doc_ids is not None else [d["id"] for d in ws.records.documents()]
    units = sample_units(candidate_passages(ws, ids, passage_tokens), seed, stratified, two_part)
    limit = min(len(units), max_attempts if max_attempts is not None else 4 * n)
    keys: list[frozenset[str]] = []
    for doc_id, spans in units[:limit]:
        if len(result.questions) >= n:
            break
        if cancel is not None:
            cancel.check()
        doc = ws.corpus.document(doc_id)
        texts = [doc.text[a:b] for a, b in spans]
        title = doc.title or Path(doc.path).stem
        messages = two_part_messages(title, *texts) if two_part else question_messages(title, texts[0])
        # keyed on the inputs, not the prompt: its fences' nonce is keyed per process (``core.llm.fences``)
        key = hashlib.sha256(json.dumps([PROMPT_VERSION, two_part, title, texts]).encode()).hexdigest()
        result.attempts += 1
        raw = ws.records.cached_llm_output(KIND, key, llm.model)
        if raw is None:
            try:
                call = call_llm(llm, messages, 160 if two_part else 120, cancel)
            except Cancelled:
                raise
            except Exception as exc:  # one failed call is a drop with its reason, never a crash
                result.dropped.append(Drop("llm_failed", str(exc)[:200], doc.path, list(spans)))
                continue
            raw = call.text
            result.usage.add(LLMUsage(calls=1, prompt_tokens=call.prompt_tokens, output_tokens=call.output_tokens,
                                      seconds=call.seconds))
            ws.records.cache_llm_output(KIND, key, llm.model, raw)
        else:
            result.usage.cached += 1
        parsed = parse_generation(raw)
        reason, detail, located = _check(doc.text, spans, parsed, keys, two_part)
        if reason:
            result.dropped.append(Drop(reason, detail, doc.path, list(spans), parsed.question, raw[:500]))
        else:
            cid = _corpus_id(doc, result.corpora)
            result.corpora[cid] = doc.text
            keys.append(_question_key(parsed.question))
            result.questions.append({"question": parsed.question, "corpus_id": cid,
                                     "references": [{"start_index": a, "end_index": b} for a, b in located],
                                     "doc_id": doc_id, "passage": [doc_id, spans[0][0], spans[-1][1]]})
        if progress is not None:
            progress(ProgressEvent("generating questions", len(result.questions), n,
                                   f"{result.attempts} tried, {len(result.dropped)} dropped",
                                   time.perf_counter() - started))
    result.seconds = time.perf_counter() - started
    return result


def store_drafts(ws: EvalWorkspace, name: str, result: GenerationResult) -> str:
    """Append the kept questions of ``result`` to the stored set ``name`` (created when missing) as drafts,
    unreviewed, each with the model and the passage it came from; record the generation as a run (kind
    ``"questions"``). Returns the run id."""
    from workbench.core.evaluate.records import record_run
    from workbench.core.store.question_sets import NewQuestion, Provenance

    bank = ws.questions
    drafts = []
    for q in result.questions:
        doc_id = int(q["doc_id"])
        refs = bank.references([Span(doc_id, r["start_index"], r["end_index"]) for r in q["references"]])
        passage = q["passage"]
        drafts.append(NewQuestion(q["question"], refs, provenance=Provenance(
            "drafted", model=result.model, passage=(int(passage[0]), int(passage[1]), int(passage[2])),
            reviewed=False)))
    if name not in bank.names():
        bank.create(name)
    bank.add_many(name, drafts)
    config = {"dataset": {"stored": True, "name": name, "questions": len(drafts)},
              "llm": {"backend": result.backend, "model": result.model}, "prompt_version": PROMPT_VERSION}
    summary = {"kept": len(drafts), "dropped": len(result.dropped), "attempts": result.attempts,
               "reasons": result.reasons, "llm": result.usage.as_dict(), "seconds": round(result.seconds, 3),
               "drops": [asdict(d) for d in result.dropped]}
    return record_run(ws, KIND, f"questions: {name}", config, summary)


def make_question_set(ws: EvalWorkspace, out_dir: str | Path, llm: Backend, n: int = 50, seed: int = 0,
                      two_part: bool = False, **options: Any) -> GenerationResult:
    """Generate questions (``generate_questions``), save them in Chroma's format under ``out_dir`` (with
    ``generation.json``: settings, counts and every drop with its reason) and record the run (kind
    ``"questions"``). Returns the result with ``qset`` (loaded back and checked) and ``run_id``."""
    from workbench.core.evaluate.records import record_run

    begun = datetime.now(timezone.utc)
    result = generate_questions(ws, llm, n, seed, two_part, **options)
    out = Path(out_dir).expanduser()
    for cid in list(result.corpora):  # never overwrite another set's corpus (its offsets point into it)
        old = out / CORPORA_DIR / f"{cid}.md"
        if old.is_file() and not old.is_symlink() and read_corpus(old) != result.corpora[cid]:
            raise ValueError(f"{old} exists with different text; choose an empty output folder")
    result.qset = save_question_set(out, result.questions, result.corpora)
    settings = {"n": n, "seed": seed, "two_part": two_part,
                **{k: v for k, v in options.items() if k in ("stratified", "max_attempts", "passage_tokens")}}
    config = {"dataset": {"path": str(result.qset.root), "name": result.qset.name,
                          "questions": len(result.questions)},
              "llm": {"backend": result.backend, "model": result.model}, "prompt_version": PROMPT_VERSION,
              "prompt": two_part_messages("TITLE", "PART A", "PART B", nonce="NONCE") if two_part
              else question_messages("TITLE", "PASSAGE", nonce="NONCE"),
              "settings": settings, "seed": seed}
    summary = {"kept": len(result.questions), "dropped": len(result.dropped), "attempts": result.attempts,
               "reasons": result.reasons, "llm": result.usage.as_dict(), "seconds": round(result.seconds, 3)}
    result.run_id = record_run(ws, KIND, f"questions: {result.qset.name}", config, summary,
                               result.qset.dataset_hash, begun)
    record = {"run_id": result.run_id, **config, **summary, "drops": [asdict(d) for d in result.dropped]}
    text = json.dumps(record, indent=2, ensure_ascii=False)
    claim_folder(out, CHROMA_SET).write(  # the output rules: never through a link
        [("generation.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))])
    return result
