"""``workbench make-questions``: a synthetic question set from your own corpus, written by a local LLM.

``CORPUS_OR_DATA`` is a folder (or file) of documents, indexed into the ``--data-dir`` workspace first and
then sampled alone; or an existing data folder; omitted, every document of the ``--data-dir`` workspace is
sampled. The set is written in Chroma's format (``questions.csv`` + ``corpora/``, plus ``generation.json``
with every dropped question and its reason) and the run is recorded (``workbench runs``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from workbench.commands.common import (
    UserError,
    add_common,
    emit,
    existing_path,
    open_workspace,
    output_folder,
    progress_printer,
    say,
    whole_number,
)
from workbench.commands.llm_options import add_llm_options, check_llm_host, llm_choice, open_llm
from workbench.core.outputs import CHROMA_SET
from workbench.core.store import DB_NAME

if TYPE_CHECKING:
    from workbench.core.llm.base import Backend
    from workbench.core.workspace import Workspace


def _source(args: argparse.Namespace) -> tuple[Workspace, list[int] | None]:
    """The workspace to sample and which of its documents."""
    src = existing_path(args.source) if args.source else None
    if src is not None and (src / DB_NAME).is_file():
        return open_workspace(argparse.Namespace(data_dir=str(src), model=args.model)), None
    ws = open_workspace(argparse.Namespace(data_dir=args.data_dir, model=args.model))
    if src is None:
        return ws, None
    report = ws.add_paths([str(src)], progress=progress_printer(args.quiet))
    paths = report.added + report.updated + report.unchanged
    ids = [ref.id for p in paths if (ref := ws.records.document_by_path(p)) is not None]
    if not ids:
        raise UserError(f"no readable .txt, .md, .html or .pdf files in {args.source}")
    return ws, ids


def _writer(args: argparse.Namespace) -> tuple[Workspace, list[int] | None, Backend]:
    """What drafts questions, whichever way they are kept: the corpus (``--source`` or the data folder's
    documents, checked non-empty) and the opened LLM, said on stderr."""
    if args.source:
        existing_path(args.source)
    choice = llm_choice(args)
    check_llm_host(choice)
    ws, doc_ids = _source(args)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first, or pass a folder of documents")
    llm = open_llm(choice, needs="make-questions")
    if not args.quiet:
        say(f"writing questions with {llm.label}", err=True)
    return ws, doc_ids, llm


def _into_stored_set(args: argparse.Namespace) -> int:
    """Drafts appended to a set stored in the data folder, unreviewed, each with its model and passage."""
    from workbench.core.evaluate.stored_question_sets import check_set_name
    from workbench.core.evaluate.synthetic import generate_questions, store_drafts

    try:
        check_set_name(args.set)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    ws, doc_ids, llm = _writer(args)
    result = generate_questions(ws, llm, n=args.n, seed=args.seed, two_part=args.two_part,
                                stratified=not args.random, doc_ids=doc_ids, max_attempts=args.max_attempts,
                                progress=progress_printer(args.quiet))
    run_id = store_drafts(ws, args.set, result)
    u = result.usage
    data = {"set": args.set, "run_id": run_id, "kept": len(result.questions), "dropped": len(result.dropped),
            "attempts": result.attempts, "reasons": result.reasons, "llm": u.as_dict(), "model": result.model}
    lines = [f"{len(result.questions)} draft(s) kept of {result.attempts} tried, added to {args.set!r} unreviewed",
             f"dropped {len(result.dropped)}: " + (", ".join(f"{k} {v}" for k, v in result.reasons.items()) or "none"),
             f"recorded as run {run_id} (every drop with its reason: workbench runs --show {run_id})",
             f"review them: workbench questions review {args.set}; evaluate: workbench eval {args.set}"]
    emit(args, data, "\n".join(lines))
    return 0


def run(args: argparse.Namespace) -> int:
    from workbench.core.evaluate.datasets import QUESTIONS_FILE
    from workbench.core.evaluate.synthetic import make_question_set

    if args.n < 1:
        raise UserError("--n must be at least 1")
    if (args.out is None) == (args.set is None):
        raise UserError("give --set NAME (drafts stored in the data folder, to review) or --out DIR (a folder in "
                        "Chroma's format), not both")
    if args.set is not None:
        return _into_stored_set(args)
    out = output_folder(args.out, CHROMA_SET)
    assert out is not None
    if (out / QUESTIONS_FILE).exists() and not args.force:
        raise UserError(f"{out / QUESTIONS_FILE} exists: choose another --out or pass --force to replace it")
    ws, doc_ids, llm = _writer(args)
    result = make_question_set(ws, out, llm, n=args.n, seed=args.seed, two_part=args.two_part,
                               stratified=not args.random, doc_ids=doc_ids, max_attempts=args.max_attempts,
                               progress=progress_printer(args.quiet))
    if result.qset is None:
        raise UserError("no question set was written")
    root = result.qset.root
    u = result.usage
    data = {"out": str(root), "run_id": result.run_id, "kept": len(result.questions),
            "dropped": len(result.dropped), "attempts": result.attempts, "reasons": result.reasons,
            "llm": u.as_dict(), "model": result.model, "backend": result.backend}
    lines = [f"{len(result.questions)} question(s) kept of {result.attempts} tried, written to {root}",
             f"dropped {len(result.dropped)}: " + (", ".join(f"{k} {v}" for k, v in result.reasons.items()) or "none"),
             f"LLM ({result.backend} {result.model}): {u.calls} calls, {u.cached} from the cache, "
             f"{u.prompt_tokens} prompt + {u.output_tokens} output tokens, {u.seconds:.1f} s",
             f"recorded as run {result.run_id}; every drop with its reason: {root / 'generation.json'}"]
    if len(result.questions) < args.n:
        lines.append(f"warning: only {len(result.questions)} of {args.n} questions were usable "
                     "(raise --max-attempts or use a stronger model)")
    lines.append(f"evaluate: workbench eval {root}")
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("make-questions", help="write a synthetic question set from your corpus with a local LLM")
    p.add_argument("source", nargs="?", metavar="CORPUS_OR_DATA",
                   help="a folder of documents (indexed first) or a data folder (default: the --data-dir workspace)")
    p.add_argument("--n", type=whole_number(1, 100_000), default=50, help="questions to keep (default 50)")
    p.add_argument("--set", metavar="NAME", help="add the drafts to this question set in the data folder "
                                                 "(created when missing), unreviewed: workbench questions review NAME")
    p.add_argument("--out", metavar="DIR", help="or: write questions.csv and corpora/ into this folder "
                                                "(new or empty, or one make-questions wrote)")
    p.add_argument("--seed", type=whole_number(0, 2**32 - 1), default=0, help="passage sampling seed (default 0)")
    p.add_argument("--two-part", action="store_true",
                   help="questions needing two separate parts of a window (why, then how)")
    p.add_argument("--random", action="store_true", help="sample passages at random (default: stratified by document)")
    p.add_argument("--max-attempts", type=whole_number(1), help="passages to try at most (default 4 × --n)")
    p.add_argument("--force", action="store_true", help="replace an existing questions.csv in --out")
    add_common(p)
    add_llm_options(p, llm_meant_by_model=True)
    p.set_defaults(func=run)
