"""``workbench runs``: list, reopen (``--show``) and delete (``--delete``) recorded evaluation runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.common import UserError, add_common, emit, open_workspace, output_folder, safe_text, say
from workbench.commands.eval_tables import (
    add_detect_option,
    against_baseline,
    answers_table,
    format_table,
    note_table_lines,
)
from workbench.core.evaluate.export import ExportError, export_results, summary_rows
from workbench.core.evaluate.records import RunInfo, load_run, read_runs
from workbench.core.outputs import RESULTS

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace

MIN_DELETE_PREFIX = 8


def _run_to_delete(ws: Workspace, ref: str, yes: bool) -> RunInfo:
    """The run ``--delete`` names: its full id, or a unique prefix of at least 8 characters (any unique
    prefix with ``--yes``); otherwise a ``UserError`` listing the runs that match."""
    runs, unreadable = read_runs(ws)
    exact = [r for r in runs if r.id == ref]
    if exact:
        return exact[0]
    if ref in unreadable:  # a damaged record is deleted by its full id (nothing else of it can be read)
        return RunInfo(ref, "unreadable", "", {}, "", "", "", None, {})
    matches = [r for r in runs if r.id.startswith(ref)]
    if not matches:
        raise UserError(f"no run {ref!r} (workbench runs lists them)")
    if len(matches) == 1 and (len(ref) >= MIN_DELETE_PREFIX or yes):
        return matches[0]
    listing = "; ".join(f"{r.id} ({r.label}, {r.started})" for r in matches[:10])
    more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
    why = (f"matches {len(matches)} runs" if len(matches) > 1
           else f"is shorter than {MIN_DELETE_PREFIX} characters (pass --yes to delete it)")
    raise UserError(f"--delete {ref!r} {why}: {listing}{more}; give the full run id")


def run_runs(args: argparse.Namespace) -> int:
    if args.out is not None and not args.show:
        raise UserError("--out needs --show RUN")
    output_folder(args.out, RESULTS)
    ws = open_workspace(args, existing=True)
    if args.delete:
        info = _run_to_delete(ws, args.delete, args.yes)
        ws.records.delete_run(info.id)
        emit(args, {"deleted": info.id}, f"deleted run {info.id}")
        return 0
    if args.show:
        return _show_run(args, ws)
    runs, unreadable = read_runs(ws)
    for message in unreadable.values():  # named and left out: the other runs are listed as usual
        say(f"warning: {safe_text(message)}", err=True)
    data = [{"id": r.id, "kind": r.kind, "label": r.label, "started": r.started, "finished": r.finished,
             "questions": r.config.get("dataset", {}).get("questions"), "configs": r.config_keys,
             "code_version": r.code_version, "dataset": r.config.get("dataset", {}).get("path")} for r in runs]
    lines = [f"{r.id}  {r.started}  {r.kind:<9} {r.config.get('dataset', {}).get('questions')!s:>4} q × "
             f"{len(r.config_keys)} config(s)  {r.label}" for r in runs]
    lines = lines or ["no runs recorded yet (workbench eval DATASET_DIR)"]
    emit(args, data, "\n".join(lines))
    return 0


def _show_run(args: argparse.Namespace, ws: Workspace) -> int:
    """Reopen a recorded run: its table, and with ``--out`` its exports."""
    info, results = load_run(ws, args.show)
    rows = summary_rows(results)
    for row in rows:
        row["run_id"] = info.id
    notes = note_table_lines(results, rows)  # before the table: it marks those rows [!]
    lines = [f"run {info.id} ({info.label}, {info.started}, code {info.code_version})", format_table(rows),
             *notes, *answers_table(results, rows)]
    lines += against_baseline(results, rows, args.baseline, args.detect)
    if args.out:
        names = {int(i): d.get("corpus_id") or Path(d["path"]).name for i, d in info.config["documents"].items()}
        try:
            files = export_results(args.out, results, names, f"run {info.id}", {"run_id": info.id})
        except ExportError as exc:
            raise UserError(f"--out: {exc}") from None
        lines.append("wrote " + ", ".join(str(p) for p in files.values()))
    emit(args, rows, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("runs", help="list recorded evaluation runs")
    r.add_argument("--show", metavar="RUN", help="reopen a recorded run (its table; with --out its exports)")
    r.add_argument("--out", type=Path, help="with --show: write CSV + JSON and the trade-off plot here (a new or empty "
                                            "folder, or one an earlier --out wrote)")
    r.add_argument("--delete", metavar="RUN",
                   help=f"delete a recorded run: its full id or a unique prefix of at least {MIN_DELETE_PREFIX} "
                        "characters")
    r.add_argument("--yes", action="store_true", help="with --delete: accept a shorter unique prefix")
    r.add_argument("--baseline", metavar="N|KEY",
                   help="with --show: the configuration the others are compared with (default the first)")
    add_detect_option(r)
    add_common(r)
    r.set_defaults(func=run_runs)
