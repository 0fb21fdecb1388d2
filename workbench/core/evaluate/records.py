"""Experiment records: every evaluation run stored in the workspace's SQLite file (``runs`` and
``run_questions``), listed, reopened and re-run.

A run records what is needed to reproduce it: the question set (path, content hashes of the questions
file and every corpus), each configuration's full strategy, the embedding model id and weight-file hash,
the LLM model when answers were judged, the code version (package version + git commit), the seed, and
per question the spans returned, the metrics, the answer and its label, with start and end times.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from workbench.core.evaluate.answer_report import LabelSummary, label_summary
from workbench.core.evaluate.datasets import DatasetError, QuestionSet, load_question_set
from workbench.core.evaluate.metrics import QuestionMetrics, StatRecord, summary_to_dict
from workbench.core.evaluate.sweep import (
    ConfigResult,
    GridValue,
    JudgeNotes,
    QuestionResult,
    SweepConfig,
    SweepResult,
    run_sweep,
)
from workbench.core.evaluate.sweep_checks import note_lines
from workbench.core.ingest.documents import MAX_FILE_MB
from workbench.core.jobs import CancelToken, ProgressSink
from workbench.core.retrieve.strategy.json_form import to_flat_dict
from workbench.core.retrieve.strategy.presets import from_dict
from workbench.core.retrieve.strategy.value import StrategyJson
from workbench.core.spans import Span
from workbench.core.store.readback import json_object, shown
from workbench.core.store.rows import RunQuestionRow, RunRow

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``workbench.__version__`` plus ``+g<commit>`` (and ``.dirty``) when the package is in a git checkout."""
    from workbench import __version__

    root = Path(__file__).resolve().parents[3]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                "workbench"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{commit}" + (".dirty" if dirty else "") if commit else __version__


