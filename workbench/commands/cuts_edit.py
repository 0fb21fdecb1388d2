"""``workbench cuts edit|show|list|delete``: hand-made chunkings. ``cuts edit`` keeps one (a base strategy's
chunker and an ordered list of edits to its cuts: split, merge, move, or an exported file's spans), usable as
the chunker ``edited:NAME`` everywhere a chunker is named; ``cuts show``, ``cuts list`` and ``cuts delete``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.common import EXIT_OK, EXIT_PROBLEMS, UserError, add_common, emit, open_workspace
from workbench.commands.questions import stored_doc_id

if TYPE_CHECKING:
    from workbench.core.ingest.chunkers.hand_edits import CutEdit, HandChunking
    from workbench.core.workspace import Workspace

MAX_EXPORT_BYTES = 200 * 1024 * 1024  # as chunk_export.MAX_READ_BYTES


def _offset(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"{what}: {text!r} is not a character offset (a whole number)") from None
    if value < 0:
        raise UserError(f"{what}: offset {value} is negative")
    return value


def _edit(ws: Workspace, op: str, value: str) -> CutEdit:
    """One ``--split/--merge DOC:OFFSET`` or ``--move DOC:FROM:TO`` as an edit of the stored document."""
    from workbench.core.ingest.chunkers.hand_edits import CutEdit, text_sha

    parts = value.rsplit(":", 2 if op == "move" else 1)
    shape = "DOC:FROM:TO" if op == "move" else "DOC:OFFSET"
    if len(parts) != (3 if op == "move" else 2) or not parts[0]:
        raise UserError(f"--{op} {value!r}: expected {shape}")
    doc = ws.corpus.document(stored_doc_id(ws, parts[0]))
    numbers = [_offset(p, f"--{op} {value}") for p in parts[1:]]
    for number in numbers:
        if not 0 < number < len(doc.text):
            raise UserError(f"--{op} {value}: offset {number} lies outside {doc.path} (1..{len(doc.text) - 1})")
    assert doc.id is not None
    return CutEdit(op, doc.id, doc.path, text_sha(doc.text), numbers[0], numbers[1] if op == "move" else 0)


def _export_edits(ws: Workspace, path: Path) -> list[CutEdit]:
    """One ``spans`` edit per document of a chunk export (``workbench chunks export``, JSON Lines or CSV, read by
    ``read_exported_chunks``): a document is found by its id when the path matches, else by its path; each
    chunk's text must still be the stored text there."""
    from workbench.core.ingest.chunkers.hand_edits import CutEdit, text_sha
    from workbench.core.inspect.chunk_export import ExportError, read_exported_chunks

    try:  # the read rules: a regular file (no FIFO, no device), the bound counted while reading
        chunks = read_exported_chunks(path, MAX_EXPORT_BYTES)
    except ExportError as exc:
        raise UserError(f"--from-export {exc}") from None
    rows = ws.records.documents()
    by_id = {int(r["id"]): str(r["path"]) for r in rows}
    by_path = {str(r["path"]): int(r["id"]) for r in rows}
    spans: dict[int, list[tuple[int, int]]] = {}
    texts: dict[int, str] = {}
    for number, chunk in enumerate(chunks, 1):
        where = f"--from-export {path} chunk {number}"
        doc_id = chunk.doc_id
        if by_id.get(doc_id) != chunk.doc_path:  # the path decides when the ids differ
            if chunk.doc_path not in by_path:
                raise UserError(f"{where}: document {chunk.doc_path!r} is not stored in this data folder")
            doc_id = by_path[chunk.doc_path]
        if doc_id not in texts:
            texts[doc_id] = ws.corpus.doc_text(doc_id)
        if texts[doc_id][chunk.start:chunk.end] != chunk.text:
            raise UserError(f"{where}: the stored text of {chunk.doc_path} at {chunk.start}..{chunk.end} differs "
                            "from the exported chunk (the document changed since the export)")
        spans.setdefault(doc_id, []).append((chunk.start, chunk.end))
    if not spans:
        raise UserError(f"--from-export {path}: no chunks in it")
    return [CutEdit("spans", doc_id, by_id[doc_id], text_sha(texts[doc_id]), spans=tuple(sorted(doc_spans)))
            for doc_id, doc_spans in sorted(spans.items())]


