"""Golden tests of every strategy on small hand-made documents: with the real MiniLM model where its ranking
is the point (heading paths, the why-then-how window), on the hashed embedder where the strategy's mechanics are."""

import json

import pytest
from conftest import SAMPLE

from workbench.core.retrieve.strategy.presets import PRESETS, from_dict, override, resolve
from workbench.core.workspace import Workspace

PRICE_QUESTION = "How much is the monthly pass?"


@pytest.fixture(scope="module")
def prices_ws(tmp_path_factory, embedder):
    ws = Workspace(tmp_path_factory.mktemp("prices"), embedder=embedder)
    ws.add_paths([str(SAMPLE / "transit-prices.md")], from_dict({"size": 100, "structure_aware": True}).chunk)
    return ws


def _first_heading(ws, result):
    rt = ws.sets.runtime(result.set_id)
    return rt.heading_path(result.hits[0].row)[-1]


def test_heading_path_embedding_finds_the_monthly_pass(prices_ws, capsys):
    plain = prices_ws.search(PRICE_QUESTION, from_dict({"size": 100, "structure_aware": True}))
    headed = prices_ws.search(PRICE_QUESTION, from_dict({"size": 100, "structure_aware": True, "heading_prefix": True}))
    assert _first_heading(prices_ws, headed) == "Monthly pass"
    assert _first_heading(prices_ws, plain) != "Monthly pass"

    def score_of(result, heading):
        rt = prices_ws.sets.runtime(result.set_id)
        return next(h.score for h in result.hits if rt.heading_path(h.row)[-1] == heading)

    plain_rank = [_h for _h in plain.hits
                  if prices_ws.sets.runtime(plain.set_id).heading_path(_h.row)[-1] == "Monthly pass"][0].rank
    with capsys.disabled():
        print(f"\n  monthly-pass chunk score: plain {score_of(plain, 'Monthly pass'):.3f} "
              f"(rank {plain_rank}), "
              f"heading-path {score_of(headed, 'Monthly pass'):.3f} (rank 1)")
    # the embedded text differs from the display text, and both are stored
    rt = prices_ws.sets.runtime(headed.set_id)
    row = headed.hits[0].row
    assert rt.table.prefixes[row] == "Riverside Transit prices > Monthly pass: "
    assert prices_ws.corpus.doc_text(1)[headed.hits[0].span.start:].startswith("It costs 49 euros")


def test_neighbour_window_brings_the_how_after_the_why(sample_ws):
    """On the real model: its top hit is the chunk that says why, the next one says how."""
    q = "Why would visitors see broken images after a deploy?"
    plain = sample_ws.search(q, override(PRESETS["plain"], size=60, structure_aware=True, top_k=1))
    wide = sample_ws.search(q, override(PRESETS["plain"], size=60, structure_aware=True, top_k=1,
                                                             expansion="neighbours", window=1))
    corpus = sample_ws.corpus
    text = lambda r: corpus.doc_text(r.passages[0].span.doc_id)[r.passages[0].span.start : r.passages[0].span.end]  # noqa: E731
    assert "Pages rendered by old replicas" in text(plain)
    assert "cache flush --pages-only" not in text(plain)
    assert "cache flush --pages-only" in text(wide), "the command sits in the neighbouring chunk"
    assert wide.passages[0].span.contains(plain.passages[0].span)
    assert wide.context.tokens > plain.context.tokens


def test_sentence_window_is_symmetric(hash_sample_ws):
    s = PRESETS["sentence-window"]
    res = hash_sample_ws.search("How long does a full backup take?", override(s, top_k=1))
    p = res.passages[0]
    hit_row = res.hits[0].row
    first, end = hash_sample_ws.sets.runtime(res.set_id).doc_rows(p.span.doc_id)
    assert (first < hit_row - s.expander.window
            and hit_row + s.expander.window < end - 1), "pick a question whose hit is mid-document"
    assert p.chunk_rows == (hit_row - s.expander.window, hit_row + s.expander.window)
    assert p.chunk_count == 2 * s.expander.window + 1


def test_parent_child_returns_whole_parents_ranked_by_best_child(hash_sample_ws):
    res = hash_sample_ws.search("What does the monthly pass include?", PRESETS["parent-child"])
    assert 1 <= len(res.passages) <= PRESETS["parent-child"].expander.parent_top_k
    for p in res.passages:
        parents = hash_sample_ws.corpus.parents_of(p.span.doc_id, PRESETS["parent-child"].expander.parent_size)
        assert p.span.start in {a for a, _ in parents}
        assert all(p.span.contains(s) for s in p.hit_spans)
    sections = hash_sample_ws.search("What does the monthly pass include?",
                                     override(PRESETS["parent-child"], parent_size=0))
    doc = hash_sample_ws.corpus.document(sections.passages[0].span.doc_id)
    assert any(h.start == sections.passages[0].span.start for h in doc.headings) or sections.passages[0].span.start == 0