@functools.lru_cache(maxsize=8)
def model_file_hash(model_path: str | None) -> str:
    """sha256 over the weight files of a local model folder ('' when there is none)."""
    if not model_path or not Path(model_path).is_dir():
        return ""
    digest = hashlib.sha256()
    for f in sorted(Path(model_path).glob("*.safetensors")) + sorted(Path(model_path).glob("*.bin")):
        if not f.is_file():  # a FIFO or device (or a link to one) is never read: it would block or never end
            continue
        with open(f, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


class Selection(TypedDict, total=False):
    """How a run's question set was narrowed (for re-runs): a limit, corpora, question indexes, budgets, and how
    the questions were drawn (``sample``, e.g. ``stratified, seed 0``; the indexes say which)."""

    limit: int | None
    corpus: list[str] | None
    questions: list[int]
    budgets: str | None
    sample: str


class _DatasetFields(TypedDict):
    """The question set a run used: where, its name and size, its content hashes and the selection."""

    path: str
    name: str
    questions: int
    questions_sha256: str
    corpora: dict[str, str]
    selection: Selection


class DatasetRecord(_DatasetFields, total=False):
    """The question set a run used (``_DatasetFields``); for a set stored in the data folder also ``stored``
    (``name`` finds it again) and each question's provenance by question index."""

    stored: bool
    provenance: dict[str, dict[str, object]]


class ConfigRecord(TypedDict):
    """One configuration of a run: its key, base strategy name, grid values, the strategy (flat JSON) and its
    description."""

    key: str
    base: str
    params: dict[str, GridValue]
    strategy: StrategyJson
    description: str


class EmbeddingRecord(TypedDict):
    """The embedding model of a run."""

    model_id: str
    model_path: str | None
    file_sha256: str


class DocumentRecord(TypedDict):
    """A document a run searched or cited: its path, content hash and corpus id."""

    path: str
    sha256: str
    corpus_id: str | None


class SearchedRecord(TypedDict):
    """What a run searched: the corpora, how many documents, the line that says so."""

    corpora: list[str]
    documents: int
    line: str


class WorkspaceRecord(TypedDict):
    """The data folder a run ran in."""

    data_dir: str
    documents: int


class AdviceConfig(TypedDict, total=False):
    """An advice run's plan as recorded (``advise.advice``): what resuming it needs (every key may be missing in
    an older record: ``objective`` is then recall, ``rule`` preset)."""

    budget: int
    time_limit_s: float
    name: str
    space: dict[str, Any]  # ``advise.space.Space.to_dict``
    seed: int
    rule: str
    objective: str  # a metric's registry name (``advise.objective``)
    split: dict[str, Any]  # ``advise.split.Split.to_dict`` (fit/confirm halves)
    folds: dict[str, Any]  # ``advise.split.Folds.to_dict`` (cross-fitting)


class RunConfig(TypedDict, total=False):
    """A run's ``config`` (``run_config``); an advice run adds ``advice``, other kinds of run (question
    generation) record their own keys, so every key may be missing when read back."""

    dataset: DatasetRecord
    configs: list[ConfigRecord]
    embedding: EmbeddingRecord
    llm: dict[str, str] | None
    seed: int
    documents: dict[str, DocumentRecord]
    searched: SearchedRecord
    workspace: WorkspaceRecord
    advice: AdviceConfig  # the advisor's plan


class RunSummary(TypedDict, total=False):
    """A run's ``summary``: per configuration its metric statistics, the time, warnings and notes, and the
    answers' label counts; an advice run keeps its state and trials."""

    configs: dict[str, dict[str, StatRecord]]
    seconds: float
    warnings: list[str]
    notes: dict[str, dict[str, int]]
    answers: dict[str, LabelSummary]
    state: str
    stopped: str
    pick: str
    trials: list[dict[str, Any]]  # ``optimise.Trial.to_dict``
    pareto: list[int]
    units: str
    objective: str  # an advice run's objective (a metric's name; missing before objectives: recall)
    book: dict[str, Any]  # ``advise.book.ScoreBook.to_dict``
    verdict: str
    headline: dict[str, Any] | None  # ``advise.advice.AdviceResult.headline``
    confirm: dict[str, Any] | None  # ``advise.confirm.Confirmation.to_dict``
    crossfit: dict[str, Any] | None  # ``advise.crossfit.CrossFit.to_dict``


@dataclass(frozen=True)
class RunInfo:
    """One row of ``runs``: ``config`` and ``summary`` decoded from JSON."""

    id: str
    kind: str
    label: str
    config: RunConfig
    dataset_hash: str
    code_version: str
    started: str
    finished: str | None
    summary: RunSummary

    @property
    def config_keys(self) -> list[str]:
        """Keys of the configurations run, in order."""
        return [c["key"] for c in self.config.get("configs", [])]


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="seconds")


def save_run(ws: EvalWorkspace, qset: QuestionSet, sweep: SweepResult, label: str = "", kind: str = "retrieval",
             seed: int = 0, llm_model: str | None = None, started: datetime | None = None,
             selection: Selection | None = None, judge_model: str | None = None) -> str:
    """Store a finished sweep as a run (one transaction) and return its id.

    ``llm_model`` answered, ``judge_model`` judged (recorded as the answering model when None).
    ``selection`` records how the question set was narrowed (``{"limit": N, "corpus": [...], "questions": [...]}``:
    question indexes, e.g. an advice run's confirm half) for re-runs.
    """
    keys = [cr.config.key for cr in sweep.results]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:  # one row per configuration and question: refused in words before anything is written
        raise ValueError(f"two configurations of the run share the name {twice[0]!r}; give them distinct names")
    finished = datetime.now(timezone.utc)
    started = started or finished - timedelta(seconds=sweep.seconds)
    run_id = f"{finished:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
    config = run_config(ws, qset, sweep, seed, selection, llm_model, judge_model)
    summary = RunSummary(configs={cr.config.key: summary_to_dict(cr.summary) for cr in sweep.results},
                         seconds=round(sweep.seconds, 3), warnings=[*sweep.warnings, *note_lines(sweep.results)])
    notes = {cr.config.key: cr.notes for cr in sweep.results if cr.notes}
    if notes:  # per configuration: what its searches warned about, and on how many questions
        summary["notes"] = notes
    if any(r.label for cr in sweep.results for r in cr.rows):
        summary["answers"] = {cr.config.key: label_summary(cr.rows) for cr in sweep.results}
    ws.records.record_run(
        RunRow(run_id, kind, label or qset.name, json.dumps(config, sort_keys=True), qset.dataset_hash, code_version(),
               _iso(started), _iso(finished), json.dumps(summary, sort_keys=True)),
        question_rows(run_id, sweep.results),
    )
    return run_id


