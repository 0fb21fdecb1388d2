"""``workbench eval``: measure strategies against a question set, compare and re-run recorded runs
(``workbench runs`` is in ``evaluate_runs``)."""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.cluster_options import add_cluster_options
from workbench.commands.common import (
    UserError,
    add_common,
    emit,
    finite_float,
    open_workspace,
    output_folder,
    progress_printer,
    say,
    size_mb,
    whole_number,
)
from workbench.commands.eval_tables import (
    add_detect_option,
    against_baseline,
    answers_table,
    format_table,
    note_table_lines,
)
from workbench.commands.llm_options import (
    LLM_ADVICE,
    add_llm_options,
    check_llm_host,
    llm_choice,
    pipeline_llm_reason,
)
from workbench.commands.question_sources import check_dataset, load_dataset, stored_set_exists
from workbench.commands.search import add_strategy_options, needs_llm, strategy_from_args
from workbench.core.evaluate.answer_report import (
    accounting_lines,
    answer_accounting,
    judge_lines,
    label_changes,
)
from workbench.core.evaluate.baseline import resolve_baseline
from workbench.core.evaluate.curves import budget_curves, curve_lines, sweep_configs
from workbench.core.evaluate.datasets import DatasetError, load_question_set
from workbench.core.evaluate.export import ExportError, export_results, summary_rows
from workbench.core.evaluate.judge import answer_and_judge, backend_name
from workbench.core.evaluate.records import Selection, load_run, rerun, save_run
from workbench.core.evaluate.statistics import compare_paired
from workbench.core.evaluate.sweep import compare_rows, run_sweep
from workbench.core.evaluate.sweep_checks import (
    SWEEP_UNASKED,
    MissingLLM,
    llm_step_problem,
    llm_steps,
    model_problem,
    sweep_size_problem,
)
from workbench.core.outputs import RESULTS

if TYPE_CHECKING:
    from workbench.core.evaluate.records import RunInfo
    from workbench.core.evaluate.sweep import ConfigResult, SweepConfig, SweepResult
    from workbench.core.llm.base import Backend
    from workbench.core.llm.open import LLMChoice
    from workbench.core.retrieve.strategy.presets import Strategy
    from workbench.core.workspace import Workspace

def _strategies(args: argparse.Namespace) -> list[Strategy]:
    out = []
    for spec in args.strategy or [None]:
        ns = copy.copy(args)
        ns.strategy = spec
        out.append(strategy_from_args(ns))
    return out


def _report(args: argparse.Namespace, ws: Workspace, sweep: SweepResult, run_id: str, title: str,
            shown: Sequence[str] = (), sample: str = "") -> None:
    """Print the run's table (and export it with ``--out``); the sweep's warnings go to stderr, but those in
    ``shown`` (printed before the run); ``sample`` says how a ``--limit`` drew the questions."""
    rows = summary_rows(sweep.results)
    for row in rows:
        row["run_id"] = run_id
    notes = note_table_lines(sweep.results, rows)  # before the table: it marks those rows [!]
    lines = [format_table(rows), *notes, *answers_table(sweep.results, rows)]
    lines += against_baseline(sweep.results, rows, getattr(args, "baseline", None), args.detect)
    data: object = rows
    if getattr(args, "budgets", None):
        curves = budget_curves(sweep.results)
        lines += curve_lines(curves)
        data = {"rows": rows, "curves": curves}
    if sample:
        lines.append(f"\n{sample}")
    if sweep.scope_line:
        lines.append(f"{'' if sample else chr(10)}{sweep.scope_line}")
    gap = "" if sweep.scope_line or sample else "\n"
    lines.append(f"{gap}run {run_id} recorded in {ws.data_dir} ({sweep.seconds:.1f} s)")
    failed = ""
    if args.out:
        names = {doc_id: cid for cid, doc_id in sweep.doc_ids.items()}
        try:
            files = export_results(args.out, sweep.results, names, title, {"run_id": run_id})
            lines.append("wrote " + ", ".join(str(p) for p in files.values()))
        except ExportError as exc:
            failed = f"--out: {exc}; run {run_id} is recorded (workbench runs --show {run_id} --out DIR writes it)"
    for w in sweep.warnings:
        if w not in shown:
            say(f"warning: {w}", err=True)
    emit(args, data, "\n".join(lines))
    if failed:  # the table is shown, then one line says what was not written
        raise UserError(failed)


