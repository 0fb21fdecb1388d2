"""``workbench cuts``: a hand-made chunking edited on the command line, used as ``edited:NAME``, its refusals,
its edits flagged when a document changes, only the changed chunks embedded, and an export's spans re-read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli

PARAS = [f"Paragraph {i}. " + " ".join(f"Item {i}-{j} holds a plain sentence." for j in range(25)) for i in range(6)]


@pytest.fixture
def folder(tmp_path, hash_cli, capsys) -> tuple[Path, Path]:
    """(documents folder, data folder) with two markdown documents indexed by the hashed embedder."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n" + "\n\n".join(PARAS), encoding="utf-8")
    (docs / "b.md").write_text("# B\n\n" + "\n\n".join(reversed(PARAS)), encoding="utf-8")
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", docs, "--data-dir", data)
    assert code == 0, err
    return docs, data


def show(capsys, data: Path, name: str, doc: str = "a.md") -> dict[str, list[list[int]]]:
    code, out, err = run_cli(capsys, "cuts", "show", name, "--doc", doc, "--json", "--data-dir", data)
    assert code in (0, 3), err
    return json.loads(out)


def test_split_merge_move_on_the_command_line_give_exact_spans(folder, capsys):
    _, data = folder
    show_base = None
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)
    assert code == 0, err
    shown = show(capsys, data, "h")
    base, spans = shown["base"], shown["spans"]
    assert spans[:2] == [[base[0][0], 50], [50, base[0][1]]] and spans[2:] == base[1:]
    cut, nxt = base[1][0], base[2][0]
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--merge", f"a.md:{nxt}", "--move", f"a.md:{cut}:{cut - 40}",
                           "--data-dir", data)
    assert code == 0, err
    spans = show(capsys, data, "h")["spans"]
    assert spans[:3] == [[base[0][0], 50], [50, cut - 40], [cut - 40, base[2][1]]] and spans[3:] == base[3:]
    text = (folder[0] / "a.md").read_text(encoding="utf-8")
    for (_, b), (c, _) in zip(spans, spans[1:], strict=False):  # no overlap; gaps only of white space
        assert b <= c and not text[b:c].strip()
    assert spans[0][0] == 0 and not text[spans[-1][1]:].strip()
    show_base = show(capsys, data, "h", "b.md")
    assert show_base["spans"] == show_base["base"]  # the other document keeps its base cuts


@pytest.mark.parametrize(("args", "said"), [
    (["--split", "a.md:0"], "outside"),
    (["--split", "a.md:99999999"], "outside"),
    (["--split", "nope.md:10"], "no stored document 'nope.md'"),
    (["--split", "a.md:x"], "not a character offset"),
    (["--split", "a.md"], "expected DOC:OFFSET"),
    (["--merge", "a.md:51"], "no cut at 51"),
    (["--move", "a.md:51:60"], "no cut at 51"),
    (["--move", "a.md:5"], "expected DOC:FROM:TO"),
])
def test_bad_edits_are_refused_in_one_line_and_nothing_is_kept(folder, capsys, args, said):
    _, data = folder
    code, out, err = run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", *args,
                             "--data-dir", data)
    assert code != 0 and said in err and err.count("\n") == 1, err
    code, out, _ = run_cli(capsys, "cuts", "list", "--data-dir", data)
    assert "no hand-made chunkings yet" in out  # the valid --split before it was not kept either


@pytest.mark.parametrize("name", ["a:b", "x/y", "{x}", "", "n" * 81])
def test_a_name_that_could_read_as_a_path_or_code_is_refused_and_nothing_is_kept(folder, capsys, name):
    _, data = folder
    code, _, err = run_cli(capsys, "cuts", "edit", name, "--base", "plain", "--split", "a.md:50", "--data-dir", data)
    assert code != 0 and err.count("\n") == 1, err
    code, out, _ = run_cli(capsys, "cuts", "list", "--data-dir", data)
    assert "no hand-made chunkings yet" in out


