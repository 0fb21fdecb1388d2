"""The ``workbench`` command: drives ``workbench.core`` headless, one sub-command per action.

Every error the user can cause (bad path, empty corpus, bad option) ends with a one-line message on
stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence

from workbench import __version__
from workbench.core.jobs import Cancelled, ProgressEvent


class UserError(Exception):
    """An error caused by input; printed as one line."""


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every data command takes."""
    p.add_argument("--data-dir", help="data folder (default: $WORKBENCH_DATA or the per-user data folder)")
    p.add_argument("--model", help="local sentence-transformers folder (default: packaged all-MiniLM-L6-v2)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_chunk_options(p: argparse.ArgumentParser) -> None:
    """Chunking options (they select or build a chunk set)."""
    p.add_argument("--chunk-size", type=int, help="chunk size in units (default 200 tokens)")
    p.add_argument("--overlap", type=int, help="overlap between chunks in units (default 0)")
    p.add_argument("--unit", choices=["tokens", "words", "sentences"], help="chunk unit (default tokens)")
    p.add_argument("--structure-aware", action="store_true", default=None,
                   help="split on headings and paragraphs before size")
    p.add_argument("--heading-path", action="store_true", default=None,
                   help="embed 'title > headings: text' (heading-path contextual embedding)")


def progress_printer(quiet: bool) -> Callable[[ProgressEvent], None]:
    """A progress sink writing at most one line a second to stderr."""
    last = [0.0]

    def show(ev: ProgressEvent) -> None:
        if quiet:
            return
        if not ev.total and ev.message:  # a notice, e.g. "waiting for another writer (pid N)…"
            print(f"[{ev.stage}] {ev.message}", file=sys.stderr, flush=True)
            return
        now = time.monotonic()
        if now - last[0] < 1.0 and ev.done < ev.total:
            return
        last[0] = now
        rate = f", {ev.rate:.1f}/s" if ev.rate else ""
        left = f", ~{ev.remaining_s:.0f}s left" if ev.remaining_s else ""
        print(f"[{ev.stage}] {ev.done}/{ev.total}{rate}{left} {ev.message}".rstrip(), file=sys.stderr, flush=True)

    return show


def open_workspace(args: argparse.Namespace):  # noqa: ANN201
    """The workspace named by ``--data-dir`` / ``--model``."""
    from workbench.core.store import StoreError
    from workbench.core.workspace import Workspace

    try:
        return Workspace(args.data_dir, model_path=getattr(args, "model", None))
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except RuntimeError as exc:
        raise UserError(str(exc)) from None


def emit(args: argparse.Namespace, data: object, text: str) -> None:
    """Print JSON with ``--json``, else the human text."""
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser: every module in ``workbench.commands`` registers its sub-commands."""
    import importlib
    import pkgutil

    import workbench.commands as commands

    parser = argparse.ArgumentParser(
        prog="workbench", description="Chunk Workbench: chunking and context expansion for RAG, offline."
    )
    parser.add_argument("--version", action="version", version=f"chunk-workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"workbench.commands.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``workbench`` console script."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from workbench.core.storage_errors import StoreError

    try:
        return int(args.func(args) or 0)
    except (UserError, StoreError) as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # damage met while reading a store that passed its open checks
        print(f"workbench: error: the database cannot be read ({exc}); run `workbench verify`", file=sys.stderr)
        return 1
    except (ValueError, KeyError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"workbench: error: {msg}", file=sys.stderr)
        return 1
    except Cancelled:
        print("workbench: cancelled", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    # `python -m workbench.cli`: run the imported module's main, so that commands (which import
    # `workbench.cli`) raise the same UserError class that main catches
    from workbench.cli import main as _main

    sys.exit(_main())
