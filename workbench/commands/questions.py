"""``workbench questions``: question sets of your own, stored in the data folder: create, add questions with their
reference spans (offsets or an exact quote), edit, remove, review drafts, check, export, rename, duplicate,
delete. ``eval``, ``advise`` and the lab take a stored set by name.

A reference is ``DOC:START:END``: DOC a document id (``workbench docs``) or its file name, START and END
character offsets into the stored text. Every change is checked against the stored text before anything is
written: bad input is one line and changes nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.commands.common import UserError, add_common, emit, open_workspace, output_folder, say
from workbench.core.outputs import CHROMA_SET, JSONL_SET
from workbench.core.spans import Span

if TYPE_CHECKING:
    from workbench.core.store.question_sets import StoredQuestion
    from workbench.core.workspace import Workspace
    from workbench.core.workspace.question_sets import SetSummary


def stored_doc_id(ws: Workspace, doc: str) -> int:
    """A document by id or by (unique) file name or path."""
    if re.fullmatch(r"[0-9]+", doc):  # ASCII digits only: str.isdigit() takes '²' and int() then fails
        return int(doc)
    rows = ws.records.documents()
    exact = [r for r in rows if r["path"] == doc]
    named = exact or [r for r in rows if Path(r["path"]).name == doc or r["path"].endswith("/" + doc)]
    if len(named) == 1:
        return int(named[0]["id"])
    if not named:
        raise UserError(f"no stored document {doc!r} (give its id or file name; workbench docs lists them)")
    raise UserError(f"{doc!r} names {len(named)} documents ({', '.join(str(r['id']) for r in named[:5])}); "
                    "give its id")


def _spans(ws: Workspace, args: argparse.Namespace) -> list[Span] | None:
    """The references given with ``--ref`` and/or ``--quote`` (None when neither was)."""
    refs: list[str] = args.ref or []
    quotes: list[str] = args.quote or []
    if not refs and not quotes:
        return None
    out = []
    for ref in refs:
        doc, _, rest = ref.rpartition(":")
        doc, _, start = doc.rpartition(":")
        if not doc or not re.fullmatch(r"[0-9]+", start.strip()) or not re.fullmatch(r"[0-9]+", rest.strip()):
            raise UserError(f"--ref {ref}: write DOC:START:END (a document id or file name, then character offsets)")
        out.append(Span(stored_doc_id(ws, doc), int(start.strip()), int(rest.strip())))
    if quotes:
        from workbench.core.evaluate.question_set import DatasetError

        docs = [stored_doc_id(ws, d) for d in args.doc] if args.doc else [int(r["id"]) for r in ws.records.documents()]
        for quote in quotes:
            try:
                out.append(ws.questions.locate(quote, docs))
            except DatasetError as exc:
                raise UserError(f"--quote: {exc}") from None
    return out


def summary_lines(s: SetSummary) -> list[str]:
    """What a set holds and what it can tell (``SetSummary.lines``)."""
    return s.lines()


def _question_lines(number: int, q: StoredQuestion, titles: dict[int, str]) -> list[str]:
    lines = [f"{number:>3}. {q.text}", f"     {q.provenance.describe()}"
             + (f" · tags {', '.join(q.tags)}" if q.tags else "") + (f" · notes: {q.notes}" if q.notes else "")]
    for r in q.references:
        flag = f" [needs review: {r.status_note}]" if r.status != "ok" else ""
        text = " ".join(r.content.split())
        lines.append(f"     ref {r.doc_id}:{r.start}:{r.end} ({titles.get(r.doc_id, 'gone')}) "
                     f"{text[:70] + ('…' if len(text) > 70 else '')!r}{flag}")
    return lines


def _question_dict(number: int, q: StoredQuestion) -> dict[str, Any]:
    return {"number": number, "question": q.text, "notes": q.notes, "tags": list(q.tags),
            "reference_answer": q.reference_answer, "provenance": q.provenance.as_dict(),
            "needs_review": q.needs_review,
            "references": [{"doc_id": r.doc_id, "start": r.start, "end": r.end, "text": r.content,
                            "status": r.status, "note": r.status_note} for r in q.references]}


# ----- sub-commands -------------------------------------------------------------------------------------
def run_new(args: argparse.Namespace, ws: Workspace) -> int:
    searched = len(ws.questions.create(args.name, args.note or "", library=args.searched == "all").doc_ids)
    scope = (f"it searches the {searched} document(s) of this data folder" if searched else
             "it searches only the documents its references point into")
    say(f"question set {args.name!r} created in {ws.data_dir} ({scope}); add questions with: workbench questions "
        f"add {_quoted(args.name)} \"QUESTION\" --quote \"TEXT\"")
    return 0


def run_list(args: argparse.Namespace, ws: Workspace) -> int:
    sums = [ws.questions.summary(s.name) for s in ws.questions.sets()]
    lines = [line for s in sums for line in summary_lines(s)] or ["no question sets yet: workbench questions new NAME"]
    emit(args, [vars(s) for s in sums], "\n".join(lines))
    return 0


def run_show(args: argparse.Namespace, ws: Workspace) -> int:
    from workbench.core.evaluate.question_set_power import detectable_difference

    read = ws.questions.read(args.name)
    docs = ws.questions.documents_of(read)
    summary = ws.questions.summary(args.name)
    titles = {d: Path(doc.path).name for d, doc in docs.items()}
    lines = summary_lines(summary) + [f"  documents: {', '.join(f'{d} {t}' for d, t in titles.items()) or 'none'}"]
    for number, q in enumerate(read.questions, start=1):
        lines += _question_lines(number, q, titles)
    lines += [f"warning: {w}" for w in read.skipped]
    mdd = detectable_difference(summary.questions - summary.needs_review)
    data = {"summary": vars(summary), "detectable_recall_difference": None if mdd != mdd else round(mdd, 4),
            "documents": {str(d): docs[d].path for d in docs}, "skipped": read.skipped,
            "questions": [_question_dict(n, q) for n, q in enumerate(read.questions, start=1)]}
    emit(args, data, "\n".join(lines))
    return 0


def run_add(args: argparse.Namespace, ws: Workspace) -> int:
    spans = _spans(ws, args)
    if spans is None:
        raise UserError("give the reference: --ref DOC:START:END or --quote \"TEXT\" (one or more)")
    number = ws.questions.add(args.name, args.question, spans, args.notes or "", args.tag or [])
    say(f"question {number} added to {args.name!r} with {len(spans)} reference(s)")
    return 0


def run_edit(args: argparse.Namespace, ws: Workspace) -> int:
    spans = _spans(ws, args)
    ws.questions.edit(args.name, args.number, args.text, spans, args.notes, args.tag)
    say(f"question {args.number} of {args.name!r} changed")
    return 0


def run_remove(args: argparse.Namespace, ws: Workspace) -> int:
    q = ws.questions.remove(args.name, args.number)
    say(f"question {args.number} ({q.text[:60]!r}) removed from {args.name!r}")
    return 0


def run_rename(args: argparse.Namespace, ws: Workspace) -> int:
    ws.questions.rename(args.name, args.new_name)
    say(f"question set {args.name!r} is now {args.new_name!r}")
    return 0


def run_duplicate(args: argparse.Namespace, ws: Workspace) -> int:
    info = ws.questions.duplicate(args.name, args.new_name)
    say(f"question set {args.name!r} copied to {args.new_name!r} ({info.questions} questions)")
    return 0


def run_delete(args: argparse.Namespace, ws: Workspace) -> int:
    deletion = ws.questions.deletion(args.name)
    ws.questions.delete(args.name)
    kept = "; 'workbench remove PATH' takes a document out" if deletion.documents else ""
    say(f"question set {deletion.words} deleted{kept}")
    return 0


def run_check(args: argparse.Namespace, ws: Workspace) -> int:
    from workbench.core.evaluate.stored_question_sets import check_lines

    read = ws.questions.read(args.name)
    problems = [*read.skipped, *check_lines(read.questions, ws.questions.documents_of(read))]
    lines = problems or [f"{args.name!r}: {len(read.questions)} questions, every reference inside its document"]
    emit(args, {"questions": len(read.questions), "problems": problems}, "\n".join(lines))
    return 3 if problems else 0


def run_export(args: argparse.Namespace, ws: Workspace) -> int:
    from workbench.core.evaluate.question_set_export import export_chroma, export_jsonl

    read = ws.questions.read(args.name)
    out = output_folder(args.out, JSONL_SET if args.format == "jsonl" else CHROMA_SET)
    assert out is not None
    if (out / "questions.csv").exists() or (out / "questions.jsonl").exists():  # its corpora would mix
        raise UserError(f"{out} holds a question set already: choose an empty --out")
    docs = ws.questions.documents_of(read)
    files = (export_chroma if args.format == "chroma" else export_jsonl)(out, read.questions, docs)
    say(f"{len(read.questions)} questions and {len(docs)} documents written: {', '.join(map(str, files))}")
    return 0


def _key(prompt: str) -> str:
    """One key from the terminal (a line's first character when input is not a terminal)."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    if sys.stdin.isatty():
        import termios
        import tty

        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            key = sys.stdin.read(1)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        print(key)
        return key.lower()
    line = sys.stdin.readline()
    return line[:1].lower() if line else "q"


def run_review(args: argparse.Namespace, ws: Workspace) -> int:
    from workbench.core.evaluate.question_set import DatasetError

    read = ws.questions.read(args.name)
    queue = [(n, q) for n, q in enumerate(read.questions, start=1)
             if q.provenance.origin == "drafted" and not q.provenance.reviewed]
    total = sum(q.provenance.origin == "drafted" for q in read.questions)
    if not queue:
        say(f"{args.name!r}: no unreviewed drafts ({total} drafts in all)")
        return 0
    done = total - len(queue)
    removed = 0
    for number, q in queue:
        number -= removed
        say(f"\n{done} of {total} reviewed — question {number}: {q.text}")
        for r in q.references:
            doc = ws.corpus.document(r.doc_id)
            before, after = doc.text[max(0, r.start - 80):r.start], doc.text[r.end:r.end + 80]
            say(f"  {Path(doc.path).name} {r.start}:{r.end}\n  …{' '.join(before.split())} "
                f">>>{' '.join(r.content.split())}<<< {' '.join(after.split())}…")
        key = _key("[a]ccept  [r]eject  [e]dit text  [s]kip  [q]uit: ")
        if key == "a":
            ws.questions.edit(args.name, number, reviewed=True)
            done += 1
        elif key == "r":
            ws.questions.remove(args.name, number)
            removed += 1
            total -= 1
        elif key == "e":
            sys.stdout.write("new question: ")
            sys.stdout.flush()
            text = sys.stdin.readline().strip()
            if text:
                try:
                    ws.questions.edit(args.name, number, text=text, reviewed=True)
                except DatasetError as exc:  # the one question rule: said, and the draft stays unreviewed
                    say(f"  not changed: {exc}")
                    continue
                done += 1
        elif key == "q":
            break
    say(f"{done} of {total} drafts reviewed in {args.name!r}")
    return 0


def _quoted(name: str) -> str:
    return f'"{name}"' if " " in name else name


ACTIONS = {"new": run_new, "list": run_list, "show": run_show, "add": run_add, "edit": run_edit,
           "remove": run_remove, "rename": run_rename, "duplicate": run_duplicate, "delete": run_delete,
           "check": run_check, "export": run_export, "review": run_review}


def run(args: argparse.Namespace) -> int:
    from workbench.core.evaluate.question_set import DatasetError

    if args.action is None:
        raise UserError("give an action: " + ", ".join(ACTIONS))
    # only 'new' makes a store: every other action needs a set, so a folder without a store is refused and
    # nothing is created there (as 'docs' and 'verify' do)
    ws = open_workspace(args, existing=args.action != "new")
    try:
        return ACTIONS[args.action](args, ws)
    except (DatasetError, KeyError, ValueError) as exc:
        raise UserError(str(exc.args[0] if exc.args else exc)) from None


def _ref_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ref", action="append", metavar="DOC:START:END",
                   help="a reference span: document id or file name, then character offsets (repeatable)")
    p.add_argument("--quote", action="append", metavar="TEXT",
                   help="a reference given by its exact text, located in the documents (refused with the "
                        "candidates when absent or found more than once; repeatable)")
    p.add_argument("--doc", action="append", metavar="DOC", help="look for --quote in this document only "
                                                                 "(repeatable)")
    p.add_argument("--notes", help="a note kept with the question")
    p.add_argument("--tag", action="append", metavar="TAG", help="a tag (repeatable)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("questions", help="question sets of your own, stored in the data folder: new, add, list, "
                                         "show, edit, remove, review, check, export, rename, duplicate, delete")
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    a = acts.add_parser("new", help="create an empty question set")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--note", help="what the set is for")
    a.add_argument("--searched", choices=("all", "referenced"), default="all",
                   help="what the set's evaluations search: every document now in the data folder (default: the "
                        "others are distractors, as in a real search) or only those its references point into")
    acts.add_parser("list", help="the stored sets, with what each holds and can tell")
    a = acts.add_parser("show", help="a set's questions, references and provenance, and what the set can tell")
    a.add_argument("name", metavar="NAME")
    a = acts.add_parser("add", help="add a question with its reference spans")
    a.add_argument("name", metavar="NAME")
    a.add_argument("question", metavar="QUESTION")
    _ref_options(a)
    a = acts.add_parser("edit", help="change a question's text, references (all replaced), notes or tags")
    a.add_argument("name", metavar="NAME")
    a.add_argument("number", type=int, metavar="N", help="the question's number (questions show)")
    a.add_argument("--text", help="the new question text")
    _ref_options(a)
    a = acts.add_parser("remove", help="remove one question")
    a.add_argument("name", metavar="NAME")
    a.add_argument("number", type=int, metavar="N")
    for action, what in (("rename", "give a set another name"), ("duplicate", "copy a set under a new name")):
        a = acts.add_parser(action, help=what)
        a.add_argument("name", metavar="NAME")
        a.add_argument("new_name", metavar="NEW_NAME")
    a = acts.add_parser("delete", help="delete a set and its questions")
    a.add_argument("name", metavar="NAME")
    a = acts.add_parser("check", help="every span inside its document, none empty, duplicates reported "
                                      "(exit 3 when a problem is found)")
    a.add_argument("name", metavar="NAME")
    a = acts.add_parser("review", help="accept, reject or edit the unreviewed drafts on the terminal, one key each")
    a.add_argument("name", metavar="NAME")
    a = acts.add_parser("export", help="write a set as Chroma's questions.csv + corpora/, or JSON Lines with spans")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--format", choices=["chroma", "jsonl"], default="chroma", help="chroma (default) or jsonl")
    a.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder to write into")
    for parser in acts.choices.values():
        add_common(parser)
    p.set_defaults(func=run)
