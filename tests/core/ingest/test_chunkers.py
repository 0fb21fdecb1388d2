"""The chunker protocol: every built-in chunker returns exact, ordered, covering spans within its size limit;
identities are stable; semantic thresholds re-chunk without re-embedding; bad chunkers fail by name."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from fake_embedder import HashEmbedder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.consent import trust
from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.chunkers import (
    ChunkerError,
    ChunkerResources,
    ChunkerSpec,
    chunk_verified,
    chunker_kinds,
    get_kind,
    make_chunker,
    pieces_from_spans,
    verify_spans,
)
from workbench.core.ingest.chunkers.recursive import TokenRuler
from workbench.core.ingest.chunking import chunk_document, unit_spans
from workbench.core.ingest.headings import parse_headings
from workbench.core.ingest.tokens import counter_for_model
from workbench.core.ingest.values import ChunkConfig

COUNTER = counter_for_model(str(default_model_path()))
EMBEDDER = HashEmbedder()
TOPICS = ["harbour", "glacier", "orchard", "lantern"]


def _resources(cache: dict | None = None, calls: list | None = None) -> ChunkerResources:
    def embed(texts: list[str]):
        if calls is not None:
            calls.append(len(texts))
        return EMBEDDER.encode(texts)

    return ChunkerResources(COUNTER, embed, EMBEDDER.model_id, {} if cache is None else cache)


# (kind, params, unit the size limit counts, the limit): small sizes so that every text gets cut
CASES = [
    ("fixed", {"unit": "tokens", "size": 8, "overlap": 2}, "tokens", 8),
    ("fixed", {"unit": "words", "size": 5, "overlap": 1}, "words", 5),
    ("sentence", {"size": 2, "overlap": 1}, "sentences", 2),
    ("structure", {"unit": "tokens", "size": 8}, "tokens", 8),
    ("recursive", {"max_tokens": 12, "overlap": 3}, "tokens", 12),
    ("recursive", {"max_tokens": 1}, "tokens", 1),
    ("semantic", {"percentile": 70.0, "max_tokens": 16}, "tokens", 16),
    ("cluster_semantic", {"max_tokens": 16, "piece_tokens": 4}, "tokens", 16),
    ("late", {"base": "fixed", "base_params": '{"unit": "tokens", "size": 8, "overlap": 2}'}, "tokens", 8),
    # ecosystem adapters: sizes as the library measures them, i.e. tokens of the chunk text on its own
    ("langchain_recursive", {"max_tokens": 12, "overlap": 3}, "tokens", 12),
    ("langchain_markdown", {"max_level": 2}, "tokens", None),
    ("langchain_token", {"max_tokens": 8, "overlap": 2}, "tokens", 8),
    ("chonkie_token", {"max_tokens": 8, "overlap": 2}, "tokens", 8),
    ("chonkie_sentence", {"max_tokens": 12, "overlap": 3, "min_characters": 1}, "tokens", 12),
    ("chonkie_recursive", {"max_tokens": 12, "min_characters": 4}, "tokens", 12),
    ("semchunk", {"max_tokens": 12, "overlap": 3}, "tokens", 12),
]
# control characters and combining marks too: tokenizers drop them, chunks must still cover them and keep
# each mark with its letter
WORDS = st.text(alphabet="abcdeXYZé漢字😀🎉🚀7.,?!#-\x01\x7f\x00\u0301\u0308", min_size=1, max_size=10)
SEPARATORS = st.sampled_from([" ", "  ", "\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\r\r", ". ", "! ", "\n# ",
                              "\r\n## ", "\n\t\n"])
TEXTS = st.lists(st.one_of(WORDS, SEPARATORS), min_size=0, max_size=60).map("".join)


def _size(text: str, span: tuple[int, int], unit: str) -> int:
    if unit == "tokens":
        return TokenRuler(text, COUNTER).size(*span)
    starts = [int(a) for a, _ in unit_spans(text, unit, COUNTER)]
    return sum(1 for s in starts if span[0] <= s < span[1])


def _splits_a_letter(text: str, edge: int) -> bool:
    """True when ``edge`` lies between a non-space character and a combining mark that follows it."""
    return 0 < edge < len(text) and unicodedata.combining(text[edge]) > 0 and not text[edge - 1].isspace()


def test_every_built_in_kind_is_tested():
    assert {kind for kind, *_ in CASES} == {k.name for k in chunker_kinds()}


@pytest.mark.parametrize(("kind", "params", "unit", "limit"), CASES, ids=lambda v: str(v))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_spans_are_exact_ordered_covering_and_within_size(kind, params, unit, limit, text):
    headings = parse_headings(text)
    chunker = get_kind(kind).make(_resources(), **params)
    raw = chunker.chunk(text, headings)
    spans = chunk_verified(chunker, text, headings, "random.txt")
    if not all(isinstance(item, str) for item in raw):  # chunk texts (a library's fallback) are mapped back
        assert spans == [(a, b) for a, b in raw], "chunkers returning spans return exact ones; verification keeps them"
    assert all(text[a:b].strip() for a, b in spans), "no empty chunks"
    assert all(a1 <= a2 and b1 <= b2 for (a1, b1), (a2, b2) in zip(spans, spans[1:])), "in document order"
    covered = set()
    for a, b in spans:
        covered.update(range(a, b))
    skipped = set()
    if kind == "structure" and spans:  # heading lines live in the heading path, not the chunk text
        skipped = {i for h in headings for i in range(h.start, h.end)}
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and i not in covered and i not in skipped]
    assert not missing, f"non-space characters left out: {[text[i] for i in missing]}"
    split = [edge for span in spans for edge in span if _splits_a_letter(text, edge)]
    assert not split, f"chunk edges between a letter and its combining mark: {split}"
    for span in spans:  # no exception: a sentence longer than the limit is cut too
        if kind == "semchunk":  # semchunk counts a chunk's own text (tokens can differ in context)
            assert COUNTER.count(text[span[0]:span[1]]) <= limit, f"semchunk chunk {text[span[0]:span[1]]!r} too large"
        elif limit is not None:
            assert _size(text, span, unit) <= limit, f"{kind} chunk {text[span[0]:span[1]]!r} too large"


def test_spec_identity_is_stable_and_round_trips():
    kind = get_kind("recursive")
    spec = kind.spec(overlap=10, max_tokens=100)
    assert spec == kind.spec(max_tokens=100, overlap=10), "parameter order does not matter"
    assert ChunkerSpec.from_json(spec.to_json()) == spec
    assert spec.to_json() == ('{"library":"workbench","name":"recursive","params":{"max_tokens":100,'
                              f'"overlap":10}},"version":"{spec.version}"}}')
    assert spec.identity() == ChunkerSpec.from_json(spec.to_json()).identity()
    assert spec.identity() != kind.spec(max_tokens=101, overlap=10).identity()
    assert kind.spec().param_dict == {"max_tokens": 256, "overlap": 0}, "defaults filled in"
    assert spec.label() == "recursive (max_tokens=100, overlap=10)"


def test_bad_parameters_are_refused_with_the_chunker_named():
    with pytest.raises(ChunkerError, match="'recursive' has no parameter size"):
        get_kind("recursive").spec(size=3)
    with pytest.raises(ChunkerError, match="percentile must be at most 100"):
        get_kind("semantic").spec(percentile=120)
    with pytest.raises(ChunkerError, match="unit must be one of"):
        get_kind("fixed").spec(unit="pages")
    with pytest.raises(ChunkerError, match="overlap must be smaller"):
        get_kind("recursive").make(_resources(), max_tokens=5, overlap=5)
    with pytest.raises(ChunkerError, match="needs an embedding function"):
        get_kind("semantic").make(ChunkerResources(counter=COUNTER))
    with pytest.raises(ChunkerError, match="no chunker called 'magic'"):
        get_kind("magic")


def test_make_chunker_rebuilds_a_stored_spec_and_refuses_another_version():
    spec = get_kind("cluster_semantic").spec(max_tokens=64)
    assert make_chunker(spec, _resources()).spec == spec
    old = ChunkerSpec(spec.name, spec.params, spec.library, "0.0.0-old")
    with pytest.raises(ChunkerError, match="was workbench 0.0.0-old"):
        make_chunker(old, _resources())


def test_fixed_kinds_match_chunk_document_exactly():
    text = "# Guide\n\nFirst paragraph here. It has two sentences.\n\n## Part\n\nSecond one, longer " * 5
    headings = parse_headings(text)
    for kind, params, config in [
        ("fixed", {"unit": "tokens", "size": 20, "overlap": 4}, ChunkConfig("tokens", 20, 4)),
        ("sentence", {"size": 3, "overlap": 1}, ChunkConfig("sentences", 3, 1)),
        ("structure", {"unit": "words", "size": 9}, ChunkConfig("words", 9, 0, structure_aware=True)),
    ]:
        expected = chunk_document(text, headings, config, COUNTER)
        spans = chunk_verified(get_kind(kind).make(_resources(), **params), text, headings, "guide.md")
        assert pieces_from_spans(spans, headings) == expected


def _topical_text(sentences_per_topic: int = 4) -> str:
    return "\n\n".join(" ".join(f"The {t} report {n} says the {t} {t} is calm." for n in range(sentences_per_topic))
                       for t in TOPICS)


def test_recursive_prefers_paragraph_breaks():
    text = _topical_text()
    per_paragraph = TokenRuler(text, COUNTER).size(0, text.index("\n\n"))
    spans = chunk_verified(get_kind("recursive").make(_resources(), max_tokens=per_paragraph + 5), text, (), "t")
    assert [text[a:b] for a, b in spans] == text.split("\n\n")


def test_semantic_threshold_moves_without_embedding_again():
    text = _topical_text()
    cache: dict = {}
    calls: list[int] = []
    kind = get_kind("semantic")
    strict = chunk_verified(kind.make(_resources(cache, calls), percentile=90.0), text, (), "topics.txt")
    assert len(calls) == 1 and cache
    loose = chunk_verified(kind.make(_resources(cache, calls), percentile=40.0), text, (), "topics.txt")
    assert len(calls) == 1, "a new threshold re-uses the cached sentence vectors"
    assert len(loose) > len(strict)
    starts = {text.index(f"The {t} report 0") for t in TOPICS[1:]}
    assert starts <= {a for a, _ in chunk_verified(kind.make(_resources(cache, calls), percentile=75.0),
                                                   text, (), "topics.txt")}, "breaks where the topic changes"


def test_cluster_semantic_groups_pieces_of_one_topic():
    text = _topical_text()
    calls: list[int] = []
    chunker = get_kind("cluster_semantic").make(_resources(calls=calls), max_tokens=120, piece_tokens=14)
    spans = chunk_verified(chunker, text, (), "topics.txt")
    for a, b in spans:
        assert sum(t in text[a:b] for t in TOPICS) == 1, f"one topic per chunk: {text[a:b]!r}"
    assert len(spans) == len(TOPICS)
    chunk_verified(chunker, text, (), "topics.txt")
    assert len(calls) == 1, "re-chunking the same text embeds nothing new"


def shifted_chunker(text, headings):
    """A broken user chunker: every span one character to the right of the text it claims."""
    return [(a + 1, b + 1, text[a:b]) for a, b in [(0, 5), (6, 12)]]


def paragraph_texts(text, headings):
    """A user chunker that returns stripped paragraph texts (mapped back to spans)."""
    return [p.strip() for p in text.split("\n\n") if p.strip()]


def invented_texts(text, headings):
    """A user chunker that returns text the document does not contain."""
    return ["nothing like this is in the document"]


def test_a_shifted_custom_chunker_fails_naming_chunker_and_document():
    trust("custom:test_chunkers:shifted_chunker")  # named by the user (the test), not read from data
    kind = get_kind("custom:test_chunkers:shifted_chunker")
    chunker = kind.make(_resources())
    with pytest.raises(ChunkerError) as caught:
        chunk_verified(chunker, "Hello world, again.", (), "notes/hello.md")
    message = str(caught.value)
    assert "custom:test_chunkers:shifted_chunker" in message and "notes/hello.md" in message
    assert "shifted" in message
    assert kind.library == "test_chunkers" and chunker.spec.version.startswith("src-")


def test_custom_chunkers_returning_texts_are_mapped_back_or_refused():
    for target in ("paragraph_texts", "invented_texts"):
        trust(f"test_chunkers:{target}")
    trust("no_such_module_xyz:chunk")
    text = "  First para.\n\nSecond   para here. \n\n\n Third."
    spans = chunk_verified(get_kind("custom:test_chunkers:paragraph_texts").make(_resources()), text, (), "p.txt")
    assert [text[a:b] for a, b in spans] == ["First para.", "Second   para here.", "Third."]
    with pytest.raises(ChunkerError, match="invented_texts.*'p.txt'.*cannot be found"):
        chunk_verified(get_kind("custom:test_chunkers:invented_texts").make(_resources()), text, (), "p.txt")
    with pytest.raises(ChunkerError, match="cannot import"):
        get_kind("custom:no_such_module_xyz:chunk").make(_resources())


def test_verify_spans_refuses_out_of_range_blank_and_unordered_spans():
    text = "alpha beta gamma"
    assert verify_spans(text, [(0, 5), (6, 10, "beta")], "mine", "d") == [(0, 5), (6, 10)]
    for bad, why in [([(0, 99)], "outside the text"), ([(5, 6)], "only white space"),
                     ([(6, 10), (0, 5)], "document order"), ([("a", "b")], "not a")]:
        with pytest.raises(ChunkerError, match=why):
            verify_spans(text, bad, "mine", "d")
    assert verify_spans(text, ["beta gamma", "gamma"], "lib", "d") == [(6, 16), (11, 16)], "overlapping texts"
    assert verify_spans(text, ["alpha  beta"], "lib", "d") == [(0, 10)], "re-joined white space is matched"


def test_a_small_lru_cache_still_returns_every_vector_and_forgets_the_oldest():
    from workbench.core.ingest.chunkers.vector_cache import LruVectors, embed_cached

    cache = LruVectors(max_items=2)
    texts = ["one harbour", "two glacier", "three orchard", "one harbour"]
    vectors = embed_cached(texts, EMBEDDER.encode, cache, "hash")
    assert vectors.shape == (4, EMBEDDER.dim)
    assert (vectors[0] == vectors[3]).all()
    assert np.allclose(vectors[2], EMBEDDER.encode(["three orchard"])[0], atol=1e-6)
    assert len(cache) == 2


def test_semchunk_overlap_never_returns_a_chunk_over_the_limit():
    """semchunk's overlap mode returned one 13-token chunk for a 14-digit run at 12 tokens (found by hypothesis)."""
    text = "7" * 14
    spans = chunk_verified(get_kind("semchunk").make(_resources(), max_tokens=12, overlap=3), text, [], "digits.txt")
    assert spans and all(_size(text, span, "tokens") <= 12 for span in spans)
    assert "".join(text[a:b] for a, b in spans).count("7") >= 14


