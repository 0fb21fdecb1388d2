"""Ingest statuses (issue 18 items 3, 4, 6, 10, 12): every file found gets exactly one status, names that are
not UTF-8 are indexed under an escaped path, special files are never read, re-indexing a folder reconciles
deleted and renamed files. Every fault is generated here; vectors come from the hashed embedder (the
statuses are the point), in the command-line child process too (``tests/hashed_cli.py``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTS

from workbench.commands.index import LISTED_PROBLEMS, problem_lines
from workbench.core.evaluate.datasets import DatasetError, load_question_set, save_question_set
from workbench.core.index.verify import verify_store
from workbench.core.ingest.discovery import discover
from workbench.core.ingest.documents import LoadError, LoadResult, decode_text, load_file
from workbench.core.ingest.filenames import fs_path, shown
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import from_dict

LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")  # a file name that is not UTF-8 (surrogate-escaped in Python)
TOPICS = {
    "tea.md": "# Tea\n\nGreen tea leaves are steamed, black tea leaves are oxidised before drying.\n",
    "bikes.md": "# Bicycles\n\nA derailleur moves the chain between sprockets of the rear cassette.\n",
    "volcano.md": "# Volcanoes\n\nMagma that reaches the surface is called lava; basalt forms as it cools.\n",
}


def statuses(report) -> dict[str, str]:
    """Every path of a report with its status (a path listed twice fails the test)."""
    out: dict[str, str] = {}
    rows = ([(p, "added") for p in report.added] + [(p, "updated") for p in report.updated]
            + [(p, "unchanged") for p in report.unchanged] + [(new, "moved") for _, new in report.moved]
            + [(r.path, "skipped") for r in report.skipped] + [(r.path, "failed") for r in report.failed])
    for path, status in rows:
        assert path not in out, f"{path} is both {out[path]} and {status}"
        out[path] = status
    return out


def key(folder: Path, name: str) -> str:
    return shown(os.path.join(os.path.realpath(folder), name))


def found_paths(ws, question: str) -> list[str]:
    res = ws.search(question, from_dict({"top_k": 10}))
    return [ws.corpus.document(p.span.doc_id).path for p in res.passages]


def write_topics(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TOPICS.items():
        (folder / name).write_text(text)
    return folder


# ----- item 3: file names that are not UTF-8 -------------------------------------------------------------
def test_undecodable_name_is_indexed_under_an_escaped_path_that_round_trips(hash_ws, tmp_path):
    folder = write_topics(tmp_path / "d")
    (folder / LATIN1_NAME).write_text("Caf\u00e9 notes: the espresso machine needs descaling every month.\n")
    first = hash_ws.add_paths([str(folder)])
    escaped = key(folder, "caf\\xe9.txt")
    assert escaped in first.added and len(first.added) == 4 and not first.failed
    doc = next(d for d in hash_ws.store.documents.rows() if d["path"] == escaped)
    assert doc["title"] == "caf\\xe9"
    assert fs_path(escaped) == os.path.join(os.path.realpath(folder), LATIN1_NAME)
    assert escaped in found_paths(hash_ws, "descaling the espresso machine")
    again = hash_ws.add_paths([str(folder)])
    assert len(again.unchanged) == 4 and not again.removed and not again.added
    by_key = hash_ws.add_paths([escaped])  # the library's re-index passes the stored path back
    assert by_key.unchanged == [escaped] and not by_key.failed


@pytest.mark.slow
def test_undecodable_name_through_the_command_line(tmp_path):
    folder = write_topics(tmp_path / "d")
    (folder / LATIN1_NAME).write_text("Caf\u00e9 notes about descaling.\n")
    data = str(tmp_path / "data")
    cmd = [sys.executable, str(TESTS / "hashed_cli.py"), "index", str(folder), "--data-dir", data, "--quiet"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    first = subprocess.run([*cmd, "--json"], capture_output=True, cwd=ROOT, env=env, timeout=300)
    assert first.returncode == 0, first.stderr.decode(errors="replace")
    report = json.loads(first.stdout)
    assert report["added"] == 4 and not report["failed"]
    second = subprocess.run(cmd, capture_output=True, cwd=ROOT, env=env, timeout=300)
    assert second.returncode == 0, second.stderr.decode(errors="replace")
    text = second.stdout.decode()
    assert "4 unchanged" in text
    in_set = int(text.split(" in the set")[0].rsplit(" ", 1)[1])
    assert in_set == report["chunks_total"] > 0, "an unchanged corpus reports the chunks it has (item 12)"


# ----- item 4: deleted, renamed and corrupted files --------------------------------------------------------
def test_deleted_file_is_removed_and_no_longer_found(hash_ws, tmp_path):
    folder = write_topics(tmp_path / "d")
    hash_ws.add_paths([str(folder)])
    assert key(folder, "volcano.md") in found_paths(hash_ws, "lava and basalt")
    (folder / "volcano.md").unlink()
    report = hash_ws.add_paths([str(folder)])
    assert report.removed == [key(folder, "volcano.md")] and len(report.unchanged) == 2
    assert key(folder, "volcano.md") not in found_paths(hash_ws, "lava and basalt")
    assert len(hash_ws.store.documents.rows()) == 2
    assert verify_store(hash_ws)["consistent"]


def test_renamed_file_is_moved_with_its_chunks_and_vectors(hash_ws, tmp_path):
    embedder = hash_ws.embedder
    folder = write_topics(tmp_path / "d")
    hash_ws.add_paths([str(folder)])
    info = hash_ws.sets.find_chunk_set(ChunkConfig())
    chunks_before = hash_ws.store.sets.chunk_ids(info.id)
    encoded = embedder.texts_encoded
    (folder / "sub").mkdir()
    (folder / "bikes.md").rename(folder / "sub" / "cycling.md")
    report = hash_ws.add_paths([str(folder)])
    assert report.moved == [(key(folder, "bikes.md"), key(folder, "sub/cycling.md"))]
    assert not report.removed and not report.added
    assert embedder.texts_encoded == encoded, "a moved document is not embedded again"
    assert list(hash_ws.store.sets.chunk_ids(info.id)) == list(chunks_before)
    assert key(folder, "sub/cycling.md") in found_paths(hash_ws, "chain and rear cassette")
    assert key(folder, "bikes.md") not in found_paths(hash_ws, "chain and rear cassette")
    assert verify_store(hash_ws)["consistent"]


def test_file_corrupted_after_indexing_is_no_longer_searchable(hash_ws, tmp_path):
    folder = write_topics(tmp_path / "d")
    hash_ws.add_paths([str(folder)])
    (folder / "tea.md").write_bytes(bytes(range(256)) * 8)
    report = hash_ws.add_paths([str(folder)])
    assert [r.path for r in report.failed] == [key(folder, "tea.md")]
    assert "binary" in report.failed[0].reason and "removed from the index" in report.failed[0].reason
    assert key(folder, "tea.md") not in found_paths(hash_ws, "green tea leaves")
    assert [p["path"] for p in hash_ws.store.documents.problems()] == [key(folder, "tea.md")]
    assert verify_store(hash_ws)["consistent"]


def test_indexing_one_file_never_removes_others(hash_ws, tmp_path):
    folder = write_topics(tmp_path / "d")
    hash_ws.add_paths([str(folder)])
    (folder / "volcano.md").unlink()
    report = hash_ws.add_paths([str(folder / "tea.md")])
    assert report.unchanged == [key(folder, "tea.md")] and not report.removed
    assert len(hash_ws.store.documents.rows()) == 3


# ----- item 6: special files --------------------------------------------------------------------------------
def test_fifo_and_device_links_are_never_read(tmp_path):
    """In a child with a 2 GB address-space limit and a timeout: reading /dev/zero or a FIFO fails it."""
    folder = tmp_path / "special"
    folder.mkdir()
    os.mkfifo(folder / "pipe.txt")
    os.symlink("/dev/zero", folder / "zero.txt")
    (folder / "ok.txt").write_text("plain text")
    code = ("import json, resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "from workbench.core.ingest.discovery import load_paths\n"
            "from workbench.core.ingest.documents import load_file\n"
            "rows = [[r.path.split('/')[-1], r.status, r.reason] for r in load_paths([sys.argv[1]])]\n"
            "rows += [['direct-' + r.path.split('/')[-1], r.status, r.reason] for r in "
            "[load_file(sys.argv[1] + '/zero.txt'), load_file(sys.argv[1] + '/pipe.txt')]]\n"
            "print(json.dumps(rows))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {name: (status, reason) for name, status, reason in json.loads(proc.stdout)}
    assert rows["pipe.txt"] == ("skipped", "not a regular file (FIFO)")
    assert rows["zero.txt"] == ("skipped", "link to outside the folder: /dev/zero")
    assert rows["direct-zero"] == ("skipped", "not a regular file (character device)")
    assert rows["direct-pipe.txt"] == ("skipped", "not a regular file (FIFO)")
    assert rows["ok.txt"][0] == "ok"


def test_file_larger_than_its_stat_size_is_read_only_up_to_the_limit(tmp_path):
    """/proc files report size 0 but hold text: the read itself must stop at the limit."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("no /proc")
    os.symlink(maps, tmp_path / "maps.txt")
    result = load_file(tmp_path / "maps.txt", max_file_mb=0.001)
    assert result.document is None and result.status == "skipped"
    assert result.reason.startswith("too large")