def test_hybrid_bm25_finds_exact_terms_and_quotes_user_text(hash_sample_ws):
    res = hash_sample_ws.search('orbit-admin "rollback" --to OR NOT *', PRESETS["hybrid"])
    assert res.hits and any(h.bm25_score is not None for h in res.hits)
    bm25 = hash_sample_ws.search("extension 4242", override(PRESETS["hybrid"], search="bm25", top_k=1))
    text = hash_sample_ws.corpus.doc_text(bm25.passages[0].span.doc_id)
    assert "4242" in text[bm25.passages[0].span.start : bm25.passages[0].span.end]


def test_budget_keeps_rank_order_and_reports_tokens(hash_sample_ws):
    free = hash_sample_ws.search("How do I restore a backup?", override(PRESETS["neighbours"], top_k=6))
    budget = max(p.tokens for p in free.passages[:2]) + 1
    capped = hash_sample_ws.search("How do I restore a backup?",
                                   override(PRESETS["neighbours"], top_k=6, budget=budget))
    assert capped.context.tokens <= budget
    # budget-aware assembly (issue #16): the weakest windows shrink before any hit is dropped
    assert capped.context.dropped or any("trimmed" in r for p in capped.passages for r in p.reasons)
    assert capped.passages[0].hit_chunk_ids[0] == free.passages[0].hit_chunk_ids[0]
    assert capped.context.tokens == sum(p.tokens for p in capped.passages)


def test_selective_expansion_reports_its_decisions(hash_sample_ws):
    s = override(PRESETS["selective"], size=40, margin=0.5)
    res = hash_sample_ws.search("Why are backups encrypted?", s)
    reasons = [r for p in res.passages for r in p.reasons]
    assert any(r.startswith("expanded") for r in reasons), reasons
    strict = hash_sample_ws.search("Why are backups encrypted?", override(s, margin=0.0, merge_gap=0))
    assert sum(p.span.length for p in strict.passages) <= sum(p.span.length for p in res.passages)


def test_strategies_are_serialisable_data():
    for s in PRESETS.values():
        again = resolve(s.to_json())
        assert again == s
    custom = resolve(json.dumps({"preset": "neighbours", "window": 3, "chunk_size": 50}))
    assert custom.expander.window == 3 and custom.chunk.size == 50 and custom.expander.kind == "neighbours"
    with pytest.raises(ValueError, match="unknown strategy field"):
        resolve('{"windw": 2}')


def test_window_change_does_not_embed(hash_sample_ws, hash_embedder):
    embedder = hash_embedder
    hash_sample_ws.search("How do I calibrate a sensor?", PRESETS["neighbours"])
    before = embedder.texts_encoded
    for w in range(0, 5):
        hash_sample_ws.search("How do I calibrate a sensor?", override(PRESETS["neighbours"], window=w, top_k=1 + w))
    assert embedder.texts_encoded == before


def test_non_bmp_text_keeps_offsets(hash_ws, tmp_path):
    text = ("# Emoji 😀 notes\n\n🌧️ Rain 𝔘𝔫𝔦 falls. " * 3
            + "\n\n## Umbrellas ☂️\n\nCarry an umbrella 🌂 when it rains 🌧️.\n")
    (tmp_path / "emoji.md").write_text(text, encoding="utf-8")
    hash_ws.add_paths([str(tmp_path / "emoji.md")], from_dict({"size": 12}).chunk)
    res = hash_ws.search("umbrella", from_dict({"size": 12, "window": 1, "expansion": "neighbours"}))
    stored = hash_ws.corpus.doc_text(res.passages[0].span.doc_id)
    assert stored == text
    for p in res.passages:
        assert "umbrella" in stored[p.span.start : p.span.end] or p.rank > 1
        for h in p.hit_spans:
            assert stored[h.start : h.end] == stored[h.start : h.end].strip()


def test_token_window_not_larger_than_the_chunk_warns(hash_sample_ws):
    q = "How long does a full backup take?"
    small = hash_sample_ws.search(q, override(PRESETS["token-window"], window_tokens=32))
    assert any("not larger than the hit chunks" in w for w in small.warnings)
    assert [p.span for p in small.passages] == [h.span for h in small.hits]
    wide = hash_sample_ws.search(q, PRESETS["token-window"])
    assert not any("not larger" in w for w in wide.warnings)
    assert resolve({"preset": "token-window", "window_edge": "clip"}).expander.window_edge == "clip"
    with pytest.raises(ValueError, match="window_edge"):
        resolve({"preset": "token-window", "window_edge": "wrap"})


