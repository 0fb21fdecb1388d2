"""Context tokens are the tokens of the text that is sent: every passage of every registered chunker that takes an
overlap, through every expansion, with and without a budget, recounted by a tokenizer of its own.

Before, a passage of chunk-aligned windows was charged the sum of its chunks' stored counts unless the chunk
set's fields form said it overlapped; registry chunkers (``recursive``, ``semchunk``, the LangChain and chonkie
adapters) keep their overlap in their parameters, so overlapping chunks were charged twice (+11 % and +23 % on
two sample questions with ``recursive`` 128/48).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer

from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.chunkers.registry import chunker_kinds
from workbench.core.retrieve.strategy.presets import resolve

QUESTIONS = ["Why would visitors see broken images after a deploy?",
             "What should you do before a backup is restored?",
             "How are passwords rotated?"]
EXPANSIONS = [
    {},
    {"expansion": "neighbours", "window": 1},
    {"expansion": "neighbours", "window": 3},
    {"expansion": "tokens", "window_tokens": 96},
    {"expansion": "parent", "parent_size": 200, "parent_top_k": 3},
    {"expansion": "selective", "margin": 0.05, "merge_gap": 2, "max_steps": 2},
    {"expansion": "segments", "penalty": 0.15, "decay": 10.0, "max_segment_chunks": 4},
]
NEEDS_A_MODEL = {"late", "semantic", "cluster_semantic"}  # they embed while cutting: covered by the slow tier


def overlapping_chunkers() -> list[tuple[str, dict[str, int]]]:
    """Every registered chunker with an ``overlap`` parameter, at a small size and a large overlap."""
    out = []
    for kind in chunker_kinds():
        names = {p.name for p in kind.params}
        if "overlap" not in names or kind.name in NEEDS_A_MODEL:
            continue
        size = "max_tokens" if "max_tokens" in names else "size"
        params = {size: 48 if size == "max_tokens" or kind.name != "sentence" else 3,
                  "overlap": 16 if kind.name != "sentence" else 1}
        out.append((kind.name, params))
    return out


@pytest.fixture(scope="module")
def recount():
    """A tokenizer of its own (not the workbench's counter or its caches): tokens of a text as the model sees it."""
    tok = Tokenizer.from_file(str(Path(default_model_path()) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def test_the_chunkers_with_an_overlap_are_the_ones_expected():
    names = {name for name, _ in overlapping_chunkers()}
    assert {"fixed", "recursive", "semchunk", "langchain_recursive", "chonkie_token"} <= names


@pytest.mark.parametrize(("name", "params"), overlapping_chunkers(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_passage_is_charged_the_tokens_of_its_own_text(hash_sample_ws, recount, name, params):
    ws = hash_sample_ws
    overlapped, seen = False, 0
    for expansion in EXPANSIONS:
        for budget in (0, 300):
            strategy = resolve({"chunker": {"name": name, **params}, "top_k": 5, "budget": budget, **expansion})
            for question in QUESTIONS:
                result = ws.search(question, strategy)
                context = result.context
                seen += len(context.passages)
                for p in context.passages:
                    text = ws.corpus.doc_text(p.span.doc_id)[p.span.start:p.span.end]
                    assert p.tokens == recount(text), (name, expansion, budget, question, p.span)
                    rows = p.chunk_rows
                    if rows is not None and rows[1] > rows[0]:
                        rt = ws.sets.runtime(result.set_id)
                        stored = int(rt.table.tokens[rows[0]:rows[1] + 1].sum())
                        overlapped |= stored > p.tokens
                assert context.tokens == sum(p.tokens for p in context.passages)
                if budget:
                    assert context.tokens <= budget, (name, expansion, question, context.tokens)
    assert seen >= len(EXPANSIONS) * len(QUESTIONS)
    assert overlapped, f"{name}: no passage spanned overlapping chunks, so the test would not see a double count"
