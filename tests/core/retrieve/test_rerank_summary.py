"""LLM rerank and summary-to-detail: answer parsing, fallbacks with warnings, caching."""

import pytest

from workbench.core.retrieve.rerank import parse_ranking
from workbench.core.retrieve.strategy.presets import PRESETS, override


@pytest.mark.parametrize(
    ("answer", "order"),
    [
        ("[3, 1, 2]", [2, 0, 1]),
        ('{"ranking": [2, 3]}', [1, 2, 0]),
        ("Sure! The ranking is [2, 2, 1] because ...", [1, 0, 2]),
        ('["3", "1"]', [2, 0, 1]),
    ],
)
def test_parse_ranking_golden(answer, order):
    assert parse_ranking(answer, 3) == (order, "")


@pytest.mark.parametrize(("answer", "why"), [
    ("I think passage two is best.", "could not be parsed"),
    ("[7, 9]", "do not exist"),
    ("[]", "could not be parsed"),
])
def test_parse_ranking_rejects(answer, why):
    order, reason = parse_ranking(answer, 3)
    assert order is None and why in reason


def test_parse_ranking_skips_only_the_bad_id():
    order, note = parse_ranking("[3, 7, 1]", 3)
    assert order == [2, 0, 1]
    assert "do not exist (7)" in note and "skipped" in note


class ScriptedLLM:
    """A stand-in that returns fixed text: it tests our parsing and fallbacks, not a model."""

    name, model = "scripted", "scripted-1"

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def complete(self, messages, max_tokens=256, temperature=0.0, cancel=None):
        self.calls += 1
        self.messages = messages
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def test_rerank_follows_a_valid_answer_and_falls_back_with_a_warning(hash_sample_ws):
    q = "How do I restore a backup?"
    base = hash_sample_ws.search(q, override(PRESETS["plain"], top_k=3))
    hash_sample_ws.llm = ScriptedLLM(["[3, 2, 1]"])
    s = override(PRESETS["llm-rerank"], top_k=3, rerank_candidates=3)
    reranked = hash_sample_ws.search(q, s)
    assert [h.chunk_id for h in reranked.hits] == [h.chunk_id for h in base.hits][::-1]
    assert not reranked.warnings
    hash_sample_ws.llm = ScriptedLLM(["no idea, sorry"])
    kept = hash_sample_ws.search(q, s)
    assert [h.chunk_id for h in kept.hits] == [h.chunk_id for h in base.hits]
    assert kept.warnings and "original order kept" in kept.warnings[0]


def test_rerank_keeps_the_ranking_around_a_bad_id_and_reports_ranks(hash_sample_ws):
    q = "How do I restore a backup?"
    base = hash_sample_ws.search(q, override(PRESETS["plain"], top_k=3))
    llm = ScriptedLLM(["[3, 12, 1]"])
    hash_sample_ws.llm = llm
    res = hash_sample_ws.search(q, override(PRESETS["llm-rerank"], top_k=3, rerank_candidates=3))
    ids = [h.chunk_id for h in base.hits]
    assert [h.chunk_id for h in res.hits] == [ids[2], ids[0], ids[1]]
    assert [h.first_rank for h in res.hits] == [3, 1, 2]
    assert any("12" in w and "skipped" in w for w in res.warnings)
    # candidates are shown as the answer prompt labels them: source file, title and heading path
    prompt = llm.messages[-1]["content"]
    doc = hash_sample_ws.corpus.document(base.hits[0].span.doc_id)
    assert f"[1] [{doc.path.split('/')[-1]}] {doc.title}" in prompt


def test_rerank_of_expanded_parents(hash_sample_ws):
    q = "What does the monthly pass include?"
    s = override(PRESETS["parent-child"], rerank="llm", rerank_parents=True, rerank_candidates=10,
                                             parent_top_k=2)
    wide = hash_sample_ws.search(q, override(s, rerank="none", parent_top_k=10))
    assert len(wide.passages) >= 3, "the question must reach three parents"
    llm = ScriptedLLM(["[3, 1]"])
    hash_sample_ws.llm = llm
    res = hash_sample_ws.search(q, s)
    assert [p.span for p in res.passages] == [wide.passages[2].span, wide.passages[0].span]
    assert "LLM rerank: #3 → #1" in res.passages[0].reasons
    assert llm.calls == 1 and f"[{len(wide.passages)}] [" in llm.messages[-1]["content"]
    assert "parents" in s.describe()


def test_summary_to_detail_searches_only_inside_top_sections_and_caches(hash_sample_ws):
    llm = ScriptedLLM(["A section about something."])
    hash_sample_ws.llm = llm
    s = override(PRESETS["summary-to-detail"], summary_sections=2)
    res = hash_sample_ws.search("What does the monthly pass cost?", s)
    calls = llm.calls
    assert calls > 0 and not res.warnings
    again = hash_sample_ws.search("Which gloves do I wear?", s)
    assert llm.calls == calls, "summaries are cached by content hash and model"
    from workbench.core.retrieve.summaries import sections_of

    sections = {sp for d in {p.span.doc_id for p in again.passages} for sp in sections_of(hash_sample_ws.corpus, d)}
    assert len({(p.span.doc_id) for p in again.passages}) <= 2
    assert all(any(sec.contains(h.span) or sec.overlaps(h.span) for sec in sections) for h in again.hits)


def test_summary_prompt_asks_for_key_facts_and_a_new_version_is_not_served_old_summaries(hash_sample_ws):
    import hashlib

    from workbench.core.retrieve.summaries import section_summaries, sections_of

    doc_id = hash_sample_ws.search("monthly pass", override(PRESETS["plain"], top_k=1)).passages[0].span.doc_id
    llm = ScriptedLLM(["The monthly pass costs 49 euros. It covers every line."])
    # a summary cached under the previous prompt ("one or two sentences") must not be reused
    for span in sections_of(hash_sample_ws.corpus, doc_id):
        text = hash_sample_ws.corpus.doc_text(doc_id)[span.start : span.end]
        old_key = hashlib.sha256(f"summary-v1\n{text}".encode()).hexdigest()
        hash_sample_ws.store.caches.put_llm_cached("summary", old_key, llm.model, "stale")
    out = section_summaries(hash_sample_ws.corpus, llm, [doc_id])
    assert llm.calls == len(out) and all(s != "stale" for _, s in out)
    system = llm.messages[0]["content"]
    assert "2–3" in system and "key facts" in system and "add none" in system