def test_per_doc_cap_refills_to_top_k(hash_sample_ws):
    q = "How much does the monthly pass cost?"
    res = hash_sample_ws.search(q, override(PRESETS["plain"], per_doc_cap=1, top_k=5))
    docs = [p.span.doc_id for p in res.passages]
    assert len(docs) == 5 and len(set(docs)) == 5
    assert not res.warnings
    two = hash_sample_ws.search(q, override(PRESETS["plain"], per_doc_cap=2, top_k=8))
    assert len(two.passages) == 8 and max(map([p.span.doc_id for p in two.passages].count, range(1, 7))) <= 2
    # the sample corpus has 6 documents: a cap of 1 cannot give 8 hits, and says so
    short = hash_sample_ws.search(q, override(PRESETS["plain"], per_doc_cap=1, top_k=8))
    assert len(short.passages) == len(hash_sample_ws.store.documents.rows()) == 6
    assert any("only 6 document(s)" in w for w in short.warnings)


def test_parent_size_follows_the_children_unit_and_count_is_kept(hash_sample_ws):
    from workbench.core.ingest.chunking import unit_spans

    q = "What does the monthly pass include?"
    words = override(PRESETS["parent-child"], unit="words", size=20, parent_size=60, top_k=5, parent_top_k=3)
    res = hash_sample_ws.search(q, words)
    for p in res.passages:
        text = hash_sample_ws.corpus.doc_text(p.span.doc_id)
        parents = hash_sample_ws.corpus.parents_of(p.span.doc_id, 60, "words")
        counts = [len(unit_spans(text[a:b], "words")) for a, b in parents]
        assert all(c <= 60 for c in counts) and max(counts) == 60, counts
    assert len(res.passages) == 3, "three parents asked for, three passages"
    assert "60 words" in words.describe()
    merged = hash_sample_ws.search(q, override(words, parent_merge=True))
    assert len(merged.passages) <= 3
    assert all(any(m.span.contains(p.span) for m in merged.passages) for p in res.passages)


PLANS_MD = """# Plans

## Single ride

One trip on any bus or tram, with free transfers for ninety minutes. It costs 2.50 euros.

## Weekly pass

Unlimited rides for seven consecutive days from the first validation. It costs 19 euros.

## Monthly pass

Unlimited rides on every line until the last day of the calendar period. It costs 49 euros.

## Annual subscription

A year of unlimited rides on every line, paid at once. It costs 490 euros.
"""


def test_heading_path_preset_ranks_the_monthly_pass_first(tmp_path, embedder, capsys):
    from workbench.cli import main

    (tmp_path / "plans.md").write_text(PLANS_MD, encoding="utf-8")
    preset = PRESETS["heading-path"]
    assert preset.chunk.structure_aware and preset.chunk.heading_prefix
    data = tmp_path / "data"
    ws = Workspace(data, embedder=embedder)
    ws.add_paths([str(tmp_path / "plans.md")], preset.chunk)
    headed = ws.search(PRICE_QUESTION, preset)
    text_only = ws.search(PRICE_QUESTION, override(preset, heading_prefix=False))
    rt = ws.sets.runtime(headed.set_id)
    chunks = [ws.corpus.doc_text(1)[rt.span(r).start : rt.span(r).end] for r in range(len(rt))]
    assert len(chunks) == 4 and not any(c.lstrip().startswith("#") for c in chunks), "no heading-only chunk"
    assert rt.heading_path(headed.hits[0].row) == ("Plans", "Monthly pass")
    plain_rt = ws.sets.runtime(text_only.set_id)
    assert [plain_rt.heading_path(h.row)[-1] for h in text_only.hits].index("Monthly pass") > 0
    ws.close()
    code = main(["search", PRICE_QUESTION, "--strategy", "heading-path", "--data-dir", str(data), "--json",
                 "--quiet", "--top-k", "1"])
    (record,) = json.loads(capsys.readouterr().out)
    assert code == 0
    assert record["embedded_text"] == "Plans > Monthly pass: " + record["text"]
    assert record["display"] == "[plans.md] Monthly pass - " + record["text"]


def test_whole_document_expansion_for_short_documents(hash_sample_ws):
    sizes = {d["id"]: len(hash_sample_ws.corpus.token_offsets(d["id"])) for d in hash_sample_ws.store.documents.rows()}
    limit = sorted(sizes.values())[len(sizes) // 2 - 1]
    s = resolve({"preset": "neighbours", "whole_doc_tokens": limit, "top_k": 10, "per_doc_cap": 2})
    res = hash_sample_ws.search("How much does it cost and how long does it take?", s)
    kinds = set()
    for p in res.passages:
        if sizes[p.span.doc_id] <= limit:
            assert (p.span.start, p.span.end) == (0, len(hash_sample_ws.corpus.doc_text(p.span.doc_id)))
            assert any(r.startswith("whole document") for r in p.reasons)
            kinds.add("whole")
        else:
            whole = len(hash_sample_ws.corpus.doc_text(p.span.doc_id))
            assert p.chunk_rows is not None and p.span.end - p.span.start < whole
            kinds.add("window")
    assert kinds == {"whole", "window"}, "the question must reach short and long documents"
    assert [p.rank for p in res.passages] == list(range(1, len(res.passages) + 1))
    assert f"whole documents up to {limit} tokens" in s.describe()
