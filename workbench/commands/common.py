"""What every sub-command shares: exit statuses, the one-line user error, path checks, the common options,
the progress printer, opening the workspace and printing text or JSON."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.consent import TRUST_OPTION, trust_typed
from workbench.core.jobs import ProgressEvent

if TYPE_CHECKING:
    from workbench.core.workspace import Workspace

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PROBLEMS, EXIT_UNOPENED, EXIT_CANCELLED = 0, 1, 2, 3, 4, 130
EXIT_STATUSES = [
    (EXIT_OK, "success (files inside a folder that were skipped or failed are listed, but do not count)"),
    (EXIT_ERROR, "error: a path named on the command line is missing or of the wrong kind, a data folder "
                 "that holds no store given to a command that only reads, bad input, "
                 "a refused remote host, an empty corpus, a damaged store …; one line on stderr"),
    (EXIT_USAGE, "usage error: unknown option, missing, empty, malformed or out-of-range argument (a --cluster "
                 "address that is malformed or names an unknown host too), no command; nothing was changed"),
    (EXIT_PROBLEMS, "finished, but with problems: `index --strict` when a file was skipped or failed; "
                    "`verify` found the store inconsistent (without --repair); `cuts show` found edits that no "
                    "longer apply"),
    (EXIT_UNOPENED, "`verify` could not open the store it was pointed at (not a database, unreadable, locked …); "
                    "a folder that holds no store at all is status 1"),
    (EXIT_CANCELLED, "cancelled (Ctrl-C)"),
]


def exit_status_text() -> str:
    """The exit statuses as lines for ``--help`` (the epilog) and docs/cli.md."""
    return "\n".join(f"  {code:>3}  {meaning}" for code, meaning in EXIT_STATUSES)


class UserError(Exception):
    """An error caused by input; printed as one line."""


class UsageError(UserError):
    """A value on the command line that no command can take (empty, out of range, a malformed ``--cluster``
    address): exit status 2, one line, nothing done."""


NAMING_DESTS = ("paths", "data_dir", "model", "out", "questions", "dataset", "corpus", "source", "llm_model",
                "judge_model", "trust_custom", "resume", "rerun", "compare", "show", "delete", "name", "chunker",
                "strategy", "llm_host", "old_host", "old_embed_model")
"""Options and arguments that name a file, folder, model, record or strategy: never empty (an empty path
would mean the current or the default folder)."""


def check_not_empty(args: argparse.Namespace) -> None:
    """A ``UsageError`` for the first naming value (``NAMING_DESTS``) that is empty or blank."""
    for dest in NAMING_DESTS:
        value = getattr(args, dest, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and not item.strip():
                positional = dest in ("paths", "source", "dataset")
                shown = dest.upper().rstrip("S") if positional else "--" + dest.replace("_", "-")
                raise UsageError(f"{shown}: an empty value names nothing; give the file, folder or name "
                                 "(nothing was done)")


def exception_sentence(exc: BaseException) -> str:
    """What went wrong, as a sentence a person can act on: never an exception's bare name or key (a
    ``KeyError('fit')`` said "error: fit", a ``UnicodeDecodeError`` "error: utf-8")."""
    if isinstance(exc, UnicodeEncodeError) and "surrogate" in exc.reason:
        return (f"the input holds an unpaired surrogate ({exc.object[exc.start:exc.end]!r}: in JSON an escape such "
                "as \\ud800 without its pair), which is not text; remove it or give the whole pair")
    if isinstance(exc, UnicodeError):
        where = getattr(exc, "object", b"")
        return (f"the input is not valid {getattr(exc, 'encoding', 'UTF-8')} text"
                f"{f' (at byte {exc.start} of {len(where):,})' if hasattr(exc, 'start') else ''}; "
                "save it as UTF-8 and try again")
    if isinstance(exc, KeyError):
        key = exc.args[0] if exc.args else "?"
        return f"a record or value this command read lacks its {str(key)[:60]!r} field (it may be damaged)"
    if isinstance(exc, RecursionError):
        return "a value this command read is nested too deeply to read (damaged or hostile data)"
    if isinstance(exc, OverflowError):
        return "a number this command read is too large to use (e.g. 1e400 where a whole number is meant)"
    if isinstance(exc, TypeError):
        return f"a value this command read has the wrong type ({str(exc)[:160]}); it may be damaged"
    if isinstance(exc, OSError):
        name = str(exc.filename or "")
        shown = name if len(name) <= 120 else name[:60] + "…" + name[-40:]
        return f"{exc.strerror or 'cannot read or write a file'}{f': {shown}' if shown else ''}"
    text = str(exc.args[0]) if exc.args else ""
    if not text or (" " not in text.strip() and len(text) < 40):  # a bare word is no message
        return f"the value {text!r} could not be used ({type(exc).__name__})" if text else \
            f"a value could not be used ({type(exc).__name__})"
    return text


# What must not reach a terminal raw: C0 controls but tab and newline, DEL, C1 controls (ESC sequences start
# with \x1b or \x9b), bidi embeddings/overrides (U+202A-202E) and isolates (U+2066-2069).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # json.dumps escapes C0 itself


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` as the command line prints it: control characters (but newline and tab), terminal escape
    sequences and bidi overrides from file names, document text or model output shown escaped (``\\x1b``,
    ``\\u202e``), so nothing printed can drive the terminal or reorder what the line shows."""
    return _UNSAFE.sub(_escaped, text)


