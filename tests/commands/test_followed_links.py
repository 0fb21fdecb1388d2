"""Issue #29 item 6d: a document reached through ``--follow-links`` goes when its link goes, and the documents
of a folder deleted from disk can be removed from the command line (``workbench remove PATH``)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from cli_support import run_cli


def _paths(capsys, data) -> list[str]:
    code, out, err = run_cli(capsys, "docs", "--data-dir", data, "--json")
    assert code == 0, err
    return sorted(d["path"] for d in json.loads(out)["documents"])


@pytest.fixture
def linked(tmp_path):
    """``corpus/`` with one file of its own, a link to a file outside and a link to a folder outside."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "far.md").write_text("# Far\n\nThe far file is reached through a link.\n", encoding="utf-8")
    (outside / "dir" / "deep.md").write_text("# Deep\n\nA file in a linked folder.\n", encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "own.md").write_text("# Own\n\nThe corpus's own file.\n", encoding="utf-8")
    os.symlink(outside / "far.md", corpus / "far-link.md")
    os.symlink(outside / "dir", corpus / "linked-dir")
    return corpus, outside


def test_a_document_reached_through_a_link_goes_when_the_link_goes(capsys, tmp_path, linked, hash_cli):
    corpus, outside = linked
    data = tmp_path / "data"
    code, _, err = run_cli(capsys, "index", corpus, "--follow-links", "--data-dir", data, "--quiet")
    assert code == 0, err
    assert len(_paths(capsys, data)) == 3
    (corpus / "far-link.md").unlink()
    (corpus / "linked-dir").unlink()
    code, out, err = run_cli(capsys, "index", corpus, "--follow-links", "--data-dir", data, "--quiet", "--json")
    assert code == 0, err
    assert len(json.loads(out)["removed"]) == 2
    paths = _paths(capsys, data)
    assert len(paths) == 1 and paths[0].endswith("own.md"), paths
    assert (outside / "far.md").exists(), "the target itself is untouched"


def test_a_document_whose_link_target_was_deleted_goes_too(capsys, tmp_path, linked, hash_cli):
    corpus, outside = linked
    data = tmp_path / "data"
    assert run_cli(capsys, "index", corpus, "--follow-links", "--data-dir", data, "--quiet")[0] == 0
    (outside / "far.md").unlink()  # far-link.md is now a broken link
    code, out, err = run_cli(capsys, "index", corpus, "--follow-links", "--data-dir", data, "--quiet", "--json")
    assert code == 0, err
    assert not any(p.endswith("far.md") or p.endswith("far-link.md") for p in _paths(capsys, data))


def test_remove_takes_out_the_documents_of_a_deleted_folder(capsys, tmp_path, hash_cli):
    keep, gone = tmp_path / "keep", tmp_path / "gone"
    for folder in (keep, gone):
        (folder / "sub").mkdir(parents=True)
        (folder / "a.md").write_text(f"# A\n\nA file of {folder.name}.\n", encoding="utf-8")
        (folder / "sub" / "b.md").write_text(f"# B\n\nAnother file of {folder.name}.\n", encoding="utf-8")
    (tmp_path / "gone-too.md").write_text("# Sibling\n\nNot inside the folder, only a similar name.\n",
                                          encoding="utf-8")
    data = tmp_path / "data"
    assert run_cli(capsys, "index", keep, gone, tmp_path / "gone-too.md", "--data-dir", data, "--quiet")[0] == 0
    shutil.rmtree(gone)
    code, out, err = run_cli(capsys, "index", gone, "--data-dir", data, "--quiet")
    assert code == 1 and "no such file or folder" in err  # index cannot reach it any more
    code, out, err = run_cli(capsys, "remove", gone, "--data-dir", data)
    assert code == 0, err
    assert "removed 2 document(s)" in out
    paths = _paths(capsys, data)
    assert len(paths) == 3 and not any(p.startswith(str(gone) + os.sep) for p in paths), paths
    code, out, err = run_cli(capsys, "search", "file", "--data-dir", data, "--quiet", "--json")
    assert code == 0 and all(not r["doc_path"].startswith(str(gone) + os.sep) for r in json.loads(out))
    code, out, err = run_cli(capsys, "remove", gone, "--data-dir", data)
    assert code == 1 and err.count("\n") == 1 and "no indexed document" in err
    code, out, err = run_cli(capsys, "remove", keep / "a.md", "--data-dir", data, "--json")  # one file
    assert code == 0 and len(json.loads(out)["removed"]) == 1 and len(_paths(capsys, data)) == 2
