"""Bounded cost per document: every chunker keeps its size limit on one long line with no punctuation,
and token offsets cover what the tokenizer drops (control characters, combining marks)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from fake_embedder import HashEmbedder

from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.boundaries import tile_spans
from workbench.core.ingest.chunkers import ChunkerResources, chunk_verified, chunker_kinds, get_kind
from workbench.core.ingest.chunkers.recursive import TokenRuler
from workbench.core.ingest.chunking import unit_spans
from workbench.core.ingest.tokens import counter_for_model

COUNTER = counter_for_model(str(default_model_path()))
EMBEDDER = HashEmbedder()


def long_line(chars: int, seed: int = 3) -> str:
    """One line of made-up lower-case words, no punctuation, no line break."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(1, 4)))
             for _ in range(3000)]
    out: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(words)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


LINE = long_line(200_000)
RULER = TokenRuler(LINE, COUNTER)


def _resources() -> ChunkerResources:
    return ChunkerResources(COUNTER, EMBEDDER.encode, EMBEDDER.model_id, {})


def _limit(name: str, params: dict[str, object]) -> tuple[str, int | None]:
    """(unit, limit) of a chunker's size parameter."""
    if name == "late":
        return _limit(str(params["base"]), json.loads(str(params["base_params"])) or {"unit": "tokens", "size": 200})
    if name == "sentence":
        return "sentences", int(params["size"])
    if "size" in params:
        return str(params.get("unit", "tokens")), int(params["size"])
    if "max_tokens" in params:
        return "tokens", int(params["max_tokens"])
    return "tokens", None


@pytest.mark.parametrize("name", [k.name for k in chunker_kinds()])
def test_every_chunker_keeps_its_limit_on_one_long_line_without_punctuation(name):
    """200 KB with no sentence end and no line break: a sentence chunker's 'sentence' is the whole line,
    which it must cut (chonkie's SentenceChunker returned it whole; semantic kept 2,000-character runs of
    ~800 tokens at a 512 limit). Default parameters, as a user would run them."""
    chunker = get_kind(name).make(_resources())
    spans = chunk_verified(chunker, LINE, (), "long.txt")
    unit, limit = _limit(name, chunker.spec.param_dict)
    if limit is None:  # langchain_markdown: one chunk per section, no size limit
        assert spans == [(0, len(LINE))]
        return
    if unit == "tokens":
        own = chunker.spec.library in ("semchunk", "langchain-text-splitters") and name != "langchain_token"
        sizes = [COUNTER.count(LINE[a:b]) if own else RULER.size(a, b) for a, b in spans]
    else:
        starts = unit_spans(LINE, unit, COUNTER)[:, 0]
        sizes = [int(np.searchsorted(starts, b) - np.searchsorted(starts, a)) for a, b in spans]
    assert max(sizes) <= limit, f"{name}: a chunk of {max(sizes)} {unit} (limit {limit})"


def test_token_offsets_cover_what_the_tokenizer_drops():
    text = "\x01lead ab\x02cd e\u0301f\x7f gh \x00 ij\u0308\u0301 trail\x03"
    offsets = COUNTER.offsets(text)
    covered = {i for a, b in offsets for i in range(a, b)}
    assert [text[i] for i in range(len(text)) if not text[i].isspace() and i not in covered] == []
    assert len(offsets) == COUNTER.count(text), "as many tokens as the tokenizer counts"
    assert not any(text[a] in "\u0301\u0308" for a, _ in offsets), "no token starts with a mark of its letter"


def test_tiling_crosses_its_block_boundaries():
    text = "a\x01 " * 70_000 + "b\u0301"
    spans = np.array([(3 * i, 3 * i + 1) for i in range(70_000)] + [(210_000, 210_001)])
    tiled = tile_spans(text, spans)
    assert (tiled[:-1, 1] - tiled[:-1, 0] == 2).all() and tuple(tiled[-1]) == (210_000, 210_002)
    assert (spans[:, 1] - spans[:, 0] == 1).all(), "a copy unless asked to change the array"