def question_rows(run_id: str, results: Sequence[ConfigResult]) -> list[RunQuestionRow]:
    """The ``run_questions`` rows of ``results`` (spans, metrics, answers) for run ``run_id``."""
    return [RunQuestionRow(run_id, cr.config.key, r.q_index, r.question,
                           json.dumps([[s.doc_id, s.start, s.end] for s in r.spans]),
                           json.dumps(r.metrics.to_dict() | {"corpus_id": r.corpus_id} | r.extra, sort_keys=True),
                           r.answer, r.label)
            for cr in results for r in cr.rows]


def run_config(ws: EvalWorkspace, qset: QuestionSet, sweep: SweepResult, seed: int = 0,
               selection: Selection | None = None, llm_model: str | None = None,
               judge_model: str | None = None) -> RunConfig:
    """The ``config`` of a run record: the question set and its selection, every configuration's strategy,
    the embedding model, the LLMs, the seed and the documents searched (path, sha256, corpus id: exactly the
    set's searched corpora)."""
    emb = ws.corpus.embedder
    doc_rows = {d["id"]: d for d in ws.records.documents()}
    corpus_of = {v: k for k, v in sweep.doc_ids.items()}
    used = {s.doc_id for cr in sweep.results for r in cr.rows for s in r.spans} | set(corpus_of)
    dataset = DatasetRecord(path=str(qset.root), name=qset.name, questions=len(qset.questions),
                            questions_sha256=qset.questions_hash, corpora=qset.corpus_hashes,
                            selection=selection or Selection())
    if qset.stored_docs:  # a set stored in the data folder: found again by name; each question's provenance
        dataset["stored"] = True
        dataset["provenance"] = {str(i): p for i, p in sorted(qset.provenance.items())}
    return RunConfig(
        dataset=dataset,
        configs=[ConfigRecord(key=cr.config.key, base=cr.config.base, params=cr.config.params,
                              strategy=to_flat_dict(cr.config.strategy), description=cr.config.strategy.describe())
                 for cr in sweep.results],
        embedding=EmbeddingRecord(model_id=emb.model_id, model_path=getattr(emb, "model_path", None),
                                  file_sha256=model_file_hash(getattr(emb, "model_path", None))),
        llm=({"model": llm_model} | ({"judge_model": judge_model} if judge_model and judge_model != llm_model
                                     else {})) if llm_model else None,
        seed=seed,
        documents={str(i): DocumentRecord(path=doc_rows[i]["path"], sha256=doc_rows[i]["sha256"],
                                          corpus_id=corpus_of.get(i)) for i in sorted(used) if i in doc_rows},
        searched=SearchedRecord(corpora=sorted(sweep.doc_ids), documents=len(sweep.doc_ids), line=sweep.scope_line),
        workspace=WorkspaceRecord(data_dir=str(ws.data_dir), documents=len(doc_rows)),
    )


def record_run(ws: EvalWorkspace, kind: str, label: str, config: Mapping[str, object], summary: Mapping[str, object],
               dataset_hash: str = "", started: datetime | None = None, finished: datetime | None = None) -> str:
    """Store a run that is not a sweep (no per-question rows), e.g. a question-generation run (kind
    ``"questions"``: model, prompt, seed, counts kept and dropped with reasons); returns its id."""
    finished = finished or datetime.now(timezone.utc)
    run_id = f"{finished:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
    ws.records.record_run(RunRow(run_id, kind, label, json.dumps(config, sort_keys=True), dataset_hash, code_version(),
                                 _iso(started or finished), _iso(finished), json.dumps(summary, sort_keys=True)))
    return run_id


class RunUnreadable(ValueError):
    """A recorded run whose stored fields do not read back; the message names the run and the field."""


