"""Issue #48 item 11: every importer, fed values of the wrong type at every level of its format, ends with a clean
import or one ``DatasetError`` line naming the file and where in it, never another exception; and an import that
fails writes nothing (no document, no set, no folder).

Hypothesis takes each format's fixture (tests/fixtures/benchmarks/), picks one place in its JSON (the whole
document, every value of every object and list, the containers themselves included) and puts there a value of
another type (null, true, a number, 1e400, NaN, text, a list, an object, an unpaired surrogate); the file is read by
the format's reader and, when that reads it, imported into one workspace (hashed embedder) that must be unchanged
after a failed import.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.evaluate.importers import READERS, import_parsed
from workbench.core.evaluate.importers.base import Parsed
from workbench.core.evaluate.question_set import DatasetError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "benchmarks"

WRONG = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 1e400, -1e400, float("nan"), 2.5, 10**30, "", " ", "x", "\ud800",
                     [], [None], [[]], [1, 2], ["a", "b"], {}, {"a": 1}, {"text": []}]),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.text(max_size=8),
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=3)), max_size=3),
    st.dictionaries(st.text(max_size=4), st.one_of(st.none(), st.integers(), st.text(max_size=3)), max_size=2),
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value, its root (``()``) first, then depth first."""
    if not path:
        yield ()
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield (*path, key)
        yield from _places(child, (*path, key))