def json_text(data: object) -> str:
    """``data`` as indented JSON whose text holds no raw control or bidi character (DEL, C1 controls and bidi
    overrides as ``\\uXXXX`` escapes, C0 escaped by ``json.dumps``): the same values come back."""
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}",
                            json.dumps(data, indent=2, ensure_ascii=False))


def say(text: str = "", *, err: bool = False, end: str = "\n", flush: bool = False) -> None:
    """Print ``text`` (``safe_text``) to stdout, or to stderr with ``err``: every command prints through here."""
    print(safe_text(text), end=end, file=sys.stderr if err else sys.stdout, flush=flush)


MIN_FILE_MB = 1024 / 1_000_000  # a size limit allows at least 1 KiB: a smaller one skips every real file


def size_mb(text: str) -> float:
    """An argparse ``type`` for a size limit in MB: a finite number, 0 (no limit) or at least ``MIN_FILE_MB``
    (1 KiB): a smaller one would skip every file, or round to 0 bytes (no limit at all)."""
    value = finite_float(text)
    if value != 0 and not value >= MIN_FILE_MB:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or at least {MIN_FILE_MB:g} (1 KiB), not "
                                         f"{text[:40]}")
    return value


def finite_float(text: str) -> float:
    """An argparse ``type`` for float options: refuses ``nan``, ``inf`` and what is not a number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, not {text!r}")
    return value


MAX_COUNT = 1_000_000  # no size, count, limit or budget on the command line is larger (strategy fields agree)


def whole_number(minimum: int, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse ``type`` for a count, size or limit: a whole number from ``minimum`` to ``maximum``; what
    is not one (``1e400``, ``nan``, ``2.5``, ``''``) or is out of range is a usage error (status 2), refused
    before any work."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, not {text[:40]!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be from {minimum:,} to {maximum:,}, not {text[:40]}")
        return value

    parse.__name__ = "whole number"
    return parse


def non_empty(text: str) -> str:
    """An argparse ``type`` for a path or name: an empty (or blank) value is a usage error, never the
    current or the default folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty (name the file or folder)")
    return text


def existing_path(path: str | Path | None, what: str = "file or folder", kind: str = "any") -> Path | None:
    """``path`` (expanded) when it exists and is of ``kind`` ("any", "file", "dir"); else a ``UserError``.

    Commands call it for every path named on the command line before they open the store.
    """
    if path is None:
        return None
    import os

    from workbench.core.ingest.filenames import fs_path

    p = Path(path).expanduser()
    if not (p.exists() or os.path.lexists(fs_path(str(p)))):  # a stored key shows odd bytes as \xNN
        raise UserError(f"no such {what}: {path}")
    if kind == "dir" and not p.is_dir():
        raise UserError(f"{what} is not a folder: {path}")
    if kind == "file" and not p.is_file():
        raise UserError(f"{what} is not a file: {path}")
    return p


def output_dir(path: str | Path | None, option: str = "--out", probe: bool = True) -> Path | None:
    """A folder to write into (created later): refused up front when it names an existing file, when one of
    its parents is a file, or (``probe``) when it cannot be created or written in: the probe creates the
    missing folders and a file in them and removes what it made, so a long run never ends on an
    unwritable ``--out``."""
    if path is None:
        return None
    p = Path(path).expanduser()
    for q in (p, *p.parents):
        if q.exists():
            if not q.is_dir():
                import stat

                from workbench.core.outputs import file_kind

                mode = q.stat().st_mode
                kind = "file" if stat.S_ISREG(mode) else file_kind(mode)  # a FIFO or device is said to be one
                raise UserError(f"{option} {path}: {q} is a {kind}, not a folder")
            break
    if probe:
        _probe_writable(p, f"{option} {path}")
    return p


