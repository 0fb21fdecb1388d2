"""Issue #48: every path option of the command line, for output and for input, given a FIFO, a device, a symbolic
link out of the folder, a missing folder and an oversize file: one line on stderr, exit 1 or 2, and nothing
written or created (no file appears outside the data folder, no file outside it changes, the FIFO stays a
FIFO). In this process with the hashed embedder; an ``alarm`` turns a read that would block into a failure."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.cli import build_parser

# (arguments with P for the path under test, the role of P). OUT: a file written; DIR: a folder written into;
# IN: a file or folder read (a benchmark, an export, a question set).
CASES: list[tuple[str, str]] = [
    ("chunks export plain --out P", "OUT"),
    ("chunks export plain --out P --force", "OUT"),
    ("chunks export plain --out P --format csv --vectors --force", "OUT"),
    ("questions export s --out P", "DIR"),
    ("questions export s --format jsonl --out P", "DIR"),
    ("eval s --strategy plain --out P", "DIR"),
    ("runs --show last --out P", "DIR"),
    ("make-questions --out P --n 1 --llm extractive", "DIR"),
    *((f"import-questions {fmt} P --set z", "IN") for fmt in
      ("chroma", "legalbench-rag", "qasper", "ragbench", "hicbench", "gutenqa", "mtcb", "squad")),
    ("cuts edit e --base plain --from-export P", "IN"),
    ("eval P --strategy plain", "IN"),
    ("advise P --plan-only", "IN"),
    ("make-questions P --out OUT --n 1 --llm extractive", "IN"),
    ("index P", "IN"),
    ("remove P", "IN"),  # names stored documents: a path that is not one is refused
    ("search x --model P", "IN"),
    ("ask x --llm embedded --llm-model P", "IN"),
]
KINDS = ("fifo", "device", "link_out", "missing", "oversize")
WRITERS = {"index"}  # a named FIFO or device is recorded as a skipped file, with its reason, by design
# path-like options and positionals this suite covers; a new one must be added to CASES
PATH_DESTS = {"out", "from_export", "source", "dataset", "paths", "model", "llm_model", "data_dir"}
NOT_FUZZED_HERE = {"data_dir"}  # test_cli_guards / test_paths_out: a missing, file or FIFO data folder


def _parsers(parser: argparse.ArgumentParser, name: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, p in action.choices.items():
                yield from _parsers(p, f"{name} {sub}".strip())


def test_every_path_option_is_in_the_fuzz_table():
    """Every option or positional that names a file or folder (by its metavar) is fuzzed below."""
    covered = {case.split(" P")[0].split(" --")[0] for case, _ in CASES}
    missing = []
    for name, parser in _parsers(build_parser()):
        for action in parser._actions:
            metavar = str(action.metavar or "")
            if any(w in metavar for w in ("PATH", "DIR", "FILE", "SOURCE", "DATASET", "CORPUS")) \
                    and action.dest not in PATH_DESTS:
                missing.append(f"{name} {action.dest} ({metavar})")
        dests = {a.dest for a in parser._actions} & (PATH_DESTS - NOT_FUZZED_HERE)
        for dest in dests:
            option = next(a for a in parser._actions if a.dest == dest)
            flag = option.option_strings[-1] if option.option_strings else "P"
            if not any(case.startswith(name) and (flag in case or flag == "P") for case, _ in CASES) \
                    and dest not in ("model", "llm_model"):  # common options, fuzzed once each (search, ask)
                missing.append(f"{name} {flag}")
    assert not missing, f"path options not fuzzed: {missing}"
    assert covered


@pytest.fixture(scope="module")
def template(tmp_path_factory, hash_sample_data_dir) -> Path:
    """The sample data folder with a question set ``s`` of one question (built once)."""
    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace

    folder = tmp_path_factory.mktemp("fuzz") / "data"
    shutil.copytree(hash_sample_data_dir, folder)
    from fake_embedder import HashEmbedder

    ws = Workspace(folder, embedder=HashEmbedder())
    ws.questions.create("s", "")
    doc = next(int(r["id"]) for r in ws.records.documents() if r["path"].endswith("deploy-guide.md"))
    ws.questions.add("s", "how do I roll back", [Span(doc, 0, 40)])
    ws.close()
    return folder


def _device(tmp: Path, role: str) -> str:
    if role == "IN":
        return "/dev/zero"  # only ever read
    path = tmp / "dev"
    try:  # written at: a device node of our own (a /dev/null twin), never a real device
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("making a device node needs root")
    return str(path)


def _suffix(case: str) -> str:
    if "squad" in case or "qasper" in case:
        return ".json"
    if "from-export" in case or "import-questions" in case:
        return ".jsonl"
    if "llm-model" in case:
        return ".gguf"
    return ".csv" if "--format csv" in case else ".jsonl" if "--out" in case else ""


def _link_out(tmp: Path, case: str, role: str, secret: Path) -> str | None:
    """A path whose use would reach ``secret`` through a link, or None where the person names the file itself."""
    if role == "OUT":
        link = tmp / f"link{_suffix(case)}"
        link.symlink_to(secret)
        return str(link)
    folder = tmp / "bench"
    if role == "DIR":
        folder.mkdir()
        (folder / "corpora").mkdir()
        (folder / "corpora" / "deploy-guide.md").symlink_to(secret)
        return str(folder)
    if "gutenqa" in case or "mtcb" in case:
        (folder / "books").mkdir(parents=True)
        (folder / "books" / "b.txt").symlink_to(secret)
        (folder / "questions.jsonl").write_text(json.dumps(
            {"question": "q?", "chunk_must_contain": "alpha", "book_name": "b"}) + "\n", encoding="utf-8")
    elif "legalbench" in case:
        (folder / "benchmarks").mkdir(parents=True)
        (folder / "corpus" / "c").mkdir(parents=True)
        (folder / "corpus" / "c" / "b.txt").symlink_to(secret)
        (folder / "benchmarks" / "t.json").write_text(json.dumps({"tests": [{"query": "q?", "snippets": [
            {"file_path": "c/b.txt", "span": [0, 5]}]}]}), encoding="utf-8")
    elif "ragbench" in case:
        folder.mkdir()
        (folder / "x.jsonl").symlink_to(secret)
    elif "hicbench" in case:
        folder.mkdir()
        (folder / "d.txt").symlink_to(secret)
        (folder / "h.jsonl").write_text(json.dumps({"input": "q?", "document": "d.txt", "evidences": ["alpha"]})
                                        + "\n", encoding="utf-8")
        return str(folder / "h.jsonl")
    elif "chroma" in case or case.startswith(("eval", "advise")):
        (folder / "corpora").mkdir(parents=True)
        (folder / "questions.csv").write_text('question,references,corpus_id\nq?,"[]",c\n', encoding="utf-8")
        (folder / "corpora" / "c.md").symlink_to(secret)
    else:
        return None  # a file named on the command line: the person's own choice of link
    return str(folder)


def _oversize(tmp: Path, case: str) -> str | None:
    if "from-export" in case:
        size = 200 * 1024 * 1024 + 1
    elif "import-questions" in case and not any(f in case for f in ("chroma", "legalbench", "gutenqa", "mtcb")):
        size = 512 * 1_000_000 + 1
    elif "chroma" in case or case.startswith(("eval", "advise")):  # a question set whose questions.csv is huge
        folder = tmp / "qs"
        (folder / "corpora").mkdir(parents=True)
        with open(folder / "questions.csv", "wb") as fh:
            fh.truncate(512 * 1_000_000 + 1)
        return str(folder)
    else:
        return None  # a folder, or a file read with --max-file-mb (index, make-questions)
    path = tmp / f"big{_suffix(case)}"
    with open(path, "wb") as fh:
        fh.truncate(size)  # sparse: no disk used
    return str(path)


def _snapshot(tmp: Path, data: Path) -> dict[str, tuple[str, int]]:
    """Every path under ``tmp`` outside the data folder: (kind, size)."""
    out = {}
    for top, dirs, files in os.walk(tmp):
        if Path(top) == data or data in Path(top).parents:
            dirs.clear()
            continue
        for name in dirs + files:
            p = Path(top) / name
            mode = os.lstat(p).st_mode
            kind = "link" if stat.S_ISLNK(mode) else "fifo" if stat.S_ISFIFO(mode) else "dir" \
                if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"
            out[str(p.relative_to(tmp))] = (kind, os.lstat(p).st_size if kind == "file" else 0)
    return out


class _Blocked(Exception):
    pass


def _alarm(signum, frame):
    raise _Blocked("the command blocked (a FIFO was opened or read)")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case, role", CASES, ids=[c for c, _ in CASES])
def test_a_path_option_refuses_a_bad_path_in_one_line_and_writes_nothing(capsys, tmp_path, template, hash_cli,
                                                                         standin_llm, case, role, kind):
    data = tmp_path / "data"
    shutil.copytree(template, data)
    work = tmp_path / "work"
    work.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("alpha beta: a private note", encoding="utf-8")
    if kind == "fifo":
        path: str | None = str(work / f"fifo{_suffix(case)}")
        os.mkfifo(path)
    elif kind == "device":
        path = _device(work, role)
    elif kind == "link_out":
        path = _link_out(work, case, role, secret)
    elif kind == "missing":
        path = None if role == "DIR" else str(work / "no-such-folder" / f"x{_suffix(case)}")  # a DIR is made
    else:
        path = _oversize(work, case) if role == "IN" else None
    if path is None:
        pytest.skip(f"{kind} does not apply to {case}")
    args = [path if a == "P" else str(tmp_path / "mq") if a == "OUT" else a for a in case.split()]
    before = _snapshot(tmp_path, data)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        code, out, err = run_cli(capsys, *args, "--data-dir", data, "--quiet")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    if case.split()[0] in WRITERS and kind in ("fifo", "device"):  # skipped with its reason (test_said_as_it_is)
        assert "not a regular file" in out and code in (0, 1) and "Traceback" not in err, (args, out, err)
        assert _snapshot(tmp_path, data) == before
        return
    assert code in (1, 2), (args, code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench"), (args, err)
    assert "Traceback" not in err
    assert _snapshot(tmp_path, data) == before, "nothing was written or created outside the data folder"
    assert secret.read_text(encoding="utf-8") == "alpha beta: a private note"
    assert not list(data.glob("imported*")), "nothing was imported"
