"""Bounded cost per document: every chunker keeps its size limit on one long line with no punctuation,
cluster-semantic builds no piece-by-piece matrix, late chunking never holds a document's token vectors,
token offsets cover what the tokenizer drops, and one document a chunker cannot cut is left out of its
chunk set (with a warning) instead of stopping the corpus."""

from __future__ import annotations

import json
import random
import tracemalloc

import numpy as np
import pytest
from fake_embedder import HashEmbedder

from workbench.core.consent import trust
from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.boundaries import tile_spans
from workbench.core.ingest.chunkers import ChunkerResources, chunk_verified, chunker_kinds, get_kind
from workbench.core.ingest.chunkers.cluster_semantic import best_segmentation
from workbench.core.ingest.chunkers.late import late_chunk_vectors, pool_chunk_vectors, token_vectors
from workbench.core.ingest.chunkers.recursive import TokenRuler
from workbench.core.ingest.chunking import unit_spans
from workbench.core.ingest.tokens import counter_for_model
from workbench.core.retrieve.strategy.presets import resolve

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


def _old_segmentation(vectors, pieces, ruler, max_tokens):
    """The previous implementation (a full similarity matrix and its 2-D prefix sums), as the reference."""
    n = len(pieces)
    sims = vectors @ vectors.T
    if n > 1:
        sims = sims - sims[np.triu_indices(n, k=1)].mean()
    np.fill_diagonal(sims, 0.0)
    prefix = np.zeros((n + 1, n + 1))
    prefix[1:, 1:] = np.cumsum(np.cumsum(sims, axis=0), axis=1)
    best, back = np.full(n + 1, -np.inf), np.zeros(n + 1, dtype=np.int64)
    best[0] = 0.0
    for i in range(1, n + 1):
        for j in range(i - 1, -1, -1):
            if j < i - 1 and ruler.size(pieces[j][0], pieces[i - 1][1]) > max_tokens:
                break
            block = prefix[i, i] - prefix[j, i] - prefix[i, j] + prefix[j, j]
            if best[i] == -np.inf or best[j] + block > best[i] + 1e-9 * (1 + abs(best[i])):  # ties: later start
                best[i], back[i] = best[j] + block, j
    groups, i = [], n
    while i > 0:
        groups.append((pieces[back[i]][0], pieces[i - 1][1]))
        i = int(back[i])
    return groups[::-1]


class _Ruler(TokenRuler):
    def __init__(self, starts):  # token starts given directly
        self.starts = np.asarray(starts, dtype=np.int64)


def _pieces(lengths):
    """Pieces of ``lengths`` tokens (two characters a token, one space between pieces) and the ruler."""
    pieces, starts, pos = [], [], 0
    for n in lengths:
        pieces.append((pos, pos + 2 * n))
        starts += range(pos, pos + 2 * n, 2)
        pos += 2 * n + 1
    return pieces, _Ruler(starts)


def test_cluster_semantic_banded_programme_matches_the_full_matrix():
    rng = np.random.default_rng(5)
    for _ in range(150):
        pieces, ruler = _pieces(rng.integers(1, 6, int(rng.integers(1, 30))))
        vectors = rng.normal(size=(len(pieces), 6))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        max_tokens = int(rng.integers(1, 16))
        assert best_segmentation(vectors, pieces, ruler, max_tokens) == \
            _old_segmentation(vectors, pieces, ruler, max_tokens)


def test_cluster_semantic_memory_is_linear_in_the_pieces():
    """~3,000 pieces of one long line: a pair matrix of float64 alone would be ~70 MB (the old code built
    the similarities, their 2-D prefix sums and temporaries); the banded programme holds the vectors and a
    band as wide as one group."""
    text = long_line(60_000, seed=2)

    def embed(texts):  # small deterministic vectors: the chunker's own memory is what is measured
        return np.random.default_rng(len(texts)).normal(size=(len(texts), 8)).astype(np.float32)

    chunker = get_kind("cluster_semantic").make(ChunkerResources(COUNTER, embed, "tiny", {}),
                                                max_tokens=64, piece_tokens=8)
    tracemalloc.start()
    try:
        spans = chunker.chunk(text, ())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    pieces = TokenRuler(text, COUNTER).size(0, len(text)) // 8  # at least this many pieces of 8 tokens
    assert len(spans) > 300 and pieces > 2500
    assert peak < 8 * pieces ** 2 / 4, f"peak {peak / 1e6:.1f} MB for about {pieces} pieces"