def _uses(ws: Workspace, name: str) -> list[str]:
    """The saved strategies whose chunker is ``edited:NAME``."""
    from workbench.core.ingest.chunkers.choice import chunker_name

    return [s for s, strategy in ws.records.saved_strategies().items()
            if chunker_name(strategy.chunk) == f"edited:{name}"]


def _get(ws: Workspace, name: str) -> HandChunking:
    hand = ws.cuts.get(name)
    if hand is None:
        raise UserError(f"no hand-made chunking called {name!r} (workbench cuts list)")
    return hand


def run_edit(args: argparse.Namespace, ws: Workspace) -> int:
    from workbench.core.ingest.chunkers.hand_edits import HandChunking
    from workbench.core.workspace.cuts import EditRefused, base_chunker_json, hand_name_problem

    name = args.name.strip()
    if (problem := hand_name_problem(name)) is not None:
        raise UserError(f"cuts edit {problem}")
    hand = ws.cuts.get(name)
    start = None  # the chunking to start when none is stored yet
    if hand is None and not args.base:
        raise UserError(f"no hand-made chunking called {name!r} yet: give --base STRATEGY to start one")
    if args.base:
        try:
            base = base_chunker_json(ws.records.resolve_strategy(args.base).chunk)
        except (EditRefused, ValueError, KeyError) as exc:
            raise UserError(f"--base {args.base}: {exc.args[0] if exc.args else exc}") from None
        if hand is not None and hand.base_chunker != base:
            raise UserError(f"{name!r} starts from {hand.base_strategy!r} ({hand.base_chunker}); --base "
                            f"{args.base} cuts otherwise: give another name, or leave --base out")
        start = HandChunking(name, args.base, base)
    edits = [_edit(ws, op, value) for op, value in args.edits or []]
    if args.from_export:
        edits += _export_edits(ws, Path(args.from_export))
    if not edits and ws.cuts.get(name) is not None:
        raise UserError("give at least one --split, --merge, --move or --from-export")
    try:  # read again, checked and kept in one transaction: an edit kept meanwhile by another process stays
        updated = ws.cuts.edit(name, edits, start).after
    except EditRefused as exc:
        raise UserError(str(exc)) from None
    lines = [f"hand-made chunking {name!r} (chunker edited:{name}): {len(updated.edits)} edit(s) on "
             f"{updated.base_strategy}"] + [f"  + {e.describe()}  {e.doc_path}" for e in edits]
    emit(args, {"name": name, "chunker": f"edited:{name}", "added": [e.to_dict() for e in edits],
                "edits": len(updated.edits)}, "\n".join(lines))
    return 0


def _show_doc(args: argparse.Namespace, ws: Workspace, hand: HandChunking) -> int:
    """``cuts show NAME --doc DOC``: the document's chunks under ``hand`` (``*``: not a chunk of the base)."""
    cuts = ws.cuts.document_cuts(hand, stored_doc_id(ws, args.doc))
    base = set(cuts.base)
    spans = cuts.applied.spans
    lines = [f"{cuts.doc.path} under edited:{hand.name}: {len(spans)} chunks ({len(cuts.base)} in the base; "
             "* edited)"]
    lines += [f"  {'*' if s not in base else ' '} {i:>4}  {s[0]:>8}..{s[1]:<8} {s[1] - s[0]:>6} chars"
              for i, s in enumerate(spans)]
    lines += [f"  skipped {k.edit.describe()}: {k.reason}" for k in cuts.applied.skipped]
    emit(args, {"document": cuts.doc.path, "document_id": cuts.doc.id, "spans": [list(s) for s in spans],
                "base": [list(s) for s in cuts.base],
                "skipped": [{**k.edit.to_dict(), "reason": k.reason} for k in cuts.applied.skipped]},
         "\n".join(lines))
    return EXIT_PROBLEMS if cuts.applied.skipped else EXIT_OK


def run_show(args: argparse.Namespace, ws: Workspace) -> int:
    hand = _get(ws, args.name)
    if args.doc:
        return _show_doc(args, ws, hand)
    status = ws.cuts.status(hand)
    lines = [f"{hand.name}: chunker edited:{hand.name}, base {hand.base_strategy} ({hand.base_chunker})"]
    lines += [f"  {s.index + 1:>3}. {s.edit.describe():<28} {s.state:<8} {s.edit.doc_path}"
              + (f": {s.reason}" if s.reason else "") for s in status] or ["  no edits yet"]
    flagged = sum(s.state != "applies" for s in status)
    if flagged:
        lines.append(f"{flagged} edit(s) no longer apply (left out when cutting; nothing was shifted)")
    data = {"name": hand.name, "base_strategy": hand.base_strategy, "base_chunker": hand.base_chunker,
            "edits": [{**s.edit.to_dict(), "state": s.state, "reason": s.reason} for s in status]}
    emit(args, data, "\n".join(lines))
    return EXIT_PROBLEMS if flagged else EXIT_OK


