"""Write a project question set's ``questions.csv`` (Chroma's format) from its ``questions.json``: each reference is
an exact passage of its corpus file (``corpora/CORPUS.md``), located by search (it must occur exactly once).

The sets under ``benchmarks/data`` were written for this project and kept out of any tuning (each folder's README
says what it holds): ``tech24`` (24 documents of technical prose, 44 questions), ``field23`` (23 documents on
everyday science and crafts, 40 questions; written after the advisor's selection rules, to measure them on
questions they were not developed on) and ``field22`` (22 longer documents on other such subjects, 40 questions;
written for the same purpose).

    python benchmarks/build_set.py benchmarks/data/tech24
    python benchmarks/build_set.py benchmarks/data/field23
    python benchmarks/build_set.py benchmarks/data/field22
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.datasets import load_question_set, save_question_set


def build(folder: Path) -> str:
    """Write ``folder/questions.csv`` from ``folder/questions.json``; the counts, in words."""
    spec = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    questions = []
    for item in spec:
        text = (folder / "corpora" / f"{item['corpus']}.md").read_text(encoding="utf-8")
        ref = item["reference"]
        start = text.find(ref)
        if start < 0 or text.find(ref, start + 1) >= 0:
            raise SystemExit(f"{item['corpus']}: the reference must occur exactly once: {ref[:60]!r}")
        questions.append({"question": item["question"], "corpus_id": item["corpus"],
                          "references": [{"start_index": start, "end_index": start + len(ref)}]})
    # the set's folder holds questions.json and its README beside the set: the workbench writes only into a new,
    # empty or earlier output folder, so the csv is written beside its corpora in a new folder and copied in
    with tempfile.TemporaryDirectory() as tmp:
        corpora = {p.stem: p for p in sorted((folder / "corpora").glob("*.md"))}
        save_question_set(Path(tmp) / "set", questions, corpora)
        shutil.copyfile(Path(tmp) / "set" / "questions.csv", folder / "questions.csv")
    qset = load_question_set(folder)
    return (f"{len(qset.questions)} questions over {len(qset.needed_corpora())} documents; "
            f"{len(qset.searched_corpora())} corpora searched")


def main() -> None:
    """Build the set named by the first argument (a folder)."""
    if len(sys.argv) != 2 or not Path(sys.argv[1], "questions.json").is_file():
        raise SystemExit("usage: python benchmarks/build_set.py FOLDER (a folder holding questions.json and corpora/)")
    print(build(Path(sys.argv[1])))


if __name__ == "__main__":
    main()
