"""Chunker invariants over every unit and mode, on the sample corpus and tricky text."""

import pytest
from conftest import SAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.chunking import chunk_document, unit_spans
from workbench.core.ingest.documents import load_file
from workbench.core.ingest.headings import parse_headings, section_spans
from workbench.core.ingest.sentences import sentence_spans
from workbench.core.ingest.values import ChunkConfig

TRICKY = (
    "# Emoji 😀 heading\n\nRepeated text. Repeated text. Repeated text.\n\n"
    "## Section 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\n\nDr. Smith met J. R. Tolkien at 10 a.m. on Jan. 5. It rained 🌧️ all day! "
    "Did it? Yes.\n\n" + "word " * 120 + "\n\n## Last\n\nshort"
)
CONFIGS = [
    ChunkConfig("tokens", 32, 0), ChunkConfig("tokens", 50, 10), ChunkConfig("words", 20, 5),
    ChunkConfig("sentences", 2, 1), ChunkConfig("tokens", 40, 8, structure_aware=True),
    ChunkConfig("words", 30, 0, structure_aware=True), ChunkConfig("sentences", 1, 0),
]


def _texts():
    docs = [load_file(p).document for p in sorted(SAMPLE.iterdir())]
    return [(d.text, d.headings) for d in docs] + [(TRICKY, tuple(parse_headings(TRICKY)))]


@pytest.mark.parametrize("config", CONFIGS, ids=chunking_label)
def test_chunk_invariants(config, counter):
    for text, headings in _texts():
        pieces = chunk_document(text, headings, config, counter)
        units = unit_spans(text, config.unit, counter)
        assert pieces, "every non-empty document yields chunks"
        starts = [u[0] for u in units]
        for i, p in enumerate(pieces):
            assert p.position == i
            assert 0 <= p.start < p.end <= len(text)
            chunk = text[p.start : p.end]
            assert chunk == chunk.strip() or config.unit == "tokens"
            n_units = sum(1 for s in starts if p.start <= s < p.end)
            assert n_units <= config.size
        assert all(a.start <= b.start for a, b in zip(pieces, pieces[1:])), "chunks in document order"
        if not config.structure_aware:
            covered = {i for p in pieces for i in range(p.start, p.end)}
            assert all(u[0] in covered for u in units), "fixed-size chunks cover every unit"


def test_structure_aware_chunks_stay_inside_one_section(counter):
    doc = load_file(SAMPLE / "deploy-guide.md").document
    pieces = chunk_document(doc.text, doc.headings, ChunkConfig("tokens", 60, 0, structure_aware=True), counter)
    sections = section_spans(doc.headings, len(doc.text))
    for p in pieces:
        assert any(a <= p.start and p.end <= b for a, b in sections)
        assert not doc.text[p.start : p.end].lstrip().startswith("#"), "heading lines are not chunk text"
    why = doc.text.index("The database schema must be migrated")
    (piece,) = [p for p in pieces if p.start <= why < p.end]
    assert piece.heading_path[-1] == "Why migrations run before the rollout"


def test_token_chunks_use_the_model_tokenizer(counter):
    text = "Tokenization of unaffable words differs from splitting on spaces."
    pieces = chunk_document(text, (), ChunkConfig("tokens", 4, 0), counter)
    assert sum(1 for _ in text.split()) < sum(1 for _ in counter.offsets(text))
    assert "".join(text[p.start : p.end] for p in pieces).replace(" ", "") == text.replace(" ", "")


def test_headings_only_markdown_still_yields_chunks(counter):
    text = "# One\n\n## Two\n\n## Three\n"
    pieces = chunk_document(text, parse_headings(text), ChunkConfig("tokens", 10, 0, structure_aware=True), counter)
    assert [text[p.start : p.end] for p in pieces] == ["# One", "## Two", "## Three"]


def test_sentence_splitter_handles_abbreviations_and_keeps_offsets():
    text = "Dr. Smith arrived. He said: “Hello!” Then he left at 5 p.m. Nobody knew why?  Indeed."
    spans = sentence_spans(text)
    sentences = [text[a:b] for a, b in spans]
    assert sentences[0] == "Dr. Smith arrived."
    assert sentences[-1] == "Indeed."
    assert len(sentences) == 5


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .\n#😀é!?")), max_size=300),
       st.integers(1, 12), st.integers(0, 11), st.sampled_from(["words", "sentences"]), st.booleans())
def test_random_text_chunks_reproduce_their_text(text, size, overlap, unit, structured):
    if overlap >= size:
        overlap = size - 1
    config = ChunkConfig(unit, size, overlap, structure_aware=structured)
    headings = parse_headings(text)
    pieces = chunk_document(text, headings, config)
    for p in pieces:
        assert text[p.start : p.end].strip()
        assert p.end <= len(text)
    if text.strip():
        assert pieces


@pytest.mark.slow
def test_large_documents_chunk_in_bounded_memory(counter):
    """Token offsets are kept as a compact array (16 bytes a token), tokenized block by block: chunking
    a 6 MB document stays within a few times its size (a list of Python tuples took ~28×)."""
    import tracemalloc

    text = "The quick brown fox jumps over the lazy dog near the river bank. " * 92_000
    tracemalloc.start()
    try:
        pieces = chunk_document(text, (), ChunkConfig("tokens", 200, 0), counter)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(pieces) > 6000
    assert pieces[-1].end == len(text.rstrip())
    assert peak < 10 * len(text), f"peak {peak / 1e6:.0f} MB for {len(text) / 1e6:.0f} MB of text"


def test_structure_aware_never_emits_a_heading_only_chunk(counter):
    text = "# Plans\n\n## Day pass\n\nIt costs 9 euros.\n\n## Monthly pass\n\nIt costs 49 euros.\n\n## Empty\n"
    headings = parse_headings(text)
    pieces = chunk_document(text, headings, ChunkConfig("tokens", 50, 0, structure_aware=True), counter)
    assert [text[p.start : p.end] for p in pieces] == ["It costs 9 euros.", "It costs 49 euros."]
    assert [p.heading_path for p in pieces] == [("Plans", "Day pass"), ("Plans", "Monthly pass")]
