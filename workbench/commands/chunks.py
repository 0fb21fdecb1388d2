"""``workbench chunks export STRATEGY``: a strategy's chunks (spans, text, embedded text, tokens, heading path,
chunker) written to JSON Lines, CSV or Parquet, optionally with their vectors."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.commands.common import UserError, add_common, emit, open_workspace
from workbench.commands.strategy_sets import named_strategy, strategy_set
from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.inspect.chunk_export import EXPORT_FORMATS, ExportError, check_target


def export(args: argparse.Namespace) -> int:
    from workbench.core.inspect.chunk_export import exported_chunks, write_chunk_export

    strategy = named_strategy(args, args.strategy)
    out = Path(args.out).expanduser()
    try:
        check_target(out, args.format, args.vectors, args.force)  # refused before the store is touched
    except ExportError as exc:
        raise UserError(str(exc)) from None
    ws = open_workspace(args, existing=True)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    rt = strategy_set(ws, strategy, args)
    rows = exported_chunks(rt, ws.corpus.document)
    vectors = rt.index.vectors_for(rt.table.ids) if args.vectors else None
    try:
        result = write_chunk_export(rows, out, args.format, vectors, args.force)
    except ExportError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    side = f"; vectors (float32, one row per chunk in row order) in {result.vectors_path}" \
        if result.vectors_path else (" with a float32 vector column" if vectors is not None else "")
    record = {"path": str(result.path), "rows": result.rows, "format": args.format, "set_id": rt.info.id,
              "chunk_set": chunking_label(rt.info.config),
              "vectors_path": str(result.vectors_path) if result.vectors_path else None}
    emit(args, record, f"wrote {result.rows} chunk(s) of {chunking_label(rt.info.config)} to {result.path}{side}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chunks", help="a strategy's chunks: export (to JSON Lines, CSV or Parquet)")
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    e = acts.add_parser("export", help="write a strategy's chunks with their spans, text, embedded text, tokens, "
                                       "heading path and chunker (the chunk set is built when missing)")
    e.add_argument("strategy", metavar="STRATEGY", help="a named strategy (see 'workbench strategies') or a JSON "
                                                        "object, as --strategy takes")
    e.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl",
                   help="jsonl (default), csv (the heading path as a JSON list) or parquet (needs pyarrow)")
    e.add_argument("--out", required=True, metavar="PATH", help="the file to write (refused when it exists)")
    e.add_argument("--vectors", action="store_true",
                   help="add each chunk's float32 vector: a list column in Parquet, else a side file "
                        "PATH-without-suffix.vectors.npy in row order")
    e.add_argument("--force", action="store_true",
                   help="overwrite an existing --out (and its .npy): a regular file only, never a link, FIFO, device "
                        "or folder")
    add_common(e)
    e.set_defaults(func=export)