def _put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path`` (``()``: ``new`` itself)."""
    if not path:
        return json.loads(json.dumps(new))
    copy = json.loads(json.dumps(value))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)  # an unpaired surrogate is written as the \\ud800 escape


# Each format: the file the fuzz rewrites (relative to the copied fixture folder), its JSON as a list of
# documents (one for a JSON file, one per line for JSON Lines, one per row's references for Chroma's CSV), how
# they are written back, and what the reader is given.
def _json_file(name: str) -> tuple[Callable[[Path], list[Any]], Callable[[Path, list[Any]], None]]:
    def load(root: Path) -> list[Any]:
        return [json.loads((root / name).read_text(encoding="utf-8"))]

    def save(root: Path, docs: list[Any]) -> None:
        (root / name).write_text(_dump(docs[0]), encoding="utf-8")

    return load, save


def _lines_file(name: str) -> tuple[Callable[[Path], list[Any]], Callable[[Path, list[Any]], None]]:
    def load(root: Path) -> list[Any]:
        return [json.loads(line) for line in (root / name).read_text(encoding="utf-8").splitlines() if line.strip()]

    def save(root: Path, docs: list[Any]) -> None:
        (root / name).write_text("".join(_dump(d) + "\n" for d in docs), encoding="utf-8")

    return load, save


def _chroma_load(root: Path) -> list[Any]:
    with open(root / "questions.csv", encoding="utf-8", newline="") as fh:
        return [json.loads(row["references"]) for row in csv.DictReader(fh)]


def _chroma_save(root: Path, docs: list[Any]) -> None:
    with open(root / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["question", "references", "corpus_id"])
    writer.writeheader()
    for row, refs in zip(rows, docs, strict=True):
        writer.writerow({**row, "references": _dump(refs)})
    (root / "questions.csv").write_text(out.getvalue(), encoding="utf-8")


FORMATS: dict[str, tuple[str, str, tuple[Callable[[Path], list[Any]], Callable[[Path, list[Any]], None]]]] = {
    # format: (fixture folder, what the reader is given, (load, save) of the fuzzed file)
    "squad": ("squad", "train-mini.json", _json_file("train-mini.json")),
    "qasper": ("qasper", "qasper-mini.json", _json_file("qasper-mini.json")),
    "ragbench": ("ragbench", "test.jsonl", _lines_file("test.jsonl")),
    "hicbench": ("hicbench", "hicbench-mini.jsonl", _lines_file("hicbench-mini.jsonl")),
    "legalbench-rag": ("legalbench-rag", ".", _json_file("benchmarks/mini.json")),
    "gutenqa": ("gutenqa", ".", _lines_file("questions.jsonl")),
    "mtcb": ("mtcb", ".", _lines_file("questions.jsonl")),
    "chroma": ("chroma", ".", (_chroma_load, _chroma_save)),
}


def _state(ws: Any) -> tuple[list[str], list[str], list[str]]:
    """What a failed import must not change: stored documents, sets, and the files under the data folder."""
    files = sorted(str(p.relative_to(ws.data_dir)) for p in ws.data_dir.rglob("*")
                   if "imported" in p.relative_to(ws.data_dir).parts)
    return sorted(r["path"] for r in ws.records.documents()), ws.questions.names(), files


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_wrong_types_at_every_level_are_one_line_and_write_nothing(fmt, tmp_path, hash_ws):
    folder, given_path, (load, save) = FORMATS[fmt]
    root = tmp_path / "bench"
    shutil.copytree(FIXTURES / folder, root)
    original = load(root)
    places = [(i, p) for i, doc in enumerate(original) for p in _places(doc)]
    assert places
    source = root / given_path
    counter = iter(range(10**6))

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(min_value=0, max_value=len(places) - 1), WRONG)
    def check(index: int, value: Any) -> None:
        doc, place = places[index]
        docs = list(original)
        docs[doc] = _put(original[doc], place, value)
        save(root, docs)
        try:
            parsed: Parsed = READERS[fmt](source)
        except DatasetError as exc:
            message = str(exc)
            assert "\n" not in message and "Traceback" not in message, message
            return
        before = _state(hash_ws)
        try:
            import_parsed(hash_ws, parsed, f"s{next(counter)}", fmt)
        except DatasetError as exc:
            assert "\n" not in str(exc), str(exc)
            assert _state(hash_ws) == before, f"a failed import changed the data folder ({exc})"

    check()


@pytest.mark.parametrize(("fmt", "doc", "place", "value", "says"), [
    ("squad", 0, ("data", 0), "x", "data[0]: expected an object, found a string"),
    ("squad", 0, ("data", 0, "paragraphs", 0), "x", "data[0].paragraphs[0]: expected an object"),
    ("squad", 0, ("data", 0, "paragraphs", 0, "qas", 0), "x", "paragraphs[0].qas[0]: expected an object"),
    ("qasper", 0, ("1901.00001", "full_text"), ["sec"], "full_text[0]: expected an object, found a string"),
    ("qasper", 0, ("1901.00001", "full_text"), {"a": 1}, "full_text: expected a list, found an object"),
    ("qasper", 0, ("1901.00001", "qas"), ["q"], "qas[0]: expected an object, found a string"),
    ("qasper", 0, ("1901.00001", "qas", 0, "answers"), ["a"], "answers[0]: expected an object"),
    ("qasper", 0, ("1901.00001", "qas", 0, "answers", 0, "answer"), ["x"], "answer: expected an object"),
    ("legalbench-rag", 0, ("tests", 0, "snippets", 0, "span", 0), 1e400, "span[0]: expected a whole number"),
    ("ragbench", 0, ("documents_sentences", 0, 0), "x", "documents_sentences[0][0]: expected a [key, sentence]"),
    ("hicbench", 1, ("context",), "\ud800", "context: holds an unpaired surrogate"),
])
def test_the_issues_wrong_types_name_the_file_and_the_place(fmt, doc, place, value, says, tmp_path):
    folder, given_path, (load, save) = FORMATS[fmt]
    root = tmp_path / "bench"
    shutil.copytree(FIXTURES / folder, root)
    docs = load(root)
    docs[doc] = _put(docs[doc], place, value)
    save(root, docs)
    with pytest.raises(DatasetError) as caught:
        READERS[fmt](root / given_path)
    assert says in str(caught.value) and str(root) in str(caught.value), str(caught.value)


def test_a_paper_id_with_an_unpaired_surrogate_is_refused_before_anything_is_written(tmp_path, hash_ws):
    """A Qasper key is text too: '\\ud800…' was imported, then printing the report failed (exit 1 after the set
    was written)."""
    data = json.loads((FIXTURES / "qasper" / "qasper-mini.json").read_text(encoding="utf-8"))
    data = {"\ud800" + key: value for key, value in data.items()}
    source = tmp_path / "q.json"
    source.write_text(_dump(data), encoding="utf-8")
    with pytest.raises(DatasetError, match="the paper id.*unpaired surrogate"):
        READERS["qasper"](source)