# ----- item 10: statuses for hidden, unsupported, UTF-16 and linked files -----------------------------------
def test_hidden_unsupported_and_extensionless_files_get_a_reason(tmp_path):
    (tmp_path / ".notes.md").write_text("hidden")
    (tmp_path / "report.docx").write_bytes(b"PK\x03\x04")
    (tmp_path / "photo.PNG").write_bytes(b"\x89PNG")
    (tmp_path / "Makefile").write_text("all:")
    (tmp_path / "fine.md").write_text("# Fine")
    found = discover([tmp_path])
    assert [p.name for p in found.files] == ["fine.md"]
    reasons = {Path(r.path).name: r.reason for r in found.problems}
    assert reasons[".notes.md"] == "hidden file"
    assert reasons["report.docx"].startswith("unsupported type .docx (supported: ") and ".md" in reasons["report.docx"]
    assert reasons["photo.PNG"].startswith("unsupported type .png")
    assert reasons["Makefile"].startswith("no file extension (supported: ")
    assert all(r.status == "skipped" and not r.record for r in found.problems)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_read_as_text(codec):
    text = "Plain notes in UTF-16 without a byte-order mark: caf\u00e9, na\u00efve.\n" * 3
    decoded, note = decode_text(text.encode(codec))
    assert decoded == text and "without a byte-order mark" in note
    for binary in (bytes(range(256)) * 4, b"\x00\x01\x02binary\x00" * 50, b"\x00" * 400):
        with pytest.raises(LoadError, match="binary"):
            decode_text(binary)