def _info(row: RunRow) -> RunInfo | str:
    """The run of a ``runs`` row, or a message naming the run and the field that does not read."""
    run_id = row.id
    config, problem = json_object(row.config_json)
    if config is None:
        return f"run {shown(run_id)}: config_json {problem}"
    summary, problem = json_object(row.summary_json)
    if summary is None:
        return f"run {shown(run_id)}: summary_json {problem}"
    configs, dataset = config.get("configs", []), config.get("dataset", {})
    if not isinstance(configs, list) or not all(isinstance(c, dict) and isinstance(c.get("key"), str)
                                                for c in configs):
        return f"run {shown(run_id)}: config_json's 'configs' is not a list of configurations"
    if not isinstance(dataset, dict):
        return f"run {shown(run_id)}: config_json's 'dataset' is not an object"
    typed_config: RunConfig = config  # type: ignore[assignment]  # checked above where a reader relies on it
    typed_summary: RunSummary = summary  # type: ignore[assignment]  # as recorded (see RunSummary)
    return RunInfo(run_id, row.kind, row.label, typed_config, row.dataset_hash, row.code_version, row.started,
                   row.finished, typed_summary)


def read_runs(ws: EvalWorkspace) -> tuple[list[RunInfo], dict[str, str]]:
    """Every recorded run that reads, newest first, and ``{run id: message}`` of those that do not (named,
    left out: one damaged record affects no other)."""
    runs: list[RunInfo] = []
    unreadable: dict[str, str] = {}
    for row in ws.records.run_rows():
        info = _info(row)
        if isinstance(info, str):
            unreadable[row.id] = f"{info}; it is left out (`workbench runs --delete ID` removes it)"
        else:
            runs.append(info)
    return runs, unreadable


def list_runs(ws: EvalWorkspace) -> list[RunInfo]:
    """Every recorded run that reads, newest first (``read_runs`` names those that do not)."""
    return read_runs(ws)[0]


def find_run(ws: EvalWorkspace, ref: str) -> RunInfo:
    """A run by id, unique id prefix, or ``last`` / ``latest``; a run whose record does not read is refused
    with ``RunUnreadable`` naming the field."""
    runs, unreadable = read_runs(ws)
    if ref in ("last", "latest") and runs:
        return runs[0]
    matches = [r for r in runs if r.id == ref] or [r for r in runs if r.id.startswith(ref)]
    bad = [m for i, m in unreadable.items() if i == ref] or (
        [] if matches else [m for i, m in unreadable.items() if i.startswith(ref)])
    if len(bad) == 1 and not matches:
        raise RunUnreadable(bad[0])
    if len(matches) != 1:
        raise KeyError(f"no run {ref!r}" if not matches else f"run {ref!r} is ambiguous ({len(matches)} match)")
    return matches[0]


@contextmanager
def recorded(info: RunInfo, field: str = "config_json") -> Iterator[None]:
    """Decoding part of a run record: a value of the wrong shape becomes ``RunUnreadable`` naming the run and
    the field (a bare ``KeyError`` or ``TypeError`` never reaches a person)."""
    try:
        yield
    except RunUnreadable:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError, OverflowError, RecursionError) as exc:
        if isinstance(exc, DatasetError):
            raise
        what = f"lacks {exc}" if isinstance(exc, KeyError) else f"holds a value of the wrong shape ({exc})"
        raise RunUnreadable(f"run {shown(info.id)}: {field} {what[:200]}; the run cannot be used "
                            "(`workbench runs --delete ID` removes it)") from None


def load_run(ws: EvalWorkspace, ref: str) -> tuple[RunInfo, list[ConfigResult]]:
    """Reopen a run: its record and per-configuration question rows (same shape as a fresh sweep)."""
    info = find_run(ws, ref)
    with recorded(info):
        results = {c["key"]: ConfigResult(SweepConfig(c["key"], from_dict(c["strategy"]), c["base"], c["params"]))
                   for c in info.config["configs"]}
    for row in ws.records.run_question_rows(info.id):
        with recorded(info, f"question {row.q_index} ({row.config_key})"):
            m = json.loads(row.metrics_json)  # type: ignore[arg-type]  # stored text; a wrong shape is named
            extra = judge_notes(m)
            results[row.config_key].rows.append(QuestionResult(
                row.q_index, row.question, m.get("corpus_id", ""),
                [Span(*s) for s in json.loads(row.spans_json)],  # type: ignore[arg-type]  # as above
                QuestionMetrics.from_dict(m), row.answer, row.label, extra))
    with recorded(info, "summary_json"):
        for key, notes in (info.summary.get("notes") or {}).items():
            if key in results:
                results[key].notes = {str(k): int(v) for k, v in notes.items()}
    return info, list(results.values())


