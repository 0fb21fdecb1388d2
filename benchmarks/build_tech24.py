"""Write benchmarks/data/tech24/questions.csv (Chroma's format) from questions.json: each reference is an exact
passage of its corpus file, located by search (it must occur exactly once).

tech24 is a question set written for this project and kept out of any tuning: 24 short documents of technical
prose (22 with two questions each, 44 questions; raft-log-replication and tcp-flow-control are distractors no
question refers to, close in topic to raft-elections and tcp-congestion).

    python benchmarks/build_tech24.py
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "data" / "tech24"
sys.path.insert(0, str(ROOT.parents[2]))

from workbench.core.evaluate.datasets import load_question_set, save_question_set  # noqa: E402


def main() -> None:
    spec = json.loads((ROOT / "questions.json").read_text(encoding="utf-8"))
    questions = []
    for item in spec:
        text = (ROOT / "corpora" / f"{item['corpus']}.md").read_text(encoding="utf-8")
        ref = item["reference"]
        start = text.find(ref)
        if start < 0 or text.find(ref, start + 1) >= 0:
            raise SystemExit(f"{item['corpus']}: the reference must occur exactly once: {ref[:60]!r}")
        questions.append({"question": item["question"], "corpus_id": item["corpus"],
                          "references": [{"start_index": start, "end_index": start + len(ref)}]})
    save_question_set(ROOT, questions, {})
    qset = load_question_set(ROOT)
    print(f"{len(qset.questions)} questions over {len(qset.needed_corpora())} documents; "
          f"{len(qset.searched_corpora())} corpora searched")


if __name__ == "__main__":
    main()
