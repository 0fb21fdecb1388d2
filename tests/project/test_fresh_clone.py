"""A clone of this repository alone must work: bundled question sets, no path outside the repository."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import CHROMA, ROOT, TESTS

# Folder names of other machines and of the checkout's siblings, joined at run time so this file holds
# none of the paths it looks for.
_SEP = chr(47)
_SIBLING = "sha" + "red"
_HOMES = ("wo" + "rk", "ho" + "me", "ro" + "ot", "Us" + "ers")
_OUTSIDE = [
    re.escape("..") + r"[/\\]" + _SIBLING + r"\b",  # a sibling folder of the checkout
    *[r"(?<![\w.])" + _SEP + name + _SEP + (r"[A-Za-z]" if name.startswith("h") else "") for name in _HOMES],
    r"\b[A-Z]:" + re.escape("\\") + _HOMES[3],
]


def _tracked_text_files() -> list:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = []
    for name in out.decode().split("\0"):
        if not name or name.startswith("workbench/datasets/chroma-general/"):
            continue  # third-party data, bundled unchanged
        path = ROOT / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            continue  # binary (PNG, PDF …)
        files.append((name, data.decode("utf-8", errors="replace")))
    return files


def test_no_tracked_file_refers_to_a_path_outside_the_repository():
    pattern = re.compile("|".join(_OUTSIDE))
    hits = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for name, text in _tracked_text_files() for m in pattern.finditer(text)]
    assert not hits, "paths outside the repository:\n" + "\n".join(hits)


def test_the_outside_path_check_catches_what_it_should():
    pattern = re.compile("|".join(_OUTSIDE))
    bad_paths = [".." + _SEP + _SIBLING + _SEP + "datasets",
                 *[_SEP + _SEP.join((name, "alice", "data")) for name in _HOMES]]
    for bad in bad_paths:
        assert pattern.search(bad), bad
    for good in ["--data-dir /tmp/wb", "tests/data/x.md", "workbench/datasets/chroma-general", "/dev/zero"]:
        assert not pattern.search(good), good


def test_bundled_sets_are_listed_and_resolve_by_name():
    from workbench.core.evaluate.bundled import bundled_sets, resolve_dataset
    from workbench.core.evaluate.datasets import DatasetError, load_question_set

    sets = {s.name: s for s in bundled_sets()}
    chroma = sets["chroma-general"]
    assert chroma.path.resolve() == CHROMA.resolve()
    assert chroma.questions == 472 and chroma.licence == "MIT"
    assert set(chroma.corpora) == {"chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts"}
    assert (CHROMA / "LICENSE").is_file() and "MIT" in (CHROMA / "README.md").read_text(encoding="utf-8")
    assert resolve_dataset("chroma-general") == chroma.path
    qset = load_question_set("chroma-general")
    assert len(qset.questions) == 472 and not qset.mismatches
    try:
        load_question_set("no-such-set")
    except DatasetError as exc:
        assert "chroma-general" in str(exc)  # the message lists what is bundled
    else:  # pragma: no cover - the assertion above is the test
        raise AssertionError("an unknown name must be refused")


@pytest.mark.slow
def test_cli_datasets_and_eval_by_name_from_the_filesystem_root(tmp_path):
    """``workbench eval chroma-general`` works from any folder with a fresh data folder (here: /), in a process
    of its own (the evaluation on the hashed embedder: the bundled set and the paths are the point)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    listed = subprocess.run([sys.executable, "-m", "workbench.cli", "datasets", "--json"], cwd="/", env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "chroma-general" in [d["name"] for d in json.loads(listed.stdout)]
    data = tmp_path / "fresh-data"
    proc = subprocess.run(
        [sys.executable, str(TESTS / "hashed_cli.py"), "eval", "chroma-general", "--strategy", "plain", "--corpus",
         "chatlogs", "--limit", "4", "--json", "--quiet", "--data-dir", str(data)],
        cwd="/", env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["strategy"] == "plain" and row["questions"] == 4 and row["covered"] == 4
    assert 0.0 < row["recall"] <= 1.0 and 0.0 < row["iou"] <= row["precision"] <= 1.0