def _pick(ws: Workspace, ref: str) -> tuple[RunInfo, list[ConfigResult]]:
    """``RUN`` or ``RUN:N`` (N = 1-based configuration number) → (info, results)."""
    run, _, n = ref.partition(":")
    info, results = load_run(ws, run)
    if n:
        if not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= len(results):
            raise UserError(f"{ref}: the run has configurations 1-{len(results)}")
        results = [results[int(n) - 1]]
    return info, results


def run_compare(args: argparse.Namespace, ws: Workspace) -> int:
    (ia, ra), (ib, rb) = _pick(ws, args.compare[0]), _pick(ws, args.compare[1])
    keys_b = {r.config.key: r for r in rb}
    pairs = [(a, keys_b[a.config.key]) for a in ra if a.config.key in keys_b]
    if not pairs:
        if len(ra) != 1 or len(rb) != 1:
            raise UserError("the runs share no configuration; pick one of each as RUN:N "
                            f"({ia.id}: {len(ra)}, {ib.id}: {len(rb)} configurations)")
        pairs = [(ra[0], rb[0])]
    data, lines = [], []
    for a, b in pairs:
        c = compare_rows(a.rows, b.rows, args.threshold)
        labels = label_changes(a.rows, b.rows)
        data.append({"a": {"run": ia.id, "key": a.config.key}, "b": {"run": ib.id, "key": b.config.key},
                     "threshold": c.threshold, "unchanged": c.unchanged, "only_in_one": c.only_in_one,
                     "fixed": [vars(x) for x in c.fixed], "broke": [vars(x) for x in c.broke],
                     "label_changes": labels})
        lines.append(f"{ia.id} [{a.config.key}] → {ib.id} [{b.config.key}]: {len(c.fixed)} fixed, "
                     f"{len(c.broke)} broke, {c.unchanged} unchanged (recall moved by more than {c.threshold:g})")
        for tag, items in (("fixed", c.fixed), ("broke", c.broke)):
            lines += [f"  {tag:<5} #{x.q_index:<4} recall {x.before * 100:5.1f} → {x.after * 100:5.1f}  {x.question}"
                      for x in items]
        if any(r.label for r in a.rows) and any(r.label for r in b.rows):
            acc = answer_accounting(a.rows, b.rows)
            data[-1]["answers"] = acc
            lines += [f"  {line}" for line in accounting_lines(acc) + judge_lines(a.rows, b.rows)]
        else:
            lines += [f"  label #{x['q_index']:<4} {x['before']} → {x['after']}  {x['question']}" for x in labels]
        stats = compare_paired(a.rows, b.rows, target_points=args.detect)
        data[-1]["statistics"] = stats.to_dict()
        lines.append("  statistics (A = left run, B = right run, paired by question):")
        lines += [f"    {line}" for line in stats.lines()]
    emit(args, data, "\n".join(lines))
    return 0