def test_a_documents_offsets_are_kept_for_its_next_cut():
    from workbench.core.ingest.tokens import HFTokenCounter, OffsetsMemo

    counter = HFTokenCounter(f"{default_model_path()}/tokenizer.json")
    tokenized: list[int] = []
    inner = counter._offsets
    counter._offsets = lambda text: (tokenized.append(len(text)), inner(text))[1]  # type: ignore[method-assign]
    doc = " ".join(f"word{i} is here." for i in range(2_000))
    first = counter.offsets(doc)
    again = counter.offsets(doc)
    assert again is first and len(tokenized) == 1, "the second cut reads the kept offsets"
    assert not first.flags.writeable, "kept offsets cannot be changed by a caller"
    other = doc.replace("word1 ", "wordX ", 1)  # same length, another text: never a hit
    assert np.array_equal(counter.offsets(other), inner(other)) and len(tokenized) == 2
    counter.offsets("a short text")
    assert counter.offsets("a short text").flags.writeable and len(tokenized) == 4, "short texts are not kept"

    memo = OffsetsMemo(max_tokens=10)
    memo.put("a" * 5, np.zeros((6, 2), dtype=np.int64))
    memo.put("b" * 5, np.zeros((6, 2), dtype=np.int64))  # 12 tokens: the older one goes
    assert memo.get("a" * 5) is None and memo.get("b" * 5) is not None
    assert counter_for_model(str(default_model_path())) is COUNTER, "one counter per model folder"
