"""The importers on the benchmarks as they are published: real samples taken from the benchmarks' public
repositories (tests/data/benchmarks/, each with its source in a README beside it), and, for the formats whose
files could not be reached, their published layouts rebuilt from the dataset cards and publishing code (HiChunk's
``dataset/doc/{dataset}/{doc_id}.txt``, MTCB's separate ``questions`` and ``corpus`` configs with
``chunk-must-contain``, RAGBench's per-generator rows and Parquet). A repeated question is imported once; rows
that share an id never replace each other's documents; evidence is found after normalising spaces and quotes
and stored as the exact span of the stored text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from real_samples import chroma_published, real_sample

from workbench.core.evaluate.importers import READERS
from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, check_items, merge_repeats
from workbench.core.evaluate.importers.matching import EXACT, QUOTES, SPACES, Matcher


@pytest.fixture
def data(tmp_path, hash_cli):
    return tmp_path / "data"


def _import(capsys, fmt: str, source: Path, data: Path, name: str = "s") -> dict:
    code, out, err = run_cli(capsys, "import-questions", fmt, source, "--set", name, "--data-dir", data, "--json",
                             "--quiet")
    assert code == 0, err
    return json.loads(out)


def _references(capsys, data: Path, name: str = "s") -> list[list[str]]:
    code, out, err = run_cli(capsys, "questions", "show", name, "--json", "--data-dir", data)
    assert code == 0, err
    return [[r["text"] for r in q["references"]] for q in json.loads(out)["questions"]]


# ----- real samples ---------------------------------------------------------------------------------------------
def test_chroma_reads_the_published_questions_df_csv(data, capsys, tmp_path):
    published = chroma_published(tmp_path / "chroma")
    report = _import(capsys, "chroma", published, data)
    assert (report["questions"], report["located"], report["not_found"]) == (6, {EXACT: 8, SPACES: 0, QUOTES: 0}, 0)
    refs = _references(capsys, data)
    assert "My administration announced we\u2019re cutting credit card late fees from $32 to $8." in refs[0]
    # the CSV file itself names the set too
    assert _import(capsys, "chroma", published / "questions_df.csv", data,
                   "again")["questions"] == 6


def test_gutenqa_reads_lumberchunkers_workbooks_and_forgives_spaces_and_quotes(data, capsys):
    report = _import(capsys, "gutenqa", real_sample("gutenqa", "Emma_-_Jane_Austen"), data)
    assert report["questions"] == 28
    assert report["located"] == {EXACT: 25, SPACES: 1, QUOTES: 2} and report["not_found"] == 2
    assert [q.split(":")[1] for q in report["left_out"]] == ["28", "30"]  # each question left out is named
    refs = [r for q in _references(capsys, data) for r in q]
    # located after normalising quotes: stored as the book has it (its curly double quotes), not the question's
    assert any(r.startswith("It was the end of an old pencil") and "\u201cThis was really his,\u201d" in r
               for r in refs)


def test_squad_dev_sample(data, capsys):
    report = _import(capsys, "squad", real_sample("squad", "dev-v2.0-normans.json"), data)
    assert (report["questions"], report["skipped"], report["not_found"]) == (13, {"impossible (no answer)": 15}, 0)
    assert ["France"] in _references(capsys, data)


def test_qasper_sample_keeps_questions_that_share_an_id_apart(data, capsys):
    report = _import(capsys, "qasper", real_sample("qasper", "qasper_sample_small.json"), data)
    assert (report["questions"], report["renamed"], report["merged"]) == (3, 2, 0)
    assert report["skipped"] == {"unanswerable": 1}


# ----- published layouts rebuilt from the cards -----------------------------------------------------------------
def _ragbench_rows() -> list[dict]:
    """emanual-like rows: one question answered by two generators (same id, same question, each with the
    relevant keys its annotator found), and two rows sharing an id whose documents differ."""
    docs = [[["0a", "Press the Home button."], ["0b", "Select Settings."], ["0c", "Choose Picture Mode."]]]
    return [
        {"id": "q1", "question": "How do I change the picture mode?", "documents_sentences": docs,
         "all_relevant_sentence_keys": ["0a", "0b"], "response": "Open Settings.", "generation_model_name": "a"},
        {"id": "q1", "question": "How do I change the picture mode?", "documents_sentences": docs,
         "all_relevant_sentence_keys": ["0b", "0c"], "response": "Pick a mode.", "generation_model_name": "b"},
        {"id": "x", "question": "alpha?", "documents_sentences": [[["0a", "alpha beta"]]],
         "all_relevant_sentence_keys": ["0a"]},
        {"id": "x", "question": "two?", "documents_sentences": [[["0a", "Doc two text"]]],
         "all_relevant_sentence_keys": ["0a"]},
    ]


def test_ragbench_rows_per_generator_are_one_question_and_documents_are_never_replaced(data, capsys, tmp_path):
    src = tmp_path / "emanual" / "test.jsonl"
    src.parent.mkdir()
    src.write_text("".join(json.dumps(r) + "\n" for r in _ragbench_rows()), encoding="utf-8")
    report = _import(capsys, "ragbench", tmp_path / "emanual", data)
    assert (report["questions"], report["merged"], report["renamed"]) == (3, 1, 1)
    refs = _references(capsys, data)
    # the union of both generators' relevant sentences
    assert sorted(refs[0]) == ["Choose Picture Mode.", "Press the Home button.", "Select Settings."]
    # the later row with the same id has its own document: the first reference still reads "alpha beta"
    assert refs[1] == ["alpha beta"] and refs[2] == ["Doc two text"]
    code, out, _ = run_cli(capsys, "questions", "show", "s", "--json", "--data-dir", data)
    assert len(json.loads(out)["documents"]) == 3


def test_ragbench_reads_the_hubs_parquet(data, capsys, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    folder = tmp_path / "emanual"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(_ragbench_rows()), folder / "test-00000-of-00001.parquet")
    report = _import(capsys, "ragbench", folder, data)
    assert (report["questions"], report["merged"]) == (3, 1)


def test_hicbench_reads_hichunks_dataset_folder(data, capsys, tmp_path):
    root = tmp_path / "dataset"
    (root / "qas").mkdir(parents=True)
    (root / "doc" / "HiCBench").mkdir(parents=True)
    (root / "doc" / "HiCBench" / "d1.txt").write_text("Intro.\n\nRevenue  grew by 12 percent in 2023.\n",
                                                       encoding="utf-8")
    rows = [{"input": "How much did revenue grow?", "answers": ["12 percent"], "facts": ["12 percent"],
             "evidences": ["Revenue grew by 12 percent in 2023."], "all_classes": None, "_id": "d1"},
            {"input": "What else?", "answers": ["x"], "evidences": ["Intro."], "_id": "d2"}]
    (root / "qas" / "HiCBench.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = _import(capsys, "hicbench", root, data)
    assert report["questions"] == 1 and report["located"][SPACES] == 1
    assert report["skipped"] == {"no document (no context text, and doc/HiCBench/d2.txt is missing)": 1}
    assert _references(capsys, data) == [["Revenue  grew by 12 percent in 2023."]]  # the stored text's span


def test_mtcb_reads_separate_questions_and_corpus_configs(data, capsys, tmp_path):
    root = tmp_path / "gacha"
    for config, rows in {
        "corpus": [{"title": "Walden", "author": "Thoreau", "text": "I went to the woods because I wished to live"
                                                                   " deliberately."},
                   {"title": "Emma", "author": "Austen", "text": "Emma Woodhouse, handsome, clever, and rich."}],
        "questions": [{"title": "Walden", "question": "Why the woods?", "answer": "to live deliberately",
                       "chunk-must-contain": "I wished to live deliberately"},
                      {"question": "Who is clever?", "answer": "Emma",
                       "chunk-must-contain": "handsome, clever, and rich"},
                      {"question": "Not there?", "chunk-must-contain": "no such passage"}],
    }.items():
        (root / config).mkdir(parents=True)
        (root / config / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = _import(capsys, "mtcb", root, data)
    assert (report["questions"], report["not_found"]) == (2, 1)
    assert "no one corpus text holds the passage (it is in no corpus text)" in report["left_out"][0]


def test_legalbench_names_a_missing_corpus_file_as_missing(data, capsys, tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "corpus" / "privacy_qa").mkdir(parents=True)
    (tmp_path / "corpus" / "privacy_qa" / "Kept.txt").write_text("We share data with partners.", encoding="utf-8")
    tests = {"tests": [{"query": "Who gets data?", "snippets": [{"file_path": "privacy_qa/Kept.txt",
                                                                 "span": [0, 28]}]},
                       {"query": "Gone?", "snippets": [{"file_path": "privacy_qa/Absent.txt", "span": [0, 5]}]}]}
    (tmp_path / "benchmarks" / "privacy_qa.json").write_text(json.dumps(tests), encoding="utf-8")
    report = _import(capsys, "legalbench-rag", tmp_path / "benchmarks" / "privacy_qa.json", data)
    assert report["questions"] == 1
    assert "corpus/privacy_qa/Absent.txt is missing" in report["left_out"][0]
    assert "not part of" not in report["left_out"][0]


# ----- the rules themselves -------------------------------------------------------------------------------------
def test_matching_maps_normalised_matches_back_to_the_exact_stored_span():
    text = "He said:\u00a0 \u201cYes \u2014 at  once.\u201d\n\nThen  left."
    m = Matcher(text)
    found = m.find("said: \"Yes - at once.\"")
    assert found is not None and found.how == QUOTES
    assert text[found.start:found.end] == "said:\u00a0 \u201cYes \u2014 at  once.\u201d"
    found = m.find("Then left.")
    assert found is not None and found.how == SPACES and text[found.start:found.end] == "Then  left."
    assert m.find("Then") is not None and m.find("Then").how == EXACT
    assert m.find("nowhere") is None and m.find("   ") is None
    # two places: the one nearest the offset the benchmark gives
    twice = Matcher("x y. x y.")
    assert (twice.find("x y.", near=6).start, twice.find("x y.", near=6).count) == (5, 2)  # type: ignore[union-attr]
    assert twice.find("x y.").count == 2  # type: ignore[union-attr]  # the import calls that "found more than once"


def test_merge_rule_and_report_counts():
    ev = [Evidence("d", "one"), Evidence("d", "two")]
    items = [Item("1", "Q?", ev[:1], "a"), Item("1", " q? ", ev, "b"), Item("1", "Other?", ev[1:]),
             Item("2", "Q?", ev[1:])]
    merged, n_merged, n_renamed = merge_repeats(items)
    assert (n_merged, n_renamed) == (1, 1)
    assert [(i.item_id, [e.text for e in i.evidence], i.answer) for i in merged] == [
        ("1", ["one", "two"], "a"), ("1#2", ["two"], ""), ("2", ["two"], "")]
    parsed = Parsed(items=items, missing={"gone": "gone.txt is missing"})
    parsed.items.append(Item("3", "Where?", [Evidence("gone", "x")]))
    kept, report = check_items(parsed, lambda key: "one two" if key == "d" else None)
    assert len(kept) == 3 and report.not_found == 1 and report.located[EXACT] == 4
    assert report.unlocated == ["3: gone.txt is missing"]


def test_add_text_never_replaces_a_document():
    parsed = Parsed()
    assert parsed.add_text("x-doc0", "alpha beta") == "x-doc0"
    assert parsed.add_text("x-doc0", "alpha beta") == "x-doc0"
    assert parsed.add_text("x-doc0", "Doc two") == "x-doc0~2"
    assert parsed.texts == {"x-doc0": "alpha beta", "x-doc0~2": "Doc two"}


def test_every_format_has_a_reader():
    assert set(READERS) == {"chroma", "legalbench-rag", "qasper", "ragbench", "hicbench", "gutenqa", "mtcb",
                            "squad"}


def test_gutenqa_reads_the_hubs_one_table_of_chunks_and_questions(data, capsys, tmp_path):
    """GutenQA.parquet as its card describes it: one row per chunk of a book (Book Name, Book ID, Chunk ID,
    Chapter, Chunk), with Question / Answer / Chunk Must Contain on the rows that have a question. The book is
    its chunks joined in Chunk ID order (the rows here are out of order)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    def row(chunk_id: int, chunk: str, question: str | None = None, must: str | None = None) -> dict:
        return {"Book Name": "A_Christmas_Carol_-_Charles_Dickens", "Book ID": 1, "Chunk ID": chunk_id,
                "Chapter": "STAVE ONE", "Chunk": chunk, "Question": question, "Answer": "dead" if question else None,
                "Chunk Must Contain": must}

    rows = [row(1, "Scrooge signed it.\u00a0And Scrooge\u2019s name was good upon \u2019Change."),
            row(0, "Marley was dead: to begin with.", "Was Marley alive?", "Marley was  dead"),
            row(2, "Old Marley was as dead as a door-nail.", "How dead was Marley?",
                "Old Marley was as dead as a door\u2013nail."),
            row(3, "Mind!", "Not in the book?", "no such passage")]
    folder = tmp_path / "GutenQA"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), folder / "GutenQA.parquet")
    report = _import(capsys, "gutenqa", folder, data)
    assert report["questions"] == 2 and report["located"] == {EXACT: 0, SPACES: 1, QUOTES: 1}
    assert report["not_found"] == 1 and report["left_out"][0].startswith("GutenQA:4: not in the text")
    assert _references(capsys, data) == [["Marley was dead"], ["Old Marley was as dead as a door-nail."]]
    code, out, _ = run_cli(capsys, "questions", "show", "s", "--json", "--data-dir", data)
    book = Path(next(iter(json.loads(out)["documents"].values()))).read_text(encoding="utf-8")
    assert book.startswith("Marley was dead: to begin with.\n\nScrooge signed it.")


