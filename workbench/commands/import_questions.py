"""``workbench import-questions FORMAT SOURCE --set NAME``: a benchmark of the field, from files the person
supplies, into a question set stored in the data folder. Its documents are indexed, every span is checked against
the stored text; how each reference was found, every question left out, the rows merged and what was skipped (by
reason) is said. ``--preview`` says the same from the files alone, with the first questions and their references,
and writes nothing (no data folder is opened)."""

from __future__ import annotations

import argparse

from workbench.commands.common import UserError, add_common, emit, existing_path, open_workspace, progress_printer

FORMATS = ("chroma", "legalbench-rag", "qasper", "ragbench", "hicbench", "gutenqa", "mtcb", "squad")


def run(args: argparse.Namespace) -> int:
    from workbench.core.evaluate.importers import READERS, import_parsed
    from workbench.core.evaluate.question_set import DatasetError
    from workbench.core.evaluate.stored_question_sets import check_set_name

    source = existing_path(args.source, f"{args.format} file or folder")
    assert source is not None
    try:
        check_set_name(args.set)
        parsed = READERS[args.format](source)
    except (DatasetError, ValueError) as exc:
        raise UserError(str(exc)) from None
    if args.preview:
        from workbench.core.evaluate.importers.base import preview

        seen = preview(parsed)
        data = {**seen.report.as_dict(), "set": args.set, "questions": seen.questions,
                "first": [{"item": i, "question": q, "references": refs} for i, q, refs in seen.first]}
        emit(args, data, "\n".join(seen.lines() + ["nothing was written (--preview)"]))
        return 0
    ws = open_workspace(args)
    try:
        report = import_parsed(ws, parsed, args.set, args.format, progress_printer(args.quiet))
    except DatasetError as exc:
        raise UserError(str(exc)) from None
    lines = report.lines() + [f"see it: workbench questions show {args.set}; evaluate: workbench eval {args.set}"]
    emit(args, report.as_dict(), "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("import-questions", help="import a benchmark's questions and evidence spans (chroma, "
                                                "legalbench-rag, qasper, ragbench, hicbench, gutenqa, mtcb, squad) "
                                                "into a question set stored in the data folder")
    p.add_argument("format", choices=FORMATS, metavar="FORMAT", help=f"one of {', '.join(FORMATS)}")
    p.add_argument("source", metavar="SOURCE", help="the benchmark's file or folder (see docs/evaluation.md)")
    p.add_argument("--set", required=True, metavar="NAME", help="the new question set's name")
    p.add_argument("--preview", action="store_true",
                   help="read the benchmark and locate every reference in its files, print the report and the first "
                        "questions with their references, and write nothing")
    add_common(p)
    p.set_defaults(func=run)