def test_starting_needs_a_base_and_the_base_never_names_code(folder, capsys):
    _, data = folder
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--split", "a.md:50", "--data-dir", data)
    assert code != 0 and "give --base STRATEGY" in err
    custom = json.dumps({"chunk": {"chunker": "custom:json:loads"}})
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--base", custom, "--split", "a.md:50", "--data-dir", data)
    assert code != 0 and "custom code" in err, err
    code, _, err = run_cli(capsys, "cuts", "edit", "h", "--base", "no-such", "--split", "a.md:50", "--data-dir", data)
    assert code != 0 and "no-such" in err


def test_an_edit_of_a_changed_document_is_flagged_not_shifted(folder, capsys):
    docs, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--split", "b.md:50",
                   "--data-dir", data)[0] == 0
    path = docs / "a.md"
    path.write_text("# A\n\nA new first line moves every offset.\n\n" + path.read_text(encoding="utf-8")[5:],
                    encoding="utf-8")
    assert run_cli(capsys, "index", docs, "--data-dir", data)[0] == 0
    code, out, _ = run_cli(capsys, "cuts", "show", "h", "--data-dir", data)
    assert code == 3
    lines = out.splitlines()
    assert "changed" in lines[1] and "a.md" in lines[1] and "hash differs" in lines[1]
    assert "applies" in lines[2] and "b.md" in lines[2]
    shown = show(capsys, data, "h")
    assert shown["spans"] == shown["base"]  # the changed document is cut as its base cuts it


def test_only_the_changed_chunks_are_embedded_and_the_set_is_a_new_one(folder, capsys, hash_cli):
    docs, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)[0] == 0
    before = hash_cli.texts_encoded
    code, out, err = run_cli(capsys, "index", docs, "--chunker", "edited:h", "--data-dir", data)
    assert code == 0, err
    assert hash_cli.texts_encoded - before == 2 and "2 embedded" in out  # the split chunk's two halves
    base = show(capsys, data, "h")["base"]
    cut = base[2][0]
    assert run_cli(capsys, "cuts", "edit", "h", "--move", f"a.md:{cut}:{cut + 30}", "--data-dir", data)[0] == 0
    before = hash_cli.texts_encoded
    code, out, err = run_cli(capsys, "index", docs, "--chunker", "edited:h", "--data-dir", data)
    assert code == 0, err
    assert hash_cli.texts_encoded - before == 2 and "2 embedded" in out  # the two chunks around the moved cut


def test_the_strategy_json_names_a_hand_made_chunking(folder, capsys):
    _, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)[0] == 0
    strategy = json.dumps({"chunk": {"chunker": "edited:h"}})
    code, out, err = run_cli(capsys, "search", "A Paragraph 0", "--strategy", strategy, "--json", "--top-k", "20",
                             "--data-dir", data)
    assert code == 0, err
    spans = {(h["doc_path"].rsplit("/", 1)[-1], h["chunk_start"], h["chunk_end"]) for h in json.loads(out)}
    assert ("a.md", 0, 50) in spans  # the split made a chunk that is searched
    code, _, err = run_cli(capsys, "search", "Item", "--chunker", "edited:other", "--data-dir", data)
    assert code != 0 and "no hand-made chunking called 'other'" in err


def test_delete_is_refused_while_a_saved_strategy_uses_it(folder, capsys):
    from workbench.core.retrieve.strategy.presets import resolve
    from workbench.core.workspace import Workspace

    _, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)[0] == 0
    ws = Workspace(data)
    ws.records.save_strategy("mine", resolve({"preset": "plain", "chunk": {"chunker": "edited:h"}}))
    code, _, err = run_cli(capsys, "cuts", "delete", "h", "--data-dir", data)
    assert code != 0 and "saved strategy mine" in err and "nothing was deleted" in err
    ws.records.delete_saved_strategy("mine")
    ws.close()
    code, out, err = run_cli(capsys, "cuts", "delete", "h", "--data-dir", data)
    assert code == 0, err
    assert run_cli(capsys, "cuts", "show", "h", "--data-dir", data)[0] != 0


