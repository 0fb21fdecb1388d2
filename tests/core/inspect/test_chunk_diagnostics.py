"""Chunk boundary diagnostics on hand-made texts whose answers are obvious, and a few properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.ingest.chunk_diagnostics import (
    ChunkedText,
    diagnose,
    document_counts,
    mid_sentence_ends,
    percentile,
    sentence_ends,
    separated_headings,
    size_histogram,
    split_references,
)
from workbench.core.ingest.headings import parse_headings

TEXT = "One fish swims. Two fish swim.\n\nRed fish rest. Blue fish rest."


def _cut(text: str, *pieces: str) -> list[tuple[int, int]]:
    """Spans of ``pieces`` found one after the other in ``text``."""
    spans, at = [], 0
    for piece in pieces:
        start = text.index(piece, at)
        spans.append((start, start + len(piece)))
        at = start + 1
    return spans


def test_chunks_ending_at_sentences_or_trailing_space_are_not_mid_sentence():
    ends = sentence_ends(TEXT)
    clean = _cut(TEXT, "One fish swims. Two fish swim.\n\n", "Red fish rest. ", "Blue fish rest.")
    assert mid_sentence_ends(TEXT, clean, ends) == 0
    torn = _cut(TEXT, "One fish swims. Two", " fish swim.\n\nRed fish", " rest. Blue fish rest.")
    assert mid_sentence_ends(TEXT, torn, ends) == 2
    assert mid_sentence_ends(TEXT, [(0, len(TEXT))], ends) == 0, "the last chunk ends with the text"


def test_a_heading_alone_at_a_chunk_end_is_separated_from_its_text():
    text = "# Intro\n\nWelcome here.\n\n## Setup\n\nInstall it first. Then run it."
    headings = [(h.start, h.end) for h in parse_headings(text)]
    apart = _cut(text, "# Intro\n\nWelcome here.\n\n## Setup\n\n", "Install it first. Then run it.")
    assert separated_headings(text, apart, headings) == (2, 1), "Setup's text starts in the next chunk"
    together = _cut(text, "# Intro\n\nWelcome here.\n\n", "## Setup\n\nInstall it first. Then run it.")
    assert separated_headings(text, together, headings) == (2, 0)
    overlapped = [*apart, _cut(text, "## Setup\n\nInstall")[0]]  # another chunk holds Setup with its text
    assert separated_headings(text, overlapped, headings) == (2, 0)
    assert separated_headings("Text.\n# Last", [(0, 13)], [(6, 13)]) == (0, 0), "nothing after it: not counted"


def test_a_reference_is_split_when_no_single_chunk_contains_it():
    chunks = _cut(TEXT, "One fish swims. Two fish swim.\n\n", "Red fish rest. Blue fish rest.")
    inside = _cut(TEXT, "Two fish swim.")[0]
    across = _cut(TEXT, "swim.\n\nRed")[0]
    padded = (inside[0] - 1, inside[1] + 2)  # white space around it does not matter
    assert split_references(TEXT, chunks, [inside, across, padded, (30, 32)]) == (3, 1)


def test_document_diagnostics_of_a_hand_cut_document():
    text = "# Title\n\nAlpha one. Alpha two.\n\n## Part\n\nBeta one. Beta two."
    headings = [(h.start, h.end) for h in parse_headings(text)]
    chunks = _cut(text, "# Title\n\nAlpha one. Alpha", " two.\n\n## Part\n\n", "Beta one. Beta two.")
    doc = ChunkedText(text, chunks, [10, 20, 30], sentence_ends(text, headings), headings,
                      [_cut(text, "Alpha two")[0], _cut(text, "Beta one")[0]])
    counts = document_counts(doc)
    assert (counts.chunks, counts.mid_sentence, counts.headings, counts.separated_headings) == (3, 1, 2, 1)
    assert (counts.references, counts.split_references) == (2, 1)
    d = diagnose([doc, doc])
    assert d.chunks == 6 and d.tokens_mean == 20.0
    assert d.mid_sentence_share == 2 / 6 and d.separated_heading_share == 0.5 and d.split_reference_share == 0.5
    assert sum(d.histogram.counts) == 6 and d.histogram.edges[0] <= 10 <= 30 <= d.histogram.edges[-1]
    assert diagnose([ChunkedText(text, chunks, [1, 2, 3], ())]).split_reference_share is None


def test_percentiles_and_histogram_bins():
    assert percentile([10, 20, 30, 40, 50], 10) == 14.0 and percentile([7], 90) == 7.0 and percentile([], 50) == 0
    hist = size_histogram([100, 120, 180, 200, 200, 310], bins=4)
    assert hist.edges == (100, 200, 300, 400) and hist.counts == (3, 2, 1)
    assert size_histogram([]).counts == ()
    assert size_histogram([5, 5, 5]).counts == (3,)


_TEXT = st.text(alphabet=st.sampled_from(list("ab .\n#")), min_size=1, max_size=120)


@st.composite
def _chunked(draw: st.DrawFn) -> ChunkedText:
    text = draw(_TEXT)
    n = len(text)
    cuts = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=12))
    chunks = [(min(a, b), max(a, b)) for a, b in cuts]
    tokens = draw(st.lists(st.integers(0, 500), min_size=len(chunks), max_size=len(chunks)))
    refs = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=4))
    headings = [(h.start, h.end) for h in parse_headings(text)]
    return ChunkedText(text, chunks, tokens, sentence_ends(text, headings), headings,
                       [(min(a, b), max(a, b)) for a, b in refs])


@settings(max_examples=150, deadline=None)
@given(st.lists(_chunked(), min_size=1, max_size=3))
def test_shares_are_fractions_and_every_chunk_is_counted(docs):
    d = diagnose(docs)
    assert d.chunks == sum(len(doc.chunks) for doc in docs) == sum(d.histogram.counts)
    for share in (d.mid_sentence_share, d.separated_heading_share, d.split_reference_share or 0.0):
        assert 0.0 <= share <= 1.0
    assert d.mid_sentence <= d.chunks and d.separated_headings <= d.headings
    if d.chunks:
        assert d.tokens_p10 <= d.tokens_p90 and min(d.histogram.edges) <= d.tokens_p10
        assert d.tokens_p90 <= max(d.histogram.edges)


@settings(max_examples=100, deadline=None)
@given(_TEXT)
def test_one_chunk_per_sentence_never_ends_mid_sentence_and_splits_no_sentence(text):
    from workbench.core.ingest.sentences import sentence_spans

    spans = sentence_spans(text)
    assert mid_sentence_ends(text, spans, sentence_ends(text)) == 0
    assert split_references(text, spans, spans) == (len(spans), 0)


# ----- a loaded chunk set and the command line ------------------------------------------------------------
GUIDE = "# Guide\n\n" + "\n\n".join(
    f"## {t.title()}\n\n" + " ".join(f"The {t} note {n} says the {t} is checked daily." for n in range(12))
    for t in ["harbour", "glacier", "orchard"])


def test_set_diagnostics_add_up_the_documents_of_a_chunk_set(hash_ws, tmp_path):
    from workbench.core.ingest.chunk_diagnostics import combine, summarise
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.inspect.chunk_map import (
        document_boundary_counts,
        document_diagnostics,
        reference_splits,
        set_diagnostics,
    )
    from workbench.core.spans import Span

    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(GUIDE.replace("Guide", name.upper()))
    assert not hash_ws.add_paths([str(tmp_path / "a.md"), str(tmp_path / "b.md")]).failed
    info = hash_ws.sets.ensure_chunk_set(ChunkConfig(size=40, overlap=8))
    rt = hash_ws.sets.runtime(info.id)
    doc_ids = sorted(rt.doc_first_row)
    start = GUIDE.index("## Glacier")
    refs = [Span(doc_ids[0], start, start + 300), Span(doc_ids[1], 10, 20)]
    whole = set_diagnostics(rt, hash_ws.corpus.document, refs)
    assert whole.chunks == len(rt) and sum(whole.histogram.counts) == len(rt)
    assert whole.tokens_mean == float(rt.table.tokens.mean())
    assert whole.references == 2 and whole.split_references == 1, "300 characters do not fit one 40-token chunk"
    assert whole.headings == 8  # four per document
    parts = [document_boundary_counts(rt, d, hash_ws.corpus.document(d), refs) for d in doc_ids]
    assert whole == summarise(combine(parts))
    assert reference_splits(rt, hash_ws.corpus.document, refs) == (2, 1)
    one = document_diagnostics(rt, doc_ids[0], hash_ws.corpus.document(doc_ids[0]))
    assert one.chunks == rt.doc_row_count[doc_ids[0]] and one.split_reference_share is None


def test_cli_chunk_stats_prints_each_chunker(capsys, tmp_path, hash_cli):
    import csv
    import json

    from workbench.cli import main

    (tmp_path / "guide.md").write_text(GUIDE)
    data = str(tmp_path / "data")
    assert main(["index", str(tmp_path / "guide.md"), "--data-dir", data, "--quiet"]) == 0
    capsys.readouterr()
    chunkers = ["fixed", '{"name": "sentence", "size": 2}']
    code = main(["chunk-stats", "--data-dir", data, "--quiet", "--json",
                 *[a for c in chunkers for a in ("--chunker", c)]])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert [r["chunker"] for r in rows] == chunkers and rows[1]["chunk_set"] == "2 sentences"
    assert rows[1]["mid_sentence"] == 0, "sentence chunks end at sentences"
    assert rows[1]["chunks"] > rows[0]["chunks"] and rows[0]["split_reference_share"] is None
    assert main(["chunk-stats", "--data-dir", data, "--quiet", "--chunker", "fixed"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("200 tokens:") and "chunks ending mid-sentence" in text and "sizes (tokens)" in text
    # a question set over the same text: one reference inside a sentence chunk, one across three sentences
    qset = tmp_path / "qset"
    (qset / "corpora").mkdir(parents=True)
    (qset / "corpora" / "guide.md").write_text(GUIDE)
    one = GUIDE.index("The orchard note 3")
    three = GUIDE.index("The glacier note 4")
    refs = [{"content": GUIDE[a:b], "start_index": a, "end_index": b}
            for a, b in ((one, GUIDE.index(".", one) + 1), (three, GUIDE.index("note 7", three)))]
    with open(qset / "questions.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["question", "references", "corpus_id"], ["When?", json.dumps(refs), "guide"]])
    code = main(["chunk-stats", "--data-dir", data, "--quiet", "--json", "--questions", str(qset),
                 "--chunker", '{"name": "sentence", "size": 2}'])
    out, err = capsys.readouterr()
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["references"] == 2 and row["split_references"] == 1 and row["split_reference_share"] == 0.5, \
        "the set's corpus is the indexed guide (same text): found by its hash, not indexed again"
    assert main(["chunk-stats", "--data-dir", data, "--chunker", "nonesuch"]) != 0
    assert main(["chunk-stats", "--data-dir", data, "--questions", str(tmp_path / "missing")]) != 0


def test_bins_of_another_chunking_and_reference_counts_swapped_in():
    from workbench.core.ingest.chunk_diagnostics import counts_in_bins, with_references

    assert counts_in_bins([0, 5, 10, 19, 20, 99], (0, 10, 20)) == (2, 4)
    assert counts_in_bins([3], ()) == ()
    d = diagnose([ChunkedText(TEXT, [(0, 10)], [4], ())])
    assert with_references(d, 4, 1).split_reference_share == 0.25
    assert with_references(d, 0, 0).split_reference_share is None


@settings(max_examples=200, deadline=None)
@given(_chunked())
def test_the_fast_lookups_agree_with_checking_every_chunk(doc):
    text, chunks = doc.text, doc.chunks
    total = separated = 0
    for h_start, h_end in doc.headings:
        if h_end <= h_start or not text[h_end:].strip():
            continue
        total += 1
        holding = [(s, e) for s, e in chunks if s < h_end <= e]
        separated += bool(holding) and all(not text[h_end:e].strip() for _s, e in holding)
    assert separated_headings(text, chunks, doc.headings) == (total, separated)
    refs = [(a, b) for a, b in doc.references if text[a:b].strip()]
    split = 0
    for a, b in refs:
        a2 = a + len(text[a:b]) - len(text[a:b].lstrip())
        b2 = b - (len(text[a:b]) - len(text[a:b].rstrip()))
        split += not any(s <= a2 and b2 <= e for s, e in chunks)
    assert split_references(text, chunks, doc.references) == (len(refs), split)