def run_eval(args: argparse.Namespace) -> int:
    output_folder(args.out, RESULTS)
    if args.dataset:  # a folder, a stored set or a bundled set's name: refused before the store is changed
        check_dataset(args, args.dataset)
    from workbench.core.llm import opener_for

    choice = llm_choice(args)
    if args.answers or any(needs_llm(s) for s in _strategies(args)):
        check_llm_host(choice)
    if args.compare:
        return run_compare(args, open_workspace(args, existing=True))
    progress = progress_printer(args.quiet)
    if args.rerun:
        ws = open_workspace(args, existing=True)
        backend = judge = None
        if _recorded_kind(ws, args.rerun) == "answers":  # an answers run answers and judges again
            backend = _judge_backend(choice)
            judge = _judge_backend(_judge_choice(choice, args.judge_model)) if args.judge_model else backend
        chosen = backend
        ws.use_llm(opener_for(choice) if chosen is None else (lambda: chosen))
        try:
            run_id, sweep = rerun(ws, args.rerun, args.dataset, progress, backend=backend, judge=judge,
                                  max_file_mb=_max_file_mb(args))
        except MissingLLM as exc:
            raise UserError(f"{exc} ({LLM_ADVICE})") from None
        _report(args, ws, sweep, run_id, f"re-run of {args.rerun}")
        return 0
    if not args.dataset:
        raise UserError("give a question set folder (DATASET_DIR), --compare RUN_A RUN_B or --rerun RUN")
    stored = not Path(args.dataset).expanduser().exists() and stored_set_exists(args, args.dataset)
    if args.reviewed_only and not stored:
        raise UserError("--reviewed-only applies to a set stored in the data folder (workbench questions list)")
    try:
        if stored:
            qset = load_dataset(args, open_workspace(args), args.dataset, args.reviewed_only)
        else:
            qset = load_question_set(args.dataset, follow_links=args.follow_links, max_file_mb=_max_file_mb(args))
        whole = qset.subset(corpus=args.corpus)
        qset = whole.stratified(args.limit, args.seed) if args.limit else whole
        warnings: list[str] = []
        configs = sweep_configs(_strategies(args), args.grid, args.budgets, warnings)
    except (DatasetError, ValueError) as exc:
        raise UserError(str(exc)) from None
    duplicates = qset.duplicate_note()  # said now, before a long run; recorded with the run
    for w in [*warnings, *([duplicates] if duplicates else [])]:
        say(f"warning: {w}", err=True)
    if not configs:
        raise UserError("no configuration left to run")
    problem = model_problem(configs)  # a grid's model=/folder or a strategy's "model": before any work
    if problem:
        raise UserError(problem)
    check_sweep_size(configs, len(qset.questions), args.yes)
    if args.baseline is not None:
        try:
            resolve_baseline([c.key for c in configs], args.baseline)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    backend = _judge_backend(choice) if args.answers else None  # refused before any question is searched
    judge = _judge_backend(_judge_choice(choice, args.judge_model)) if backend is not None and args.judge_model \
        else backend
    step_llm = backend if backend is not None else _step_llm(choice, configs)  # refused here when missing
    ws = open_workspace(args)
    ws.use_llm(opener_for(choice) if step_llm is None else (lambda: step_llm))  # LLM steps: the same LLM
    sweep = run_sweep(ws, qset, configs, progress)
    llm_model = judge_model = None
    if backend is not None:
        llm_model, judge_model = backend_name(backend), backend_name(judge)
        answer_and_judge(ws, backend, qset, sweep, progress, judge=judge)
    selection = Selection(limit=args.limit, corpus=args.corpus, budgets=args.budgets)
    sampled = len(qset.questions) < len(whole.questions)
    if sampled:  # the run says which questions, so --rerun runs the same sample
        selection["questions"] = [q.index for q in qset.questions]
        selection["sample"] = f"stratified, seed {args.seed}"
    run_id = save_run(ws, qset, sweep, label=args.label or qset.name, kind="answers" if args.answers else "retrieval",
                      llm_model=llm_model, selection=selection, judge_model=judge_model)
    _report(args, ws, sweep, run_id, f"{qset.name}: {len(qset.questions)} questions", shown=[duplicates],
            sample=qset.sample_line(whole, args.seed) if sampled else "")
    return 0


def check_sweep_size(configs: Sequence[SweepConfig], questions: int, confirmed: bool) -> None:
    """A sweep of more than ``SWEEP_UNASKED`` configurations states its size and is refused without
    ``--yes``, before the store is opened (``sweep_checks.sweep_size_problem``)."""
    problem = sweep_size_problem(configs, questions)
    if problem and not confirmed:
        raise UserError(f"{problem}; more than {SWEEP_UNASKED} configurations need --yes to start")


def _step_llm(choice: LLMChoice, configs: Sequence[SweepConfig]) -> Backend | None:
    """The generative LLM for the configurations' LLM steps (rerank, summaries), opened before the store is
    touched; None when no configuration has such a step. Without one the eval is refused in one line: rows
    labelled with a step that never ran would mislead."""
    if not any(llm_steps(c.strategy) for c in configs):
        return None
    from workbench.core.llm import opener_for
    from workbench.core.llm.open import pipeline_backend

    llm, why = pipeline_backend(opener_for(choice))
    if llm is None:
        raise UserError(llm_step_problem(configs, pipeline_llm_reason(choice, why), LLM_ADVICE))
    return llm


def _max_file_mb(args: argparse.Namespace) -> float:
    """``--max-file-mb``, or the default limit of ``workbench index``."""
    from workbench.core.ingest.documents import MAX_FILE_MB

    return MAX_FILE_MB if args.max_file_mb is None else float(args.max_file_mb)


