"""Issue #48 item 16: ``--max-file-mb`` is checked before any change (0 means no limit; otherwise at least 1 KiB: a
smaller limit skips every file, and one under a byte rounded to no limit at all), a run that skips files for the
size limit never removes their earlier indexed versions, and the message says what truly happened."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n" + "Alpha words about the river. " * 100, encoding="utf-8")  # ~2.9 kB
    (docs / "b.md").write_text("# B\n\n" + "Beta words about the pass. " * 100, encoding="utf-8")
    return docs


def _docs(capsys, data) -> list[str]:
    code, out, _ = run_cli(capsys, "docs", "--json", "--data-dir", data)
    assert code == 0
    return sorted(d["path"].rsplit("/", 1)[-1] for d in json.loads(out)["documents"])


@pytest.mark.parametrize("value", ["0.001", "0.0000001", "1e-300", "0.0001"])
def test_a_limit_that_skips_everything_or_rounds_to_none_is_refused_before_any_change(value, folder, tmp_path,
                                                                                        capsys, hash_cli):
    data = tmp_path / "data"
    for command in (["index", folder], ["eval", "--compare", "a", "b"]):
        code, out, err = run_cli(capsys, *command, "--max-file-mb", value, "--data-dir", data)
        assert code == 2 and "at least 0.001024 (1 KiB)" in err and len(err.strip().splitlines()) == 1, err
    assert not data.exists()


def test_zero_is_no_limit_and_one_kib_is_allowed(folder, tmp_path, capsys, hash_cli):
    assert run_cli(capsys, "index", folder, "--max-file-mb", "0", "--data-dir", tmp_path / "d0", "--quiet")[0] == 0
    code, _, err = run_cli(capsys, "index", folder, "--max-file-mb", "0.001024", "--data-dir", tmp_path / "d1",
                           "--quiet")
    assert code == 1 and "2 file(s) over the size limit (--max-file-mb) were skipped" in err, err
    assert "no readable" not in err


def test_files_skipped_for_the_size_limit_keep_their_earlier_versions(folder, tmp_path, capsys, hash_cli):
    data = tmp_path / "data"
    assert run_cli(capsys, "index", folder, "--data-dir", data, "--quiet")[0] == 0
    assert _docs(capsys, data) == ["a.md", "b.md"]
    code, out, err = run_cli(capsys, "index", folder, "--max-file-mb", "0.002", "--data-dir", data, "--json",
                             "--quiet")
    assert code == 0, err
    report = json.loads(out)
    assert report["removed"] == [] and len(report["skipped"]) == 2
    assert all("its earlier version stays indexed" in json.dumps(s) for s in report["skipped"]), report["skipped"]
    assert _docs(capsys, data) == ["a.md", "b.md"], "the size limit removed earlier versions"
    assert run_cli(capsys, "search", "river", "--data-dir", data, "--quiet")[0] == 0
    assert run_cli(capsys, "verify", "--data-dir", data)[0] == 0


def test_a_small_file_is_said_in_bytes(folder, tmp_path, capsys, hash_cli):
    code, out, _ = run_cli(capsys, "index", folder, "--max-file-mb", "0.002", "--data-dir", tmp_path / "d", "--json",
                           "--quiet")
    assert "bytes; the limit is 0.002 MB" in out and "0.0 MB" not in out