def _exported(path: Path) -> list[tuple[str, int, int, str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["doc_path"], r["start"], r["end"], r["text"]) for r in rows]


def test_a_chunk_export_read_back_as_a_hand_made_chunking_gives_identical_chunks(folder, capsys, tmp_path):
    _, data = folder
    other = json.dumps({"chunk": {"chunker": {"name": "recursive", "max_tokens": 48}}})
    export = tmp_path / "recursive.jsonl"
    code, _, err = run_cli(capsys, "chunks", "export", other, "--format", "jsonl", "--out", export, "--data-dir", data)
    assert code == 0, err
    code, _, err = run_cli(capsys, "cuts", "edit", "x", "--base", "plain", "--from-export", export, "--data-dir", data)
    assert code == 0, err
    again = tmp_path / "again.jsonl"
    edited = json.dumps({"chunk": {"chunker": "edited:x"}})
    code, _, err = run_cli(capsys, "chunks", "export", edited, "--format", "jsonl", "--out", again, "--data-dir", data)
    assert code == 0, err
    first, second = _exported(export), _exported(again)
    assert len(first) > 20 and second == first  # every document, span and text: the same chunks
    assert show(capsys, data, "x")["base"] != show(capsys, data, "x")["spans"]  # not plain's cuts any more


def test_an_export_whose_text_no_longer_matches_is_refused(folder, capsys, tmp_path):
    _, data = folder
    export = tmp_path / "plain.jsonl"
    code, _, err = run_cli(capsys, "chunks", "export", "plain", "--format", "jsonl", "--out", export,
                           "--data-dir", data)
    assert code == 0, err
    rows = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    rows[1]["text"] = "other"
    export.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, _, err = run_cli(capsys, "cuts", "edit", "y", "--base", "plain", "--from-export", export, "--data-dir", data)
    assert code != 0 and "differs from the exported chunk" in err and "chunk 2" in err
    export.write_text('{"doc_path": "a.md"}\n', encoding="utf-8")
    code, _, err = run_cli(capsys, "cuts", "edit", "y", "--base", "plain", "--from-export", export, "--data-dir", data)
    assert code != 0 and "not an exported chunk" in err
    assert "no hand-made chunkings yet" in run_cli(capsys, "cuts", "list", "--data-dir", data)[1]


def test_edits_follow_the_text_when_a_document_comes_back_under_another_id(folder, capsys):
    docs, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)[0] == 0
    assert run_cli(capsys, "remove", docs / "a.md", "--data-dir", data)[0] == 0
    code, out, _ = run_cli(capsys, "cuts", "show", "h", "--data-dir", data)
    assert code == 3 and "gone" in out.splitlines()[1] and "no longer stored" in out
    assert run_cli(capsys, "index", docs, "--data-dir", data)[0] == 0  # a.md again, under a new id
    code, out, _ = run_cli(capsys, "cuts", "show", "h", "--data-dir", data)
    assert code == 0 and "applies" in out.splitlines()[1], out
    spans = show(capsys, data, "h")["spans"]
    assert spans[0][1] == 50  # the chunker applies it too: the edit follows the text, not the id


def test_a_strategy_changed_on_the_command_line_is_named_by_what_changed(folder, capsys):
    _, data = folder
    assert run_cli(capsys, "cuts", "edit", "h", "--base", "plain", "--split", "a.md:50", "--data-dir", data)[0] == 0
    code, out, err = run_cli(capsys, "search", "A Paragraph 0", "--chunker", "edited:h", "--json", "--data-dir", data)
    assert code == 0, err
    assert {p["strategy"] for p in json.loads(out)} == {"plain · edited:h"}  # not "plain": its chunks are not plain's
    code, out, err = run_cli(capsys, "search", "A Paragraph 0", "--json", "--data-dir", data)
    assert code == 0 and {p["strategy"] for p in json.loads(out)} == {"plain"}  # unchanged: the preset's own name