def _recorded_kind(ws: Workspace, ref: str) -> str:
    from workbench.core.evaluate.records import find_run

    try:
        return find_run(ws, ref).kind
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None


def _judge_choice(choice: LLMChoice, model: str) -> LLMChoice:
    """The answering choice with the judge's model (same kind, host and remote consent)."""
    from dataclasses import replace

    return replace(choice, model=model)


def _judge_backend(choice: LLMChoice) -> Backend:
    """The backend that answers and judges for ``--answers``; the extractive one (chosen, or ``auto``
    without Ollama) is refused in one line: its labels would mean nothing."""
    from workbench.core.llm.no_model import JUDGE_REFUSAL, is_extractive

    if choice.kind == "extractive":
        raise UserError(JUDGE_REFUSAL)
    try:
        from workbench.core.llm import open_backend

        backend = open_backend(choice)
    except Exception as exc:  # no backend: one line for the user, the retrieval run is not recorded
        raise UserError(f"no answering backend: {exc}") from None
    if is_extractive(backend):
        raise UserError(f"{JUDGE_REFUSAL} (no Ollama server answered)")
    return backend


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="measure strategies against a question set (recall, precision, IoU, MRR)")
    p.add_argument("dataset", nargs="?", metavar="DATASET",
                   help="question set: a folder in Chroma format, a set stored in the data folder (see workbench "
                        "questions list) or a bundled name (see workbench datasets)")
    add_strategy_options(p, repeatable=True)
    p.add_argument("--grid", help='sweep, e.g. "window=0,1,2 chunk_size=100,200 top_k=3,5"; chunkers and '
                                  'embedding models too: "chunker=fixed,recursive '
                                  'model=default,ollama:nomic-embed-text"')
    p.add_argument("--budgets", metavar="N,N,...",
                   help="run every strategy at each context budget (tokens), e.g. 250,500,1000,1500,2000: "
                        "recall / IoU per budget, recall at 1,000 tokens and the area under the recall curve up "
                        "to 2,000 tokens (with --json: {rows, curves})")
    p.add_argument("--limit", type=whole_number(1),
                   help="only N questions: a sample stratified by corpus (each corpus its share), drawn with --seed "
                        "and recorded with the run")
    p.add_argument("--seed", type=whole_number(0), default=0,
                   help="with --limit: the seed of the stratified sample (default 0: the same sample every time)")
    p.add_argument("--reviewed-only", action="store_true",
                   help="a stored set: leave out the drafts nobody reviewed (workbench questions review)")
    p.add_argument("--follow-links", action="store_true",
                   help="accept corpus files that are links to outside the question set's folder")
    p.add_argument("--corpus", action="append", metavar="ID", help="only questions of this corpus (repeatable)")
    p.add_argument("--max-file-mb", type=size_mb, default=None,
                   help="refuse corpus files larger than this many MB, before reading them (default 20; 0 = no limit)")
    p.add_argument("--out", type=Path, help="write summary/questions CSV + JSON and the trade-off plot here (a new "
                                            "or empty folder, or one an earlier --out wrote)")
    p.add_argument("--label", help="a label for the recorded run")
    p.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
                   help="list questions each run fixed or broke, with paired statistics (intervals, p-values) "
                        "(RUN or RUN:N for its N-th configuration)")
    p.add_argument("--threshold", type=finite_float, default=0.1, help="recall change that counts (default 0.1)")
    p.add_argument("--rerun", metavar="RUN", help="run a recorded run again (same questions and strategies)")
    p.add_argument("--answers", action="store_true", help="also answer with the local LLM and judge the answers")
    p.add_argument("--judge-model", metavar="NAME",
                   help="with --answers (or --rerun of an answers run): the model that judges the answers "
                        "(same --llm kind and host; default: the answering model, which then grades itself)")
    p.add_argument("--baseline", metavar="N|KEY",
                   help="with several configurations: compare each with this one (number from 1 or key; default "
                        "the first) with intervals and Holm-adjusted p-values")
    add_detect_option(p)
    add_common(p)
    add_llm_options(p)  # --llm answers and judges for --answers (extractive is refused: a judge needs a model)
    add_cluster_options(p)
    p.set_defaults(func=run_eval)