def judge_notes(recorded: Mapping[str, object]) -> JudgeNotes:
    """The judge's notes among one question's recorded metrics (older runs: whichever of them it has)."""
    notes = JudgeNotes()
    if isinstance(reason := recorded.get("reason"), str):
        notes["reason"] = reason
    if isinstance(tokens := recorded.get("input_tokens"), int):
        notes["input_tokens"] = tokens
    if isinstance(attempts := recorded.get("judge_attempts"), int):
        notes["judge_attempts"] = attempts
    if isinstance(covered := recorded.get("covered"), bool):
        notes["covered"] = covered
    return notes


def delete_run(ws: EvalWorkspace, ref: str) -> None:
    """Remove a run and its questions."""
    info = find_run(ws, ref)
    ws.records.delete_run(info.id)


def rerun(ws: EvalWorkspace, ref: str, dataset_dir: str | None = None, progress: ProgressSink | None = None,
          cancel: CancelToken | None = None, allow_changed: bool = False, backend: Any = None,
          judge: Any = None, max_file_mb: float = MAX_FILE_MB) -> tuple[str, SweepResult]:
    """Run a recorded run's configurations again on the same questions; returns the new run id.

    An answers run answers and judges again with ``backend`` (and ``judge``, default the backend); without
    a backend it raises ``ValueError``. Raises ``DatasetError`` when the question set's content changed since
    (unless ``allow_changed``). Corpus files over ``max_file_mb`` are refused before they are read.
    """
    info = find_run(ws, ref)
    if info.kind == "answers" and backend is None:
        raise ValueError(f"run {info.id} judged answers: re-running it needs an answering model")
    with recorded(info):
        ds = info.config["dataset"]
        path, corpora, sel = dataset_dir or ds["path"], dict(ds["corpora"]), ds.get("selection") or {}
        if not isinstance(path, str):
            raise TypeError(f"dataset path {shown(path)} is not text")
        configs = [SweepConfig(c["key"], from_dict(c["strategy"]), c["base"], c["params"])
                   for c in info.config["configs"]]
        recorded_model = str(info.config["embedding"]["model_id"])
        stored = str(ds["name"]) if ds.get("stored") and not dataset_dir else ""  # a set stored in the data folder
    qset = (ws.questions.question_set(stored).qset if stored
            else load_question_set(path, max_file_mb=max_file_mb))
    if not allow_changed and (qset.questions_hash != ds["questions_sha256"]
                              or any(qset.corpus_hashes.get(c) != h for c, h in corpora.items())):
        raise DatasetError(f"the question set at {qset.root} changed since run {info.id}")
    with recorded(info):
        qset = qset.subset(sel.get("limit"), sel.get("corpus"), sel.get("questions"))
    started = datetime.now(timezone.utc)
    sweep = run_sweep(ws, qset, configs, progress, cancel)
    llm_model = judge_model = None
    if info.kind == "answers":
        from workbench.core.evaluate.judge import answer_and_judge, backend_name

        answer_and_judge(ws, backend, qset, sweep, progress, cancel, judge=judge)
        llm_model, judge_model = backend_name(backend), backend_name(judge if judge is not None else backend)
    if ws.corpus.embedder.model_id != recorded_model:
        sweep.warnings.append(f"embedding model differs from the recorded run ({recorded_model})")
    kind = "retrieval" if info.kind == "advice" else info.kind  # an advice run's confirm half, run again
    new_id = save_run(ws, qset, sweep, label=f"re-run of {info.id}", kind=kind, seed=info.config.get("seed", 0),
                      started=started, selection=sel, llm_model=llm_model, judge_model=judge_model)
    return new_id, sweep
