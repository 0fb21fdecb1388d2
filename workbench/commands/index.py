"""``workbench index``: add files and folders, chunk and embed them; ``workbench remove``: take documents out."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.commands.cluster_options import add_cluster_options
from workbench.commands.common import (
    EXIT_PROBLEMS,
    UserError,
    add_chunk_options,
    add_common,
    emit,
    existing_path,
    open_workspace,
    progress_printer,
    size_mb,
)
from workbench.core.ingest.chunkers.choice import apply_chunker, chunk_overlap, chunk_size, chunk_unit
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.values import ChunkConfig, max_overlap

if TYPE_CHECKING:
    from workbench.core.ingest.documents import LoadResult


def chunk_config(args: argparse.Namespace, base: ChunkConfig | None = None) -> ChunkConfig:
    """The chunk configuration named by the chunk options (over ``base`` or the defaults): ``--chunker`` (or
    ``base``'s chunker) with ``--chunk-size`` and ``--overlap`` on its size and overlap parameters; ``--unit``
    and ``--structure-aware`` are the built-in cuts' own parameters (``fixed`` / ``sentence`` / ``structure``)."""
    base = base or ChunkConfig()
    start = replace(base, unit=args.unit or base.unit,
                    structure_aware=base.structure_aware if args.structure_aware is None else args.structure_aware,
                    heading_prefix=base.heading_prefix if args.heading_path is None else args.heading_path)
    try:
        config = apply_chunker(start, getattr(args, "chunker", None), size=args.chunk_size, overlap=args.overlap)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    size, overlap, unit = chunk_size(config), chunk_overlap(config), chunk_unit(config)
    if size and overlap > max_overlap(size):  # whichever chunker: read from its own parameters
        raise UserError(f"--overlap {overlap} is too large for {size}-{unit} chunks: it must be "
                        f"below half the chunk size (at most {max_overlap(size)}), or chunking crawls")
    return config


LISTED_PROBLEMS = 20  # beyond this many skipped/failed files the text output summarises them by reason


def problem_lines(skipped: Sequence[LoadResult], failed: Sequence[LoadResult]) -> list[str]:
    """One line per skipped or failed file, or (beyond ``LISTED_PROBLEMS``) one line per status and reason."""
    rows = [("skipped", r) for r in skipped] + [("failed ", r) for r in failed]
    if len(rows) <= LISTED_PROBLEMS:
        return [f"  {status} {r.path}: {r.reason}" for status, r in rows]
    groups: dict[tuple[str, str], list[str]] = {}
    for status, r in rows:
        groups.setdefault((status, r.reason.split(" (")[0].split(":")[0]), []).append(r.path)
    lines = [f"  {status} {len(paths):>5} × {reason} (e.g. {paths[0]})"
             for (status, reason), paths in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1])))]
    return [*lines, f"  ({len(rows)} files in all; --json lists each with its full reason)"]


def run(args: argparse.Namespace) -> int:
    config = chunk_config(args)
    for path in args.paths:  # every named path must exist: refused before the store is touched
        existing_path(path)
    ws = open_workspace(args)
    report = ws.add_paths(args.paths, config, progress=progress_printer(args.quiet), max_file_mb=args.max_file_mb,
                          follow_links=args.follow_links)
    data = report.as_dict()
    data["chunk_set"] = chunking_label(config)
    data["data_dir"] = str(ws.data_dir)
    rate = report.chunks_embedded / report.seconds if report.seconds else 0.0
    data["chunks_per_s"] = round(rate, 2)
    lines = [
        f"documents: {len(report.added)} added, {len(report.updated)} updated, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed, {len(report.moved)} moved, "
        f"{len(report.skipped)} skipped, {len(report.failed)} failed",
        f"chunks ({chunking_label(config)}): {report.chunks_added} added, {report.chunks_total} in the set, "
        f"{report.chunks_embedded} embedded",
        f"time: {report.seconds:.1f} s ({rate:.1f} chunks/s embedded)",
    ]
    lines += [f"  moved   {old} -> {new}" for old, new in report.moved[:LISTED_PROBLEMS]]
    lines += [f"  removed {path} (the file is gone)" for path in report.removed[:LISTED_PROBLEMS]]
    if len(report.moved) + len(report.removed) > 2 * LISTED_PROBLEMS:
        lines.append("  (--json lists every moved and removed document)")
    lines += problem_lines(report.skipped, report.failed)
    lines += [f"warning: {w}" for w in report.warnings]
    emit(args, data, "\n".join(lines))
    if not ws.records.documents():
        large = sum(r.too_large for r in report.skipped)
        if large:  # say what truly happened: files were found, and the size limit skipped them
            others = len(report.skipped) - large
            raise UserError(f"nothing was indexed: {large} file(s) over the size limit (--max-file-mb) were skipped"
                            + (f", {others} skipped for other reasons" if others else "")
                            + (f", {len(report.failed)} failed" if report.failed else ""))
        raise UserError("nothing was indexed: no readable .txt, .md, .html or .pdf files were found")
    if args.strict and (report.skipped or report.failed):
        print(f"workbench: --strict: {len(report.skipped)} file(s) skipped, {len(report.failed)} failed "
              f"(exit status {EXIT_PROBLEMS})", file=sys.stderr)
        return EXIT_PROBLEMS
    return 0


def run_remove(args: argparse.Namespace) -> int:
    """``workbench remove PATH…``: the stored documents at or under each path leave the index (the path need
    not exist any more: a deleted folder's documents can go); files on disk are not touched."""
    ws = open_workspace(args, existing=True)
    removed = ws.remove_paths(args.paths)
    if not removed:
        raise UserError(f"no indexed document at or under {', '.join(args.paths)} (see 'workbench docs')")
    lines = [f"removed {len(removed)} document(s) from the index (files on disk are not touched)"]
    lines += [f"  removed {path}" for path in removed[:LISTED_PROBLEMS]]
    if len(removed) > LISTED_PROBLEMS:
        lines.append(f"  … and {len(removed) - LISTED_PROBLEMS} more (--json lists every one)")
    emit(args, {"removed": removed, "data_dir": str(ws.data_dir)}, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("index", help="add files/folders (txt, md, html, pdf) and embed their chunks")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (folders are read recursively)")
    p.add_argument("--strict", action="store_true",
                   help=f"exit with status {EXIT_PROBLEMS} when any file was skipped or failed "
                        "(after indexing the rest)")
    p.add_argument("--max-file-mb", type=size_mb, default=None,
                   help="skip files larger than this many MB (default 20; 0 = no limit)")
    p.add_argument("--follow-links", action="store_true",
                   help="also read files and folders that links inside a folder point to outside it "
                        "(default: report them as skipped)")
    add_chunk_options(p)
    add_common(p)
    add_cluster_options(p)
    p.set_defaults(func=run)
    p = sub.add_parser("remove", help="take the documents at or under files/folders out of the index (also of "
                                      "folders deleted from disk); files are not touched")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files or folders as indexed; they need not exist any more")
    add_common(p)
    p.set_defaults(func=run_remove)
