"""Hand-made chunkings as a workspace part (``ws.cuts``): each workspace cuts ``edited:NAME`` with its own data
folder's chunking (no module-wide source), the window and the command line reach them only through the facade,
and parallel edits in separate processes each keep theirs (one transaction under the writer lock)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import CutEdit, HandChunking, text_sha
from workbench.core.ingest.values import ChunkConfig
from workbench.core.workspace import Workspace
from workbench.core.workspace.cuts import EditRefused, base_chunker_json

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "resources" / "sample"
GUIDE = SAMPLE / "deploy-guide.md"
BASE = ChunkConfig()  # the base: the default fixed-size cut


def _workspace(path: Path, embedder) -> Workspace:
    ws = Workspace(path, embedder=embedder)
    ws.add_documents([str(GUIDE)])
    return ws


def _split(ws: Workspace, name: str, at: int) -> HandChunking:
    doc = ws.corpus.document(int(ws.records.documents()[0]["id"]))
    assert doc.id is not None
    start = HandChunking(name, "plain", base_chunker_json(BASE))
    return ws.cuts.edit(name, [CutEdit("split", doc.id, doc.path, text_sha(doc.text), at)], start).after


def _cut_spans(ws: Workspace, config: ChunkConfig) -> list[tuple[int, int]]:
    """The spans the chunk set of ``config`` holds for the one document (cut by the chunker, not by ws.cuts)."""
    rt = ws.sets.runtime(ws.sets.ensure_chunk_set(config).id)
    doc_id = int(ws.records.documents()[0]["id"])
    return [(s.start, s.end) for s in (rt.span(r) for r in range(*rt.doc_rows(doc_id)))]


def test_two_workspaces_in_one_process_each_cut_with_their_own_chunking(tmp_path, hash_embedder):
    one = _workspace(tmp_path / "one", hash_embedder)
    two = _workspace(tmp_path / "two", hash_embedder)  # built last: it once lent its chunkings to every workspace
    bare = _workspace(tmp_path / "bare", hash_embedder)
    try:
        _split(one, "h", 50)
        _split(two, "h", 120)
        config = apply_chunker(BASE, "edited:h")
        spans_one, spans_two = _cut_spans(one, config), _cut_spans(two, config)
        assert (0, 50) in spans_one and all(s[1] != 120 for s in spans_one)
        assert (0, 120) in spans_two and all(s[1] != 50 for s in spans_two)
        assert one.sets.find_chunk_set(config) != two.sets.find_chunk_set(config)  # other edits: other sets
        with pytest.raises(ChunkerError, match="no hand-made chunking called 'h'"):
            bare.sets.ensure_chunk_set(config)
        assert one.cuts.names() == two.cuts.names() == ["h"] and bare.cuts.names() == []
    finally:
        for ws in (one, two, bare):
            ws.close()


def test_an_edit_is_checked_against_the_chunking_as_stored_when_it_is_kept(tmp_path, hash_embedder):
    ws = _workspace(tmp_path / "w", hash_embedder)
    try:
        first = _split(ws, "h", 50)
        other = HandChunking("h", "other", '{"name":"recursive","max_tokens":40,"overlap":0}')
        doc = ws.corpus.document(first.edits[0].doc_id)
        edit = CutEdit("split", first.edits[0].doc_id, doc.path, text_sha(doc.text), 70)
        with pytest.raises(EditRefused, match="another chunker"):
            ws.cuts.edit("h", [edit], other)
        with pytest.raises(EditRefused, match="no hand-made chunking called 'new'"):
            ws.cuts.edit("new", [edit])
        change = ws.cuts.edit("h", [edit])  # no start: the stored chunking is extended
        assert change.before == first and change.after.edits == (*first.edits, edit)
        assert ws.cuts.delete("h") and ws.cuts.get("h") is None and not ws.cuts.delete("h")
        with pytest.raises(EditRefused, match="no longer stored"):
            ws.cuts.take_back("h", [edit])
    finally:
        ws.close()


def test_an_undo_takes_back_its_own_edit_and_keeps_one_made_meanwhile_elsewhere(tmp_path, hash_embedder):
    ws = _workspace(tmp_path / "w", hash_embedder)
    other = Workspace(tmp_path / "w", embedder=hash_embedder)  # another program on the same folder
    try:
        mine = _split(ws, "h", 50).edits[-1]
        theirs = _split(other, "h", 300).edits[-1]
        after = ws.cuts.take_back("h", [mine])  # the window's Ctrl+Z
        assert after.edits == (theirs,) and other.cuts.get("h") == after
    finally:
        ws.close()
        other.close()


def test_the_window_and_the_command_line_never_reach_into_the_store():
    reach = re.compile(r"\b(ws|workspace|self\.ws|self\.workspace|self\._ws|pane\.ws)\.store\b")
    found = [f"{path.relative_to(ROOT)}:{number}" for folder in ("ui", "commands")
             for path in sorted((ROOT / "workbench" / folder).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if reach.search(line)]
    assert found == []


@pytest.mark.slow  # twelve real processes (about 8 s on a loaded two-core machine)
def test_parallel_edits_in_separate_processes_each_keep_their_change(tmp_path, hash_cli, capsys):
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", GUIDE, "--data-dir", data)
    assert code == 0, err
    code, _, err = run_cli(capsys, "cuts", "edit", "e", "--base", "plain", "--split", "deploy-guide.md:40",
                           "--data-dir", data)
    assert code == 0, err
    code, _, err = run_cli(capsys, "questions", "new", "q", "--data-dir", data)
    assert code == 0, err
    offsets = [100 + 97 * i for i in range(8)]
    commands = [["cuts", "edit", "e", "--split", f"deploy-guide.md:{at}"] for at in offsets]
    commands += [["questions", "add", "q", f"What is step {i}?", "--ref", f"deploy-guide.md:{10 + i}:{40 + i}"]
                 for i in range(4)]  # other writers of the same store meanwhile
    procs = [subprocess.Popen([sys.executable, str(ROOT / "tests" / "hashed_cli.py"), *args, "--data-dir", str(data)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for args in commands]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "+ split" in out or "added to 'q'" in out
    code, out, err = run_cli(capsys, "cuts", "show", "e", "--json", "--data-dir", data)
    assert code == 0, err
    assert sorted(e["at"] for e in json.loads(out)["edits"]) == [40, *offsets]
    code, out, err = run_cli(capsys, "questions", "show", "q", "--json", "--data-dir", data)
    assert code == 0, err
    assert sorted(q["question"] for q in json.loads(out)["questions"]) == [f"What is step {i}?" for i in range(4)]