def output_folder(path: str | Path | None, what: str, option: str = "--out") -> Path | None:
    """A person-named output folder, refused up front by the output rules (``workbench.core.outputs``): a new or
    empty folder, or an earlier output of the workbench of the same kind (``what``), that can be created and
    written in (``output_dir``'s probe); else a ``UserError`` in one line. Nothing is left behind."""
    if path is None:
        return None
    from workbench.core.outputs import OutputRefused, check_folder

    try:
        p = check_folder(path, option, what)
    except OutputRefused as exc:
        raise UserError(str(exc)) from None
    _probe_writable(p, f"{option} {path}")
    return p


def _probe_writable(folder: Path, what: str) -> None:
    """Create ``folder`` (and missing parents) and a file in it, then remove what was made; a ``UserError``
    naming ``what`` when that fails."""
    import os
    import tempfile

    made: list[Path] = []
    try:
        for q in reversed([q for q in (folder, *folder.parents) if not q.exists()]):
            try:
                q.mkdir()
            except OSError as exc:
                raise UserError(f"{what}: cannot create the folder {q} ({exc.strerror or exc})") from None
            made.append(q)
        try:
            fd, name = tempfile.mkstemp(dir=folder, prefix=".workbench-probe-")
            os.close(fd)
            os.unlink(name)
        except OSError as exc:
            raise UserError(f"{what}: cannot write in {folder} ({exc.strerror or exc})") from None
    finally:
        for q in reversed(made):
            with contextlib.suppress(OSError):
                q.rmdir()


def check_common_paths(args: argparse.Namespace) -> None:
    """Refuse, before any work, ``--data-dir`` naming a file, a missing embedding model folder (``--model``)
    and a missing GGUF file (``--llm-model x.gguf``, or any ``--llm-model`` with ``--llm embedded``). The old
    LLM flag spellings are folded in first, by ``llm_options.resolve_llm_options`` (``cli.main`` calls both)."""
    output_dir(getattr(args, "data_dir", None), "--data-dir", probe=False)  # a read-only store may be read
    from workbench.core.index.embedder_pool import is_named_model, is_ollama_spec, normalise_model_spec

    embed = getattr(args, "model", None)
    if embed and is_ollama_spec(embed):  # an Ollama embedding model: its host must be allowed
        from workbench.core.llm import LLMError
        from workbench.core.llm.ollama_backend import check_host

        try:
            normalise_model_spec(embed)
            check_host(getattr(args, "llm_host", None), bool(getattr(args, "allow_remote", False)))
        except (LLMError, ValueError) as exc:
            raise UserError(str(exc)) from None
    elif embed and not is_named_model(embed):
        folder = existing_path(embed, "model folder (--model)", "dir")
        from workbench.core.inputs import InputRefused, refuse_special_files

        try:  # the read rules: sentence-transformers would block on a FIFO in it, or read /dev/zero forever
            refuse_special_files(folder or embed, f"model folder (--model) {embed}")
        except InputRefused as exc:
            raise UserError(str(exc)) from None
    llm_model = getattr(args, "llm_model", None)
    if llm_model and (llm_model.endswith(".gguf") or getattr(args, "llm", None) == "embedded"):
        existing_path(llm_model, "GGUF file (--llm-model)", "file")


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every data command takes."""
    p.add_argument("--data-dir", help="data folder (default: $WORKBENCH_DATA or the per-user data folder)")
    p.add_argument("--model", help="embedding model: a local sentence-transformers folder, ollama:NAME (the "
                                   "Ollama server's /api/embed), or minilm-bf16 (the packaged model with bf16 "
                                   "matrix products: about twice as fast where the CPU has bf16 instructions, its own "
                                   "chunk sets; default: packaged "
                                   "all-MiniLM-L6-v2)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(TRUST_OPTION, action="append", metavar="TARGET", default=None,
                   help="allow a custom chunker (module:function) or a local embedding model folder that data "
                        "read by this run names (a run record, saved settings, a strategy); such code is "
                        "refused otherwise. A --chunker value that is exactly custom:M:F, a strategy JSON's chunker "
                        "field and a --model folder are allowed already; nothing else typed is")


def allow_named_code(args: argparse.Namespace) -> None:
    """Consent for the code this command line names as a whole value (``workbench.core.consent.trust_typed``):
    the custom chunker a ``--chunker`` value is (or whose JSON ``name`` it is), the ``chunker`` field of a
    strategy JSON typed as ``--strategy``, a ``--model`` folder and every ``--trust-custom`` target. A
    ``custom:`` part of a longer value, a saved strategy's name or a ``--grid`` value grants nothing."""
    from workbench.core.index.embedder_pool import is_named_model, is_ollama_spec

    def values(name: str) -> list[str]:
        value = getattr(args, name, None)
        return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []

    model = getattr(args, "model", None)
    models = [model] if model and not is_ollama_spec(model) and not is_named_model(model) else []
    trust_typed(values("chunker"), values("strategy"), models, values("trust_custom"))


