"""An import is all or nothing (issue #48, items 4 and 5): a failed import leaves no document, folder or set
behind, and documents stored before it stay; imported documents live in a folder named by the set's exact name,
so two names that differ only by a space and an underscore never share one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.core.evaluate.importers.base import folder_name

FIXTURES = Path(__file__).parents[2] / "fixtures" / "benchmarks"


def _rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _docs(capsys, data: Path) -> list[str]:
    code, out, err = run_cli(capsys, "docs", "--json", "--data-dir", data)
    assert code == 0, err
    return sorted(d["path"] for d in json.loads(out)["documents"])


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def test_a_failed_import_leaves_no_document_folder_or_set(tmp_path, hash_cli, capsys):
    data = tmp_path / "data"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.txt").write_text("Earlier notes that were indexed before any import.\n", encoding="utf-8")
    assert run_cli(capsys, "index", corpus, "--data-dir", data, "--quiet")[0] == 0
    before_docs, before_files = _docs(capsys, data), _files(data)
    # every row's context is its own document; no evidence sentence is in it: nothing can be imported
    bad = _rows(tmp_path / "bad.jsonl", [
        {"id": f"r{i}", "input": f"question {i}?", "evidences": ["not in the text"],
         "context": f"Context number {i} of the failed import."} for i in range(3)])
    code, _, err = run_cli(capsys, "import-questions", "hicbench", bad, "--set", "failed", "--data-dir", data,
                           "--quiet")
    assert code == 1 and "no question could be imported" in err and len(err.strip().splitlines()) == 1, err
    assert _docs(capsys, data) == before_docs, "the failed import's documents stay indexed"
    assert _files(data) == before_files, "the failed import left files behind"
    code, out, _ = run_cli(capsys, "questions", "list", "--json", "--data-dir", data)
    assert "failed" not in out
    # a second import of the same name works, and the earlier document is still there
    good = FIXTURES / "hicbench" / "hicbench-mini.jsonl"
    assert run_cli(capsys, "import-questions", "hicbench", good, "--set", "failed", "--data-dir", data,
                   "--quiet")[0] == 0
    assert set(before_docs) <= set(_docs(capsys, data))


def test_a_document_already_stored_stays_when_an_import_fails(tmp_path, hash_cli, capsys):
    data = tmp_path / "data"
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "report.txt").write_text("Revenue grew by 12 percent in 2024.\n", encoding="utf-8")
    assert run_cli(capsys, "index", bench / "report.txt", "--data-dir", data, "--quiet")[0] == 0
    before = _docs(capsys, data)
    rows = _rows(bench / "rows.jsonl", [{"id": "x", "input": "q?", "evidences": ["absent sentence"],
                                         "document": "report.txt"}])
    code, _, err = run_cli(capsys, "import-questions", "hicbench", rows, "--set", "s", "--data-dir", data, "--quiet")
    assert code == 1, err
    assert _docs(capsys, data) == before


def test_names_that_differ_by_a_space_and_an_underscore_keep_their_own_documents(tmp_path, hash_cli, capsys):
    assert folder_name("x y") != folder_name("x_y")
    data = tmp_path / "data"
    first = _rows(tmp_path / "a.jsonl", [{"id": "a", "input": "What colour is the sky?",
                                          "evidences": ["The sky is blue."], "context": "The sky is blue. Yes."}])
    second = _rows(tmp_path / "b.jsonl", [{"id": "a", "input": "What colour is grass?",
                                           "evidences": ["Grass is green."], "context": "Grass is green. Yes."}])
    for name, rows in (("x y", first), ("x_y", second)):
        code, _, err = run_cli(capsys, "import-questions", "hicbench", rows, "--set", name, "--data-dir", data,
                               "--quiet")
        assert code == 0, err
    for name, holds in (("x y", "The sky is blue."), ("x_y", "Grass is green.")):
        code, out, _ = run_cli(capsys, "questions", "show", name, "--json", "--data-dir", data)
        shown = json.loads(out)
        assert [r["text"] for q in shown["questions"] for r in q["references"]] == [holds]
        assert not any(q["needs_review"] for q in shown["questions"])
        assert run_cli(capsys, "questions", "check", name, "--data-dir", data)[0] == 0


def test_a_renamed_set_keeps_its_documents_when_its_old_name_is_imported_again(tmp_path, hash_cli, capsys):
    data = tmp_path / "data"
    first = _rows(tmp_path / "a.jsonl", [{"id": "a", "input": "What colour is the sky?",
                                          "evidences": ["The sky is blue."], "context": "The sky is blue. Yes."}])
    second = _rows(tmp_path / "b.jsonl", [{"id": "a", "input": "What colour is grass?",
                                           "evidences": ["Grass is green."], "context": "Grass is green. Yes."}])
    assert run_cli(capsys, "import-questions", "hicbench", first, "--set", "s", "--data-dir", data,
                   "--quiet")[0] == 0
    assert run_cli(capsys, "questions", "rename", "s", "kept", "--data-dir", data)[0] == 0
    assert run_cli(capsys, "import-questions", "hicbench", second, "--set", "s", "--data-dir", data,
                   "--quiet")[0] == 0
    assert run_cli(capsys, "questions", "check", "kept", "--data-dir", data)[0] == 0


def test_a_benchmark_file_that_now_fails_keeps_its_earlier_version_and_the_index_consistent(tmp_path, hash_cli,
                                                                                             capsys):
    """A book indexed before and emptied since: the import fails on it, and neither the document nor the chunk set's
    FAISS file changes (the earlier version was removed, its vectors dropped, then the removal rolled back: verify
    said INCONSISTENT)."""
    bench = tmp_path / "g"
    shutil.copytree(FIXTURES / "gutenqa", bench)
    data = tmp_path / "data"
    assert run_cli(capsys, "index", bench / "books", "--data-dir", data, "--quiet")[0] == 0
    before = _docs(capsys, data)
    (bench / "books" / "Moby_Dick.txt").write_text("", encoding="utf-8")
    code, _, err = run_cli(capsys, "import-questions", "gutenqa", bench, "--set", "g", "--data-dir", data, "--quiet")
    assert code == 1 and "its earlier version stays indexed" in err and "removed" not in err, err
    assert _docs(capsys, data) == before
    code, out, err = run_cli(capsys, "verify", "--data-dir", data)
    assert code == 0, out + err


def test_an_import_cancelled_midway_leaves_nothing(tmp_path, hash_ws):
    """Cancelled after the documents were read (the progress sink cancels at the first event): the documents
    written so far, the folder and the set all go."""
    from workbench.core.evaluate.importers import READERS, import_parsed
    from workbench.core.jobs import Cancelled, CancelToken

    token = CancelToken()
    parsed = READERS["qasper"](FIXTURES / "qasper" / "qasper-mini.json")
    with pytest.raises(Cancelled):
        import_parsed(hash_ws, parsed, "q", "qasper", progress=lambda event: token.cancel(), cancel=token)
    assert hash_ws.records.documents() == [] and hash_ws.questions.names() == []
    assert not (hash_ws.data_dir / "imported").exists()
    report = import_parsed(hash_ws, parsed, "q", "qasper")  # nothing half-done stands in the way
    assert report.questions == 2


def test_what_a_killed_import_left_is_cleared_by_the_next_import_of_the_name(tmp_path, hash_ws):
    """kill -9 midway leaves the store as it was (one transaction) but text files written so far; the next import
    of that name clears them instead of leaving them beside a new folder. A folder that stored documents lie in
    (a set renamed since) is never touched."""
    from workbench.core.evaluate.importers import READERS, import_parsed
    from workbench.core.evaluate.importers.base import folder_name

    left = hash_ws.data_dir / "imported" / folder_name("q")
    left.mkdir(parents=True)
    (left / "half-written.txt").write_text("left by a killed import", encoding="utf-8")
    parsed = READERS["qasper"](FIXTURES / "qasper" / "qasper-mini.json")
    import_parsed(hash_ws, parsed, "q", "qasper")
    assert sorted(p.name for p in (hash_ws.data_dir / "imported").iterdir()) == [folder_name("q")]
    assert not (left / "half-written.txt").exists()
    hash_ws.questions.rename("q", "kept")
    import_parsed(hash_ws, parsed, "q", "qasper")
    assert sorted(p.name for p in (hash_ws.data_dir / "imported").iterdir()) == [folder_name("q"),
                                                                                folder_name("q") + "-2"]
