"""``workbench import-questions``: each benchmark format read from a small fixture written from the format's
documentation (tests/fixtures/benchmarks/); its documents indexed, every span checked against the stored text,
what could not be located and what was skipped reported; imported then exported to Chroma's format, the spans are
the same; the same spans in two formats give the same figures."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.core.evaluate.datasets import load_question_set

FIXTURES = Path(__file__).parents[2] / "fixtures" / "benchmarks"

# format, source, questions imported, unlocated, skipped by reason, a reference text every import must hold
CASES = [
    ("chroma", "chroma", 2, 0, {"no reference (a question the corpus does not answer)": 1}, "the Mediterranean Sea"),
    ("squad", "squad/train-mini.json", 2, 0, {"impossible (no answer)": 1}, "1970"),
    ("legalbench-rag", "legalbench-rag", 2, 1, {}, "Either party may terminate this Agreement"),
    ("qasper", "qasper/qasper-mini.json", 2, 1, {"unanswerable": 1},
     "Chunks of 256 tokens gave the best recall on our benchmark."),
    ("ragbench", "ragbench/test.jsonl", 1, 0, {"no relevant sentence key": 1}, "Never run a pump dry."),
    ("hicbench", "hicbench/hicbench-mini.jsonl", 2, 0, {"no evidence sentence": 1}, "Revenue grew by 12 percent"),
    ("gutenqa", "gutenqa", 2, 0, {"its book is neither in books/ nor among the chunk rows": 1}, "The whale was white"),
    ("mtcb", "mtcb", 1, 1, {}, "Knead the dough for ten minutes."),
]


@pytest.fixture
def data(tmp_path, hash_cli):
    return tmp_path / "data"


@pytest.mark.parametrize(("fmt", "source", "imported", "unlocated", "skipped", "holds"), CASES,
                         ids=[c[0] for c in CASES])
def test_each_format_imports_from_its_fixture(fmt, source, imported, unlocated, skipped, holds, data, capsys):
    code, out, err = run_cli(capsys, "import-questions", fmt, FIXTURES / source, "--set", fmt, "--data-dir", data,
                             "--json", "--quiet")
    assert code == 0, err
    report = json.loads(out)
    assert (report["questions"], report["unlocated"], report["skipped"]) == (imported, unlocated, skipped)
    code, out, _ = run_cli(capsys, "questions", "show", fmt, "--json", "--data-dir", data)
    shown = json.loads(out)
    assert shown["summary"]["imported"] == imported
    texts = [r["text"] for q in shown["questions"] for r in q["references"]]
    assert any(holds in t for t in texts), texts
    assert all(q["provenance"]["origin"] == "imported" and q["provenance"]["format"] == fmt
               for q in shown["questions"])
    assert run_cli(capsys, "questions", "check", fmt, "--data-dir", data)[0] == 0


def test_legalbench_reads_nfc_paths_indexes_distractors_and_relocates(data, capsys):
    code, out, err = run_cli(capsys, "import-questions", "legalbench-rag", FIXTURES / "legalbench-rag", "--set",
                             "lb", "--data-dir", data, "--quiet")
    assert code == 0, err
    assert "1 span(s) found at other offsets" in out and "1 question(s) left out" in out
    assert "Intellectual property" in out  # the unlocated one is named
    code, out, _ = run_cli(capsys, "questions", "show", "lb", "--json", "--data-dir", data)
    docs = {Path(p).name for p in json.loads(out)["documents"].values()}
    nda = unicodedata.normalize("NFD", "café-nda.txt")
    assert {unicodedata.normalize("NFC", d) for d in docs} == {"services.txt", "distractor.txt",
                                                                unicodedata.normalize("NFC", nda)}
    assert "unrelated.txt" not in docs  # a folder no snippet points into is not the corpus


def test_round_trip_to_chroma_and_same_spans_same_figures(data, capsys, tmp_path):
    run_cli(capsys, "import-questions", "chroma", FIXTURES / "chroma", "--set", "c", "--data-dir", data, "--quiet")
    out_dir = tmp_path / "out"
    assert run_cli(capsys, "questions", "export", "c", "--out", out_dir, "--data-dir", data)[0] == 0
    original = load_question_set(FIXTURES / "chroma")
    exported = load_question_set(out_dir)
    spans = [(r.start, r.end, r.content) for q in original.questions for r in q.references]
    assert [(r.start, r.end, r.content) for q in exported.questions for r in q.references] == spans
    # SQuAD's fixture holds the same article and answers: the same spans, so the same figures
    run_cli(capsys, "import-questions", "squad", FIXTURES / "squad" / "train-mini.json", "--set", "s",
            "--data-dir", data, "--quiet")
    figures = []
    for name in ("c", "s"):
        code, out, err = run_cli(capsys, "eval", name, "--data-dir", data, "--json", "--quiet")
        assert code == 0, err
        row = json.loads(out)[0]
        figures.append({k: row[k] for k in ("recall", "precision", "iou", "questions")})
    assert figures[0] == figures[1]


def test_bad_sources_are_one_line_and_store_nothing(data, capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for args, says in [(("squad", bad), "not readable JSON"), (("qasper", tmp_path / "missing.json"), "no such"),
                       (("ragbench", bad.with_suffix(".parquet")), "no such")]:
        code, _, err = run_cli(capsys, "import-questions", *args, "--set", "x", "--data-dir", data)
        assert code != 0 and says in err and len(err.strip().splitlines()) == 1, err
    pq = tmp_path / "rows.parquet"
    pq.write_bytes(b"PAR1")
    code, _, err = run_cli(capsys, "import-questions", "ragbench", pq, "--set", "x", "--data-dir", data)
    assert code != 0 and ("pyarrow" in err or "Parquet" in err or "parquet" in err)
    run_cli(capsys, "import-questions", "chroma", FIXTURES / "chroma", "--set", "x", "--data-dir", data, "--quiet")
    code, _, err = run_cli(capsys, "import-questions", "squad", FIXTURES / "squad" / "train-mini.json", "--set", "x",
                           "--data-dir", data)
    assert code != 0 and "exists already" in err