def test_preview_reports_and_writes_nothing(capsys, tmp_path, hash_cli):
    data = tmp_path / "nowhere"
    code, out, err = run_cli(capsys, "import-questions", "chroma", chroma_published(tmp_path / "chroma"),
                             "--set", "c", "--preview", "--json", "--data-dir", data)
    assert code == 0, err
    seen = json.loads(out)
    assert (seen["questions"], seen["located"][EXACT], len(seen["first"])) == (6, 8, 5)
    assert seen["first"][0]["references"][0].startswith("My administration announced")
    assert not data.exists()


def test_hicbench_rows_sharing_an_id_keep_their_own_contexts(data, capsys, tmp_path):
    rows = [{"id": "r", "input": "first?", "context": "alpha beta", "evidences": ["alpha beta"]},
            {"id": "r", "input": "second?", "context": "Doc two, other text.", "evidences": ["Doc two"]}]
    src = tmp_path / "h.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = _import(capsys, "hicbench", src, data)
    assert (report["questions"], report["documents"], report["renamed"]) == (2, 2, 1)
    assert _references(capsys, data) == [["alpha beta"], ["Doc two"]]


def test_a_file_that_is_not_a_workbook_is_one_line(data, capsys, tmp_path):
    bad = tmp_path / "Questions_-_X.xlsx"
    bad.write_text("not a zip", encoding="utf-8")
    code, _, err = run_cli(capsys, "import-questions", "gutenqa", bad, "--set", "x", "--data-dir", data)
    assert code != 0 and "not a readable .xlsx workbook" in err and len(err.strip().splitlines()) == 1
    assert not (data / "imported").exists()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n\t\u00a0\u2009", max_size=40))
def test_collapsed_text_maps_every_character_back(text):
    from workbench.core.evaluate.importers.matching import _Collapsed

    c = _Collapsed(text)
    assert c.text == re.sub(r"\s+", " ", text)
    naive = []
    for m in re.finditer(r"\S+|\s+", text):
        naive += [m.start()] if m.group().isspace() else list(range(m.start(), m.end()))
    assert [c.original(p) for p in range(len(c.text))] == naive