def test_links_to_outside_the_folder_are_skipped_unless_followed(hash_ws, tmp_path):
    outside = write_topics(tmp_path / "elsewhere")
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "own.md").write_text("# Own\n\nA document inside the folder about kites.")
    os.symlink(outside / "tea.md", folder / "tea-link.md")
    os.symlink(outside, folder / "linked-dir")
    os.symlink(folder / "own.md", folder / "inside-link.md")
    os.symlink(folder / "gone.md", folder / "dangling.md")
    report = hash_ws.add_paths([str(folder)])
    got = statuses(report)
    assert got == {key(folder, "own.md"): "added", key(folder, "inside-link.md"): "skipped",
                   key(folder, "tea-link.md"): "skipped", key(folder, "linked-dir"): "skipped",
                   key(folder, "dangling.md"): "failed"}
    reasons = {r.path: r.reason for r in report.skipped + report.failed}
    assert reasons[key(folder, "tea-link.md")] == f"link to outside the folder: {outside / 'tea.md'}"
    assert reasons[key(folder, "inside-link.md")] == f"same file as {key(folder, 'own.md')}"
    assert reasons[key(folder, "dangling.md")] == f"broken link (to {folder / 'gone.md'})"
    followed = hash_ws.add_paths([str(folder)], follow_links=True)
    # a file reached through a link is stored where the link puts it in the folder (it goes when the link goes)
    assert sorted(followed.added) == sorted(key(folder, f"linked-dir/{n}") for n in TOPICS)
    assert {r.path: r.reason for r in followed.skipped}[key(folder, "tea-link.md")] == \
        f"same file as {key(folder, 'linked-dir/tea.md')}"


def test_problems_share_document_keys_and_clear_when_fixed_or_gone(hash_ws, tmp_path, monkeypatch):
    folder = write_topics(tmp_path / "d")
    (folder / "late.md").write_bytes(b"\x00\x01\x02" * 100)
    (folder / "doomed.pdf").write_bytes(b"%PDF broken")
    monkeypatch.chdir(tmp_path)
    hash_ws.store.documents.record_problem("d/late.md", "failed", "recorded by an older version under a relative path")
    hash_ws.add_paths(["d"])
    assert sorted(p["path"] for p in hash_ws.store.documents.problems()) == [key(folder, "doomed.pdf"),
                                                                             key(folder, "late.md")]
    (folder / "late.md").write_text("# Late\n\nFixed now: a note about ferries.")
    (folder / "doomed.pdf").unlink()
    report = hash_ws.add_paths(["d"])
    assert report.added == [key(folder, "late.md")]
    assert hash_ws.store.documents.problems() == [], "a fixed file is no longer listed as failed, a gone one not at all"


