"""Sweeps: run strategies × a parameter grid over a question set, and compare runs question by question.

Chunk sets are built once per chunk configuration (cached embeddings are reused by the workspace), the
questions are embedded once, in one batch (``ws.corpus.query_vectors``, cached in the store), and
everything right of the search step runs in memory.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict

from workbench.core.evaluate.datasets import QuestionSet, index_corpora
from workbench.core.evaluate.metrics import QuestionMetrics, Stat, question_metrics, summarize
from workbench.core.evaluate.sweep_checks import check_llm_steps, model_problem
from workbench.core.index.build import CUT_CHARS_PER_S, UNMEASURED_CHARS_PER_S, IngestReport
from workbench.core.index.embedder_pool import normalise_model_spec
from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.chunkers.registry import get_kind
from workbench.core.jobs import CancelToken, JobPlan, ProgressSink, Reporter
from workbench.core.retrieve.steps.base import step_knobs
from workbench.core.retrieve.strategy.names import run_names
from workbench.core.retrieve.strategy.presets import Strategy, override, resolve
from workbench.core.retrieve.strategy.search_config import parse_coarse
from workbench.core.spans import Span
from workbench.core.store import Scope

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace

# grid key → the flat strategy field it changes (``strategy_json.override`` reads it)
GRID_KEYS = {
    "chunk_size": "size", "size": "size", "overlap": "overlap", "window": "window", "top_k": "top_k",
    "k": "top_k", "budget": "budget", "window_tokens": "window_tokens", "parent_size": "parent_size",
    "candidate_k": "candidate_k", "chunker": "chunker", "model": "model", "coarse": "coarse",
}


def grid_keys() -> dict[str, str]:
    """Every grid key: ``GRID_KEYS`` and the number knobs of the registered later steps (``per_doc_cap`` …)."""
    steps = {knob.field: knob.field for _, knob in step_knobs() if not knob.choices and knob.maximum > 1}
    return GRID_KEYS | steps
TEXT_KEYS = {"chunker", "model", "coarse"}  # grid keys whose values are names, not numbers
DISPLAY = {"size": "chunk_size"}


GridValue = int | str  # a grid value: a number, or a name (chunker, model, coarse levels)


class JudgeNotes(TypedDict, total=False):
    """What answering and judging one question recorded beside its label (``judge.answer_and_judge``)."""

    reason: str  # the judge's reason
    input_tokens: int  # the answer prompt's tokens
    judge_attempts: int
    covered: bool  # the corpus answers the question


@dataclass(frozen=True)
class SweepConfig:
    """One point of a sweep: a base strategy with some grid values applied."""

    key: str
    strategy: Strategy
    base: str
    params: dict[str, GridValue] = field(default_factory=dict[str, GridValue], hash=False, compare=False)


@dataclass
class QuestionResult:
    """One question under one configuration: spans returned (rank order), metrics, optional answer."""

    q_index: int
    question: str
    corpus_id: str
    spans: list[Span]
    metrics: QuestionMetrics
    answer: str | None = None
    label: str | None = None
    extra: JudgeNotes = field(default_factory=lambda: JudgeNotes())


@dataclass
class ConfigResult:
    """All questions under one configuration; ``notes``: each warning its searches gave (a step that failed
    or was skipped, a cap that left fewer hits …) and on how many questions."""

    config: SweepConfig
    rows: list[QuestionResult] = field(default_factory=list)
    seconds: float = 0.0
    notes: dict[str, int] = field(default_factory=dict[str, int])

    @property
    def summary(self) -> dict[str, Stat]:
        """Mean ± std of every metric."""
        return summarize([r.metrics for r in self.rows])


@dataclass
class SweepResult:
    """The outcome of a sweep, one ``ConfigResult`` per configuration, in order. ``doc_ids`` maps every corpus
    searched to its stored document; ``scope`` is those documents (nothing else was searched) and
    ``scope_line`` says so for people."""

    results: list[ConfigResult]
    doc_ids: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    scope: Scope | None = None
    scope_line: str = ""

    def by_key(self, key: str) -> ConfigResult:
        """The result of one configuration."""
        for r in self.results:
            if r.config.key == key:
                return r
        raise KeyError(f"no configuration {key!r}")


def parse_grid(text: str | None) -> dict[str, list[int | str]]:
    """``"window=0,1,2 chunk_size=100,200"`` → ``{"window": [0, 1, 2], "chunk_size": [100, 200]}``.

    ``chunker=fixed,recursive,semantic`` takes chunker names (default parameters); with it, ``size`` goes
    to each chunker's size parameter (``size``, else ``max_tokens``; see ``chunkers.choice``).
    ``model=default,ollama:nomic-embed-text`` takes embedding models (``default``: the workspace's; a local
    sentence-transformers folder also works): one chunk set, and one row, per model.
    ``coarse=none,100:1+200:1`` takes multi-granularity levels (``none``: the fine set alone)."""
    grid: dict[str, list[int | str]] = {}
    keys = grid_keys()
    for part in (text or "").replace(";", " ").split():
        name, sep, values = part.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not values.strip():
            raise ValueError(f"grid entry {part!r} must look like name=1,2,3")
        if name not in keys:
            raise ValueError(f"unknown grid parameter {name!r}; use {', '.join(sorted(keys))}")
        nums: list[int | str]
        if name == "model":
            nums = [normalise_model_spec(v) or "default" for v in values.split(",") if v.strip()]
        elif name == "coarse":  # "none" = the fine set alone; else SIZE:HITS+SIZE:HITS
            levels = [v for v in (x.strip() for x in values.split(",")) if v]
            for v in levels:
                if v != "none":
                    parse_coarse(v)  # a malformed level is refused with its own message
            nums = list(levels)
        elif name in TEXT_KEYS:
            nums = [get_kind(v.strip()).name for v in values.split(",") if v.strip()]  # unknown: refused
        else:
            nums = _numbers(name, values)
        canonical = DISPLAY.get(keys[name], keys[name])
        grid[canonical] = list(dict.fromkeys(grid.get(canonical, []) + nums))
    return grid


def _numbers(name: str, values: str) -> list[int | str]:
    try:
        return [int(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"grid values of {name!r} must be whole numbers: {values!r}") from None


def config_key(base: str, params: Mapping[str, int | str]) -> str:
    """A readable unique key: ``plain`` or ``plain chunk_size=100 window=1``."""
    return " ".join([base, *(f"{k}={v}" for k, v in params.items())])


def expand_grid(strategies: Sequence[Strategy | str], grid: Mapping[str, Sequence[int | str]] | str | None = None,
                warnings: list[str] | None = None) -> list[SweepConfig]:
    """Every strategy × every grid combination. Combinations a strategy rejects (e.g. overlap ≥ chunk
    size) are skipped with a note in ``warnings``. Each strategy's configurations are keyed by its name in
    the run (``strategy_names.run_names``: a preset's or the user's name, else what differs from the nearest
    preset), so every key is distinct and says what it is."""
    if isinstance(grid, str) or grid is None:
        grid = parse_grid(grid)
    names = list(grid)
    keys = grid_keys()
    configs: list[SweepConfig] = []
    bases = [resolve(spec) for spec in strategies]
    for base, name in zip(bases, run_names(bases), strict=True):
        for values in itertools.product(*(grid[n] for n in names)):
            params = dict(zip(names, values, strict=True))
            changes = {keys[n]: ("" if n == "coarse" and v == "none" else v) for n, v in params.items()}
            try:
                strategy = _with_chunker(override(base, **{k: v for k, v in changes.items() if k != "chunker"}),
                                         changes.get("chunker"), changes.get("size"))
            except ValueError as exc:
                if warnings is not None:
                    warnings.append(f"skipped {config_key(name, params)}: {exc}")
                continue
            configs.append(SweepConfig(config_key(name, params), strategy, name, params))  # names are distinct
    return configs


def run_sweep(
    ws: EvalWorkspace,
    qset: QuestionSet,
    configs: Sequence[SweepConfig],
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
) -> SweepResult:
    """Run every configuration on every question; stores the corpora first when needed.

    Exactly the question set's searched corpora are searched (``QuestionSet.searched_corpora``: every corpus
    of the set, distractors included, or those chosen with ``--corpus``), through chunk sets scoped to them:
    other documents of the data folder are neither embedded nor searched, so the same set gives the same
    numbers in any data folder.

    Refused before any work when a configuration's embedding model folder does not exist (``ValueError``) or
    it has a step that needs a generative LLM and the workspace has none (``MissingLLM``). What a step reports
    while searching (an LLM call that failed, …) is counted per
    configuration in ``ConfigResult.notes``."""
    if not configs:
        raise ValueError("nothing to run: no strategy configuration")
    if not qset.questions:
        raise ValueError("the question set has no questions")
    problem = model_problem(configs)
    if problem:
        raise ValueError(problem)
    for config in configs:  # code named by data is refused before any work (workbench.core.consent)
        ws.check_code_allowed(config.strategy)
    check_llm_steps(ws, configs)
    started = time.perf_counter()
    builds = list(dict.fromkeys((chunk, c.strategy.model) for c in configs for chunk in c.strategy.chunk_configs()))
    models = list(dict.fromkeys(c.strategy.model for c in configs))
    plan = JobPlan(progress, sweep_stages(qset, len(builds), len(models), len(configs)))
    doc_ids = index_corpora(ws, qset, None, plan.stage("reading"), cancel)
    plan.complete("reading")
    scope = Scope.of(doc_ids.values())
    other = len(ws.records.documents()) - len(scope)
    result = SweepResult([ConfigResult(c) for c in configs], doc_ids, scope=scope,
                         scope_line=qset.scope_line(max(0, other)))
    duplicates = qset.duplicate_note()
    if duplicates:  # recorded with the run: the means weigh those questions more than once
        result.warnings.append(duplicates)
    result.warnings += qset.skipped
    for n, (chunk, model) in enumerate(builds):
        built = IngestReport()  # documents a chunker could not cut are left out of its set, with a warning
        ws.sets.ensure_chunk_set(chunk, plan.stage(f"set {n}"), cancel, report=built, model=model, scope=scope)
        plan.complete(f"set {n}")
        result.warnings += built.warnings
    for n, model in enumerate(models):  # one batch per model, then cached
        ws.corpus.query_vectors([q.question for q in qset.questions], plan.stage(f"questions {n}"), cancel,
                                model=model)
        plan.complete(f"questions {n}")
    report = Reporter(plan.stage("scoring"), "evaluating", len(qset.questions) * len(configs))
    done = 0
    for q in qset.questions:
        refs = q.spans(doc_ids)
        for cr in result.results:
            if cancel is not None:
                cancel.check()
            t0 = time.perf_counter()
            sr = ws.search(q.question, cr.config.strategy, cancel=cancel, scope=scope)
            spans = sr.spans()
            metrics = question_metrics(spans, refs, sr.context.tokens, sr.context.chars)
            cr.rows.append(QuestionResult(q.index, q.question, q.corpus_id, spans, metrics))
            for note in dict.fromkeys(sr.warnings):
                cr.notes[note] = cr.notes.get(note, 0) + 1
            cr.seconds += time.perf_counter() - t0
            done += 1
            report(done, cr.config.key)
    result.seconds = time.perf_counter() - started
    return result


SEARCH_S = 0.02  # about one question searched with one configuration (weighs scoring against building)


def sweep_stages(qset: QuestionSet, builds: int, models: int, configs: int) -> list[tuple[str, float]]:
    """A sweep's stages weighted by their estimated seconds: storing the searched corpora (their files' size),
    each chunk set (those characters cut and embedded), each model's question vectors, and scoring every
    question with every configuration. Work already done (a stored corpus, a built set) is passed at once."""
    chars = 0
    for cid in qset.searched_corpora():
        try:
            chars += qset.corpora[cid].stat().st_size
        except OSError:
            continue
    build_s = chars / CUT_CHARS_PER_S + chars / UNMEASURED_CHARS_PER_S
    asked = sum(len(q.question) for q in qset.questions)
    return [("reading", chars / CUT_CHARS_PER_S), *((f"set {n}", build_s) for n in range(builds)),
            *((f"questions {n}", asked / UNMEASURED_CHARS_PER_S) for n in range(models)),
            ("scoring", len(qset.questions) * configs * SEARCH_S)]


def _with_chunker(strategy: Strategy, chunker: object, size: object) -> Strategy:
    """``strategy`` cut by the grid's ``chunker`` (if any), a grid ``size`` on that chunker's size parameter
    (without a grid chunker, ``override`` has put the size on ``strategy``'s own chunker already)."""
    if chunker is None:
        return strategy
    chunk = apply_chunker(strategy.chunk, str(chunker), size=None if size is None else int(str(size)))
    return replace(strategy, chunk=chunk) if chunk != strategy.chunk else strategy


# ----- comparison ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class QuestionChange:
    """A question whose metric moved between two runs."""

    q_index: int
    question: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        """``after - before``."""
        return self.after - self.before


@dataclass
class Comparison:
    """Questions B fixed (metric rose by more than ``threshold``) and broke (fell by more), A → B."""

    fixed: list[QuestionChange]
    broke: list[QuestionChange]
    unchanged: int
    only_in_one: int
    metric: str = "recall"
    threshold: float = 0.1


def compare_rows(rows_a: Sequence[QuestionResult], rows_b: Sequence[QuestionResult], threshold: float = 0.1,
                 metric: str = "recall") -> Comparison:
    """Match questions by index (and text) and list those whose ``metric`` moved by more than ``threshold``."""
    a = {(r.q_index, r.question): r for r in rows_a}
    b = {(r.q_index, r.question): r for r in rows_b}
    fixed, broke, same = [], [], 0
    for key in sorted(a.keys() & b.keys()):
        va, vb = getattr(a[key].metrics, metric), getattr(b[key].metrics, metric)
        if va is None or vb is None:
            continue
        change = QuestionChange(key[0], key[1], float(va), float(vb))
        if change.delta > threshold:
            fixed.append(change)
        elif -change.delta > threshold:
            broke.append(change)
        else:
            same += 1
    fixed.sort(key=lambda c: -c.delta)
    broke.sort(key=lambda c: c.delta)
    return Comparison(fixed, broke, same, len(a.keys() ^ b.keys()), metric, threshold)
