"""The ``workbench`` command: drives ``workbench.core`` headless, one sub-command per action.

Every error the user can cause (bad path, empty corpus, bad option) ends with a one-line message on
stderr and a non-zero exit, never a traceback. ``EXIT_STATUSES`` lists what a script can rely on.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from workbench import __version__
from workbench.commands.cluster_options import check_cluster, close_cluster
from workbench.commands.common import (
    EXIT_CANCELLED,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_STATUSES,
    EXIT_USAGE,
    UsageError,
    UserError,
    allow_named_code,
    check_common_paths,
    check_not_empty,
    exception_sentence,
    exit_status_text,
    safe_text,
    say,
)
from workbench.commands.llm_options import resolve_llm_options
from workbench.core.jobs import Cancelled

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["EXIT_CANCELLED", "EXIT_ERROR", "EXIT_OK", "EXIT_PROBLEMS", "EXIT_STATUSES", "EXIT_USAGE", "UserError",
           "build_parser", "main"]


class SafeParser(argparse.ArgumentParser):
    """An argument parser whose help and error messages (which quote what was typed) print through
    ``safe_text``: an argument holding a terminal escape cannot drive the terminal."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(safe_text(message) if message else message, file)

    def error(self, message: str) -> NoReturn:
        """One line on stderr and exit status 2 (the usage is in ``--help``, not repeated here)."""
        self.exit(EXIT_USAGE, safe_text(f"{self.prog}: error: {message} (see '{self.prog} --help')"
                                        .replace("\n", " ")) + "\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser: every module in ``workbench.commands`` registers its sub-commands."""
    import importlib
    import pkgutil

    import workbench.commands as commands

    parser = SafeParser(
        prog="workbench", description="Chunk Workbench: chunking and context expansion for RAG, offline.",
        epilog="exit statuses:\n" + exit_status_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chunk-workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"workbench.commands.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def debug_trace() -> None:
    """With ``WORKBENCH_DEBUG=1`` in the environment, print the traceback of the exception being handled to stderr
    (before the one-line message a reader gets without it): for a report of an error that should not happen."""
    import os

    if os.environ.get("WORKBENCH_DEBUG") == "1":
        import traceback

        traceback.print_exc(file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``workbench`` console script."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from workbench.core.index.cluster import ClusterError
    from workbench.core.llm.base import LLMError
    from workbench.core.store.errors import StoreError

    try:
        check_not_empty(args)
        resolve_llm_options(args)
        allow_named_code(args)
        check_common_paths(args)
        check_cluster(args)
        return int(args.func(args) or 0)
    except UsageError as exc:  # found after parsing (an empty or out-of-range value, a --cluster address)
        say(f"workbench: error: {exc}", err=True)
        return EXIT_USAGE
    except (UserError, StoreError, LLMError, ClusterError) as exc:  # LLMError: e.g. an ollama: embedding model's server
        say(f"workbench: error: {exc}", err=True)
        return EXIT_ERROR
    except sqlite3.DatabaseError as exc:  # met while working on a store that passed its open checks
        from pathlib import Path

        from workbench.core.data_folder import resolve_data_dir
        from workbench.core.store.errors import database_failure

        debug_trace()
        folder = resolve_data_dir(getattr(args, "data_dir", None)) if hasattr(args, "data_dir") else Path.cwd()
        say(f"workbench: error: {database_failure(exc, folder)}", err=True)
        return EXIT_ERROR
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError, UnicodeError) as exc:
        debug_trace()
        say(f"workbench: error: {exception_sentence(exc)}", err=True)
        return EXIT_ERROR
    except Cancelled:
        print("workbench: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except KeyboardInterrupt as exc:  # Ctrl-C; SIGTERM while a private Ray runs (cluster.Terminated)
        print(f"workbench: {exc.args[0] if exc.args else 'interrupted'}", file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file or folder the command met could not be read or written
        debug_trace()
        say(f"workbench: error: {exception_sentence(exc)}", err=True)
        return EXIT_ERROR
    finally:
        close_cluster(args)  # --cluster local: the private Ray and its temporary folder go with the command


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