def add_chunk_options(p: argparse.ArgumentParser) -> None:
    """Chunking options (they select or build a chunk set)."""
    p.add_argument("--chunk-size", type=whole_number(1), help="chunk size in units (default 200 tokens)")
    p.add_argument("--overlap", type=whole_number(0), help="overlap between chunks in units (default 0)")
    p.add_argument("--unit", choices=["tokens", "words", "sentences"], help="chunk unit (default tokens)")
    p.add_argument("--structure-aware", action="store_true", default=None,
                   help="split on headings and paragraphs before size")
    p.add_argument("--heading-path", action="store_true", default=None,
                   help="embed 'title > headings: text' (heading-path contextual embedding)")
    add_yes(p)
    p.add_argument("--chunker", metavar="NAME_OR_JSON",
                   help="cut with a registry chunker ('workbench chunkers' lists them): a name with default "
                        "parameters, or a JSON object such as '{\"name\": \"recursive\", \"max_tokens\": 256, "
                        "\"overlap\": 32}'; --chunk-size/--overlap then set its size/overlap parameters")


YES_HELP = ("go ahead without asking with work that states a large estimate first: a chunking that would make "
            "far more chunks than its size implies, a sweep of many configurations, a long advice run")


def add_yes(p: argparse.ArgumentParser) -> None:
    """``--yes``: confirm the costly work a command states its estimate for and otherwise refuses."""
    p.add_argument("--yes", action="store_true", help=YES_HELP)


def progress_printer(quiet: bool) -> Callable[[ProgressEvent], None]:
    """A progress sink writing at most one line a second to stderr."""
    last = [0.0]

    def show(ev: ProgressEvent) -> None:
        if quiet:
            return
        if not ev.total and ev.message:  # a notice, e.g. "waiting for another writer (pid N)…"
            say(f"[{ev.stage}] {ev.message}", err=True, flush=True)
            return
        now = time.monotonic()
        if now - last[0] < 1.0 and ev.done < ev.total:
            return
        last[0] = now
        rate = f", {ev.rate:.1f}/s" if ev.rate else ""
        left = f", ~{ev.remaining_s:.0f}s left" if ev.remaining_s else ""
        say(f"[{ev.stage}] {ev.done}/{ev.total}{rate}{left} {ev.message}".rstrip(), err=True, flush=True)

    return show


class NoStore(UserError):
    """The data folder holds no workbench store, and the command only reads one: nothing was created."""


def require_store(args: argparse.Namespace) -> Path:
    """The data folder of ``args`` when it holds a workbench store; else ``NoStore`` (a command that only
    reads never creates a folder or a database where there was none)."""
    from workbench.core.data_folder import resolve_data_dir
    from workbench.core.store import DB_NAME

    folder = resolve_data_dir(getattr(args, "data_dir", None))
    if not (folder / DB_NAME).is_file():
        where = "is no such folder" if not folder.exists() else f"holds no workbench store ({DB_NAME})"
        raise NoStore(f"{folder} {where}; this command only reads one, so nothing was created "
                      f"('workbench index PATH --data-dir {folder}' makes one)")
    return folder


def open_workspace(args: argparse.Namespace, existing: bool = False) -> Workspace:
    """The workspace named by ``--data-dir`` / ``--model``; ``existing``: only a store that is there already
    (``require_store``), for the commands that only read."""
    from workbench.core.store import StoreError
    from workbench.core.workspace import Workspace

    if existing:
        require_store(args)
    try:
        ws = Workspace(args.data_dir, model_path=getattr(args, "model", None))
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except RuntimeError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:  # the data folder cannot be created (e.g. under /proc)
        where = args.data_dir or "the default data folder"
        raise UserError(f"--data-dir {where}: cannot open or create it ({exc.strerror or exc})") from None
    ws.sets.refuse_oversized(hasattr(args, "yes") and not args.yes)  # a costly chunking asks first (--yes)
    # ollama: embedding models go to the answering LLM's host, with its remote consent
    ws.models.use_ollama_host(getattr(args, "llm_host", None), bool(getattr(args, "allow_remote", False)))
    ws.sets.cluster = getattr(args, "cluster_handle", None)  # --cluster: chunk sets embedded there
    return ws


def emit(args: argparse.Namespace, data: object, text: str) -> None:
    """Print JSON with ``--json`` (``json_text``), else the human text (``safe_text``)."""
    if getattr(args, "json", False):
        print(json_text(data))
    else:
        say(text)
