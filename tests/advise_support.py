"""Question sets and a small search space for the advisor's tests: each topic's corpus holds three paragraphs of its
own words and every question asks with one paragraph's words (shared by the advisor's core, CLI, cluster and window
tests)."""

import random

from workbench.core.evaluate.advise.space import Space
from workbench.core.evaluate.datasets import save_question_set

WORDS = ["harbour", "lantern", "copper", "meadow", "quartz", "ember", "willow", "falcon", "granite", "orchid",
         "thistle", "cobalt", "saffron", "glacier", "juniper", "basalt", "marble", "cedar", "tundra", "lagoon"]


def topic_set(root, documents=10, per_doc=3, seed=1):
    """A question set of ``documents`` corpora, each of three paragraphs of its own words; every question asks
    with one paragraph's words and references that paragraph."""
    rng = random.Random(seed)
    corpora, questions = {}, []
    for d in range(documents):
        paragraphs = []
        for p in range(3):
            words = [f"{rng.choice(WORDS)}{d}{p}" for _ in range(6)]
            sentence = " ".join(words)
            paragraphs.append(f"{sentence.capitalize()} appear together here. " * 4)
        text = f"# Topic {d}\n\n" + "\n\n".join(paragraphs) + "\n"
        corpora[f"doc{d:02d}"] = text
        for p in range(per_doc):
            para = paragraphs[p % 3]
            start = text.index(para)
            questions.append({"question": f"What about {' '.join(para.split()[:4])}?", "corpus_id": f"doc{d:02d}",
                              "references": [{"start_index": start, "end_index": start + len(para)}]})
    return save_question_set(root, questions, corpora)


SMALL = Space(chunkers=("fixed", "recursive"), sizes=(32, 64), searches=("hybrid",),
              expansions=("none", "neighbours-1"), top_ks=(3, 5), budget=300)