def test_question_set_refuses_a_corpus_linked_from_outside(tmp_path):
    qset = save_question_set(tmp_path / "qs", [{"question": "What is lava?", "corpus_id": "geo",
                                                "references": [{"start_index": 0, "end_index": 4}]}],
                             {"geo": "Lava is molten rock."})
    outside = tmp_path / "geo-copy.md"
    outside.write_text("Lava is molten rock.")
    target = qset.root / "corpora" / "geo.md"
    target.unlink()
    os.symlink(outside, target)
    with pytest.raises(DatasetError, match="link to outside the question set's folder"):
        load_question_set(qset.root)
    assert load_question_set(qset.root, follow_links=True).questions[0].references[0].content == "Lava"


def test_text_output_summarises_many_problems_by_reason():
    skipped = [LoadResult(f"/d/.h{i}", None, "skipped", "hidden file") for i in range(300)]
    skipped += [LoadResult(f"/d/x{i}.png", None, "skipped", "unsupported type .png (supported: .md)")
                for i in range(50)]
    failed = [LoadResult("/d/b.txt", None, "failed", "binary content (NUL bytes) in a text file")]
    lines = problem_lines(skipped, failed)
    assert len(lines) <= 5
    assert any("300 × hidden file" in line for line in lines)
    assert any("50 × unsupported type .png" in line for line in lines)
    assert any("1 × binary content" in line for line in lines)
    few = problem_lines(skipped[:LISTED_PROBLEMS], [])
    assert few == [f"  skipped /d/.h{i}: hidden file" for i in range(LISTED_PROBLEMS)]


# ----- the generated 1,000-file messy folder ------------------------------------------------------------------
def make_thousand_file_folder(root: Path) -> dict[str, str]:
    """1,000 entries of every kind; returns {store key: expected status}. Most are cheap to reject; the
    200 copies of one text share their chunk, so the model embeds it once."""
    root.mkdir()
    expected: dict[str, str] = {}

    def put(name: str, data: bytes, status: str) -> None:
        (root / name).write_bytes(data)
        expected[key(root, os.fsdecode(os.fsencode(name)))] = status

    for i in range(30):
        put(f"note-{i:02d}.md", f"# Note {i}\n\nNote number {i} is about topic {i * 7919 % 1000}.\n".encode(),
            "added")
    for i in range(200):
        put(f"copy-{i:03d}.txt", b"The same short memo, copied many times.\n", "added")
    for i in range(200):
        put(f".hidden-{i:03d}.md", b"hidden", "skipped")
    for i in range(150):
        put(f"scan-{i:03d}.png", b"\x89PNG\r\n", "skipped")
    for i in range(100):
        put(f"letter-{i:03d}.docx", b"PK\x03\x04", "skipped")
    for i in range(100):
        put(f"NOTES-{i:03d}", b"no extension", "skipped")
    for i in range(100):
        put(f"empty-{i:03d}.txt", b"", "skipped")
    for i in range(100):
        put(f"blob-{i:03d}.txt", bytes(range(256)) * 4, "failed")
    (root / LATIN1_NAME).write_bytes(b"Caf\xc3\xa9 menu with espresso and croissants.\n")
    expected[key(root, "caf\\xe9.txt")] = "added"
    put("utf16-no-bom.txt", "Text saved as UTF-16 without a mark.\n".encode("utf-16-le"), "added")
    os.mkfifo(root / "pipe.txt")
    expected[key(root, "pipe.txt")] = "skipped"
    for name, target, status in [("zero.txt", "/dev/zero", "skipped"), ("dangling.txt", str(root / "nowhere"),
                                                                          "failed"),
                                 ("outside.md", str(root.parent / "outside.md"), "skipped")]:
        os.symlink(target, root / name)
        expected[key(root, name)] = status
    (root.parent / "outside.md").write_text("# Outside\n\nnot in the folder")
    for i in range(1000 - len(expected)):
        put(f"extra-{i:03d}.text", f"Extra document {i}.\n".encode(), "added")
    assert len(expected) == 1000 == len(os.listdir(root))
    return expected


def test_a_thousand_file_messy_folder_gets_one_status_per_file(hash_ws, tmp_path):
    folder = tmp_path / "messy"
    expected = make_thousand_file_folder(folder)
    report = hash_ws.add_paths([str(folder)])
    assert statuses(report) == expected
    assert verify_store(hash_ws)["consistent"]
    again = hash_ws.add_paths([str(folder)])
    assert statuses(again) == {k: "unchanged" if v == "added" else v for k, v in expected.items()}
    assert again.chunks_total == report.chunks_total > 0 and not again.removed
    lines = problem_lines(again.skipped, again.failed)
    assert len(lines) < 15 and lines[-1].startswith(f"  ({sum(v != 'added' for v in expected.values())} files")
