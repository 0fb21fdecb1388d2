"""The relevant-segments expansion and budget-aware assembly, end to end on a small real corpus (hashed
vectors: fast, no model) and on the sample corpus where meaning matters."""

import pytest

from workbench.core.retrieve.strategy.presets import PRESETS, override

TOPICS = ["backup restore archive", "kernel scheduler thread", "garden tomato soil", "invoice payment tax",
          "rocket orbit fuel", "violin concert music"]
QUESTIONS = ["how do I restore a backup archive", "which soil for tomato plants", "orbit fuel of the rocket",
             "when is the invoice tax due", "thread priority in the kernel scheduler"]


@pytest.fixture
def small_ws(hash_ws, tmp_path):
    """Three documents of alternating topics, indexed with 20-token chunks."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for d in range(3):
        paragraphs = []
        for p in range(18):
            topic = TOPICS[(d * 5 + p * (d + 1)) % len(TOPICS)]
            paragraphs.append(" ".join(f"{topic} note {p} of document {d} line {k}." for k in range(3)))
        (folder / f"doc{d}.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    report = hash_ws.add_paths([str(folder)])
    assert not report.failed
    return hash_ws



@pytest.mark.parametrize("preset", ["segments-precision", "segments-balanced", "segments-recall"])
@pytest.mark.parametrize("budget", [0, 60, 150, 400])
def test_segments_never_overlap_stay_in_documents_and_budget_and_cover_or_report_hits(small_ws, preset, budget):
    for question in QUESTIONS:
        strategy = override(PRESETS[preset], size=20, budget=budget, top_k=8)
        result = small_ws.search(question, strategy)
        spans = result.spans()
        assert spans or result.context.dropped
        for i, a in enumerate(spans):
            for b in spans[i + 1:]:
                assert not a.overlaps(b), (a, b)
        for p in result.passages:  # one document per passage, chunk-aligned, its value said first
            assert p.chunk_rows is not None and p.reasons[0].startswith("segment value ")
            assert len(p.reasons) == 1 + p.chunk_count
        if budget:
            assert result.context.tokens <= budget
        covered = {cid for p in result.passages for cid in p.hit_chunk_ids}
        dropped = {cid for p in result.context.dropped for cid in p.hit_chunk_ids}
        for hit in result.hits:
            assert hit.chunk_id in covered or hit.chunk_id in dropped, hit
        assert all(p.reasons for p in result.context.dropped)


def test_segments_values_fall_with_rank(small_ws):
    result = small_ws.search(QUESTIONS[0], override(PRESETS["segments-balanced"], size=20, budget=300, penalty=0.0))
    assert result.passages
    values = [float(p.reasons[0].split()[2].rstrip(":")) for p in result.passages]
    assert values == sorted(values, reverse=True)


def test_segments_compose_with_a_hybrid_first_stage(small_ws):
    strategy = override(PRESETS["segments-balanced"], size=20, search="hybrid", budget=200, penalty=0.0)
    result = small_ws.search(QUESTIONS[1], strategy)
    assert result.passages and result.context.tokens <= 200
    assert any(h.bm25_score is not None for h in result.hits)


def test_segments_knobs_are_checked_and_round_trip():
    s = PRESETS["segments-precision"]
    assert (s.expander.penalty, s.expander.decay, s.expander.max_segment_chunks) == (0.25, 10.0, 4)
    assert override(s, penalty=0.3).expander.penalty == 0.3
    with pytest.raises(ValueError, match="penalty"):
        override(s, penalty=1.5)
    with pytest.raises(ValueError, match="max_segment_chunks"):
        override(s, max_segment_chunks=0)


@pytest.mark.parametrize("expansion", [dict(expansion="neighbours", window=2),
                                       dict(expansion="tokens", window_tokens=80),
                                       dict(expansion="selective", margin=0.5), dict(expansion="none")])
@pytest.mark.parametrize("budget", [30, 90, 200])
def test_budget_aware_assembly_never_drops_a_hit_while_a_window_can_shrink(small_ws, expansion, budget):
    for question in QUESTIONS:
        strategy = override(PRESETS["plain"], size=20, top_k=6, budget=budget, **expansion)
        result = small_ws.search(question, strategy)
        assert result.context.tokens <= budget
        covered = {cid for p in result.passages for cid in p.hit_chunk_ids}
        dropped = [p for p in result.context.dropped if p.hit_chunk_ids and p.hit_chunk_ids[0] not in covered]
        if dropped:  # a hit is dropped only when every kept window is down to its hit chunk
            assert all(p.chunk_count == len(p.hit_chunk_ids) or _contiguous_hits(p) for p in result.passages), (
                [(p.chunk_rows, p.hit_chunk_ids) for p in result.passages])
        for hit in result.hits:
            assert hit.chunk_id in covered or any(hit.chunk_id in p.hit_chunk_ids for p in result.context.dropped)


def _contiguous_hits(passage):
    """A merged passage of hit chunks only (adjacent hits merge; nothing else is in it)."""
    return passage.chunk_count <= len(passage.hit_chunk_ids)


def test_budget_aware_assembly_keeps_lower_hits_by_shrinking_windows(small_ws):
    question = QUESTIONS[0]
    free = small_ws.search(question, override(PRESETS["plain"], size=20, top_k=5, expansion="neighbours", window=2))
    hit_tokens = sum(int(t) for t in [p.tokens for p in
                                      small_ws.search(question, override(PRESETS["plain"], size=20, top_k=5)).passages])
    budget = hit_tokens + 10
    capped = small_ws.search(question, override(PRESETS["plain"], size=20, top_k=5, expansion="neighbours", window=2,
                                                                     budget=budget))
    assert free.context.tokens > budget >= capped.context.tokens
    kept = {cid for p in capped.passages for cid in p.hit_chunk_ids}
    assert kept == {h.chunk_id for h in capped.hits}, "every hit kept: windows shrank instead"
    assert any("trimmed" in r for p in capped.passages for r in p.reasons)


def test_segments_on_the_sample_corpus_keep_the_answer(hash_sample_ws):
    result = hash_sample_ws.search("How do I restore a backup?", override(PRESETS["segments-balanced"], budget=400))
    assert result.passages and result.context.tokens <= 400
    corpus = hash_sample_ws.corpus
    text = " ".join(corpus.doc_text(p.span.doc_id)[p.span.start:p.span.end] for p in result.passages).lower()
    assert "restore" in text