def run_list(args: argparse.Namespace, ws: Workspace) -> int:
    hands = ws.cuts.all()
    lines = [f"edited:{h.name:<24} {len(h.edits):>4} edit(s)  base {h.base_strategy}" for h in hands]
    emit(args, [{"name": h.name, "base_strategy": h.base_strategy, "edits": len(h.edits)} for h in hands],
         "\n".join(lines) or "no hand-made chunkings yet (workbench cuts edit NAME --base STRATEGY --split DOC:OFFSET)")
    return 0


def run_delete(args: argparse.Namespace, ws: Workspace) -> int:
    _get(ws, args.name)
    users = _uses(ws, args.name)
    if users:
        raise UserError(f"edited:{args.name} is the chunker of the saved strateg{'ies' if len(users) > 1 else 'y'} "
                        f"{', '.join(users)}; delete {'them' if len(users) > 1 else 'it'} first (workbench "
                        "strategies --delete NAME); nothing was deleted")
    ws.cuts.delete(args.name)
    emit(args, {"deleted": args.name}, f"deleted the hand-made chunking {args.name!r} (chunk sets cut by it stay "
                                       "until the folder is cleaned)")
    return 0


def _run(action: Callable[[argparse.Namespace, Workspace], int]) -> Callable[[argparse.Namespace], int]:
    """``action`` on the data folder of its arguments (a store that is there already), its errors one line."""

    def run(args: argparse.Namespace) -> int:
        from workbench.core.ingest.chunkers.errors import ChunkerError
        from workbench.core.store import DocumentGone

        ws = open_workspace(args, existing=True)
        try:
            return action(args, ws)
        except (ChunkerError, DocumentGone) as exc:
            raise UserError(str(exc)) from None

    return run


class _Edit(argparse.Action):
    """Collects ``--split``, ``--merge`` and ``--move`` in the order given (the edits apply in that order)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        edits = list(getattr(namespace, "edits", None) or [])
        edits.append((self.const, str(values)))
        namespace.edits = edits


def add_edit(acts: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The sub-commands ``cuts edit``, ``cuts show``, ``cuts list`` and ``cuts delete``."""
    a = acts.add_parser("edit", help="start or extend a hand-made chunking (edited:NAME): a base strategy's cuts, "
                                     "edited")
    a.add_argument("name", metavar="NAME", help="the chunking's name (its chunker is edited:NAME)")
    a.add_argument("--base", metavar="STRATEGY", help="the strategy whose chunker it starts from (a preset or a "
                                                      "saved strategy; needed to start one)")
    a.add_argument("--split", action=_Edit, const="split", dest="edits", metavar="DOC:OFFSET",
                   help="cut the chunk holding OFFSET in two there (DOC: document id or file name; repeatable)")
    a.add_argument("--merge", action=_Edit, const="merge", dest="edits", metavar="DOC:OFFSET",
                   help="remove the cut at OFFSET (repeatable)")
    a.add_argument("--move", action=_Edit, const="move", dest="edits", metavar="DOC:FROM:TO",
                   help="move the cut at FROM to TO (repeatable)")
    a.add_argument("--from-export", metavar="FILE", help="make each exported document's chunks exactly the spans "
                                                         "of a chunk export (workbench chunks export: JSON Lines "
                                                         "or CSV)")
    add_common(a)
    a.set_defaults(func=_run(run_edit))
    a = acts.add_parser("show", help="a hand-made chunking's base and edits, and whether each still applies (exit "
                                     "3 when one does not)")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--doc", metavar="DOC", help="list this document's chunks under the chunking instead "
                                                "(* marks those the edits made)")
    add_common(a)
    a.set_defaults(func=_run(run_show))
    a = acts.add_parser("list", help="the hand-made chunkings of the data folder")
    add_common(a)
    a.set_defaults(func=_run(run_list))
    a = acts.add_parser("delete", help="forget a hand-made chunking (refused while a saved strategy uses it)")
    a.add_argument("name", metavar="NAME")
    add_common(a)
    a.set_defaults(func=_run(run_delete))