class _FakeModel:
    """Just what late chunking uses of a SentenceTransformer: its tokenizer (the real MiniLM one), position
    limit, device and a forward pass (token vectors from a fixed random table, plus the row's mean so that
    context matters); records the longest row it was given."""

    def __init__(self, dim: int = 32) -> None:
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(str(default_model_path()), local_files_only=True)
        self.max_seq_length = 128
        self.device = "cpu"
        self.table = np.random.default_rng(0).normal(size=(self.tokenizer.vocab_size, dim)).astype(np.float32)
        self.longest = 0

    def get_embedding_dimension(self) -> int:
        return self.table.shape[1]

    def forward(self, features):
        import torch

        ids = features["input_ids"].numpy()
        self.longest = max(self.longest, ids.shape[1])
        states = self.table[ids] + self.table[ids].mean(axis=1, keepdims=True)
        return {"token_embeddings": torch.from_numpy(states)}


class _FakeEmbedder:
    def __init__(self) -> None:
        self.model = _FakeModel()


@pytest.fixture(scope="module")
def fake_embedder():
    return _FakeEmbedder()


def test_late_vectors_are_pooled_window_by_window(fake_embedder):
    text = long_line(6_000, seed=9)
    spans = chunk_verified(get_kind("fixed").make(_resources(), size=40), text, (), "d")
    vectors, offsets = token_vectors(fake_embedder, text)
    expected = pool_chunk_vectors(vectors, offsets, spans)
    assert np.allclose(late_chunk_vectors(fake_embedder, text, spans), expected, atol=1e-5)
    assert fake_embedder.model.longest <= fake_embedder.model.max_seq_length


def test_late_vectors_of_a_long_line_hold_no_document_sized_array(fake_embedder):
    """~130,000 tokens of one line: the old code held every token's vector (17 MB at 32 dimensions), their
    float64 running sums (34 MB) and the whole document's token lists. What may grow with the document is
    its token ids and offsets (24 bytes a token, ~3 MB here); the rest is one block's tokenizer output."""
    text = long_line(400_000, seed=4)
    spans = chunk_verified(get_kind("fixed").make(_resources(), size=256), text, (), "d")
    tracemalloc.start()
    try:
        late = late_chunk_vectors(fake_embedder, text, spans)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert late.shape == (len(spans), 32) and np.allclose(np.linalg.norm(late, axis=1), 1.0, atol=1e-5)
    assert peak < 20e6, f"peak {peak / 1e6:.1f} MB"


def failing_on_one(text, headings):
    """A user chunker that cannot cut one of the documents."""
    if "glacier" in text:
        raise ValueError("no idea what to do with glaciers")
    return [(0, len(text.rstrip()))]


def test_one_document_a_chunker_cannot_cut_is_left_out_with_a_warning(hash_ws, tmp_path):
    from workbench.core.index.build import IngestReport

    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "harbour.md").write_text("# Harbour\n\nThe harbour opens at dawn.\n", encoding="utf-8")
    (folder / "glacier.md").write_text("# Glacier\n\nThe glacier walk starts at the hut.\n", encoding="utf-8")
    hash_ws.add_paths([str(folder)])
    report = IngestReport()
    trust("test_long_documents:failing_on_one")  # named by the user (the test), not read from data
    info = hash_ws.sets.ensure_chunk_set(resolve({"chunker": "custom:test_long_documents:failing_on_one"}).chunk,
                                    report=report)
    assert info.chunk_count == 1 and info.state == "ready"
    assert len(report.warnings) == 1 and "glacier.md" in report.warnings[0] and "glaciers" in report.warnings[0]


def test_langchain_markdown_cuts_a_corpus_with_control_characters(hash_ws, tmp_path):
    """A file whose lines hold control characters LangChain drops (its sections could not be mapped back,
    and the whole corpus was refused)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "clean.md").write_text("# Clean\n\nNothing odd here.\n\n# More\n\nStill fine.\n", encoding="utf-8")
    (folder / "odd.md").write_text("\x7fintro\x01text\n\n# Odd\x02\n\nbell\x07 and\x1b[0m escape\x08\n",
                                   encoding="utf-8")
    hash_ws.add_paths([str(folder)])
    info = hash_ws.sets.ensure_chunk_set(resolve({"chunker": "langchain_markdown"}).chunk)
    table = hash_ws.store.sets.chunk_table(info.id)
    assert len(set(table.doc_ids.tolist())) == 2, "both documents are cut"
    odd = next(d for d in hash_ws.store.documents.rows() if d["path"].endswith("odd.md"))
    text = hash_ws.store.documents.document(odd["id"]).text
    spans = [(a, b) for d, a, b in zip(table.doc_ids, table.starts, table.ends) if d == odd["id"]]
    covered = {i for a, b in spans for i in range(a, b)}
    assert [c for i, c in enumerate(text) if not c.isspace() and i not in covered] == []
