"""Contextual retrieval with the local LLM: one situating sentence per chunk, generated once, then served from
the cache (a rebuild, another chunk set with the same chunks, a fresh workspace); the stored prefix is the
sentence; the set searches through the pipeline and the CLI; cancel and a missing backend behave.

The LLM is the deterministic stand-in (``llm_standin``) writing a situating sentence from each prompt (the
document's heading path and the passage's first words, wrapped in a label and quotes for the clean-up to
remove); vectors come from the hashed embedder. The caching and the plumbing are the point here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from contextual_support import SIZE, ScriptedLLM, write_docs
from llm_standin import StandInLLM

from workbench.core.index import situating as ctx
from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.values import ChunkConfig
from workbench.core.jobs import Cancelled, CancelToken
from workbench.core.llm import open_backend
from workbench.core.workspace import Workspace


def situating_reply(messages) -> str:
    """What a model might answer to ``ctx.situate_messages``: a labelled, quoted sentence and more words."""
    user = messages[-1]["content"]
    where = user.split("Title: ", 1)[1].split("\n", 1)[0]
    passage = re.split(r"<passage-[0-9a-f]+>\n", user, maxsplit=1)[1].split("\n</passage-", 1)[0]
    return f'Sentence: "In {where}, the passage on {" ".join(passage.split()[:6])}." I hope this helps.'


@pytest.fixture(scope="module")
def llm():
    return StandInLLM(situating_reply)


@pytest.fixture
def embedded_llm(standin_llm, llm):
    """``open_backend("embedded")`` answers as ``llm`` does (the same model name, so the same cache entries)."""
    standin_llm.reply = llm.reply
    return standin_llm


@pytest.fixture(scope="module")
def ctx_data(tmp_path_factory, hash_embedder, llm):
    """A data folder with the two documents and their contextual chunk set built by ``llm``."""
    embedder = hash_embedder
    root = tmp_path_factory.mktemp("ctx")
    ws = Workspace(root / "data", embedder=embedder)
    ws.add_paths([str(write_docs(root / "docs"))], ChunkConfig(size=SIZE))
    ws.llm = llm
    events = []
    before = ctx.TOTALS.calls
    info = ws.sets.ensure_chunk_set(ChunkConfig(size=SIZE, contextual=True), progress=events.append)
    calls = ctx.TOTALS.calls - before
    ws.close()
    return root / "data", info, calls, events


def prefixes(ws, set_id):
    rows = ws.store.db.execute('SELECT doc_id, start, "end", prefix FROM chunks WHERE set_id = ? ORDER BY id',
                               [set_id]).fetchall()
    return [(d, s, e, p) for d, s, e, p in rows]


def test_sentences_generated_once_then_cached(ctx_data, hash_embedder, llm, embedded_llm):
    embedder = hash_embedder
    data, info, calls, events = ctx_data
    assert info.chunk_count >= 3 and calls == info.chunk_count, "one LLM call per chunk"
    steps = [e for e in events if e.stage == "contextualizing"]
    assert [e.done for e in steps] == list(range(1, info.chunk_count + 1)) and steps[-1].total == info.chunk_count

    ws = Workspace(data, embedder=embedder)
    ws.llm = llm
    rows = prefixes(ws, info.id)
    written = 0
    for doc_id, start, end, prefix in rows:  # the stored prefix is the cached sentence (the span is untouched)
        doc = ws.corpus.document(doc_id)
        sentence = ws.store.caches.llm_cached("situate", ctx.cache_key(doc.text[start:end], doc.sha256), llm.model)
        assert sentence is not None and prefix == (sentence + " " if sentence else "")
        assert "\n" not in sentence and len(sentence) <= ctx.MAX_SENTENCE_CHARS + 1
        written += bool(sentence)
    assert written == len(rows), "every chunk has its sentence"
    alpha = next(d["id"] for d in ws.store.documents.rows() if d["path"].endswith("alpha.md"))
    assert [p for d, _, _, p in rows if d == alpha][0] == \
        "In Deploying Orbit > Deploying Orbit, the passage on # Deploying Orbit ## Rolling back. ", "cleaned up"

    # a second build of the same set: every document dropped from it and rebuilt → 0 calls, same prefixes
    for doc in ws.store.documents.rows():
        ws.store.sets.drop_doc_from_set(info.id, doc["id"])
    before = ctx.TOTALS.calls
    again = ws.sets.ensure_chunk_set(ChunkConfig(size=SIZE, contextual=True))
    assert ctx.TOTALS.calls == before and again.chunk_count == info.chunk_count
    assert [r[3] for r in prefixes(ws, info.id)] == [r[3] for r in rows]
    ws.close()

    # a fresh workspace on the same folder, backend opened on first use, another set with the same chunks → 0 calls
    # (the lookup names the embedded model, here the stand-in: without Ollama "auto" is extractive, which writes
    # no sentences)
    fresh = Workspace(data, embedder=embedder)
    fresh.llm_opener = lambda: open_backend("embedded")
    both, usage = ctx.build_contextual_set(fresh, ChunkConfig(size=SIZE, heading_prefix=True))
    assert usage.calls == 0 and usage.cached == info.chunk_count
    doc_id, start, _, prefix = prefixes(fresh, both.id)[0]
    assert prefix.startswith(rows[0][3].strip()) and prefix.rstrip().endswith(":"), "sentence, then heading path"
    fresh.close()


def test_contextual_set_searches(ctx_data, hash_embedder, llm):
    embedder = hash_embedder
    data, info, _, _ = ctx_data
    ws = Workspace(data, embedder=embedder)
    ws.llm = llm
    before = ctx.TOTALS.calls
    result = ws.search("How do I roll back a bad deploy?", {"contextual": True, "size": SIZE, "top_k": 2})
    assert ctx.TOTALS.calls == before and result.set_id == info.id and result.passages
    best = result.passages[0]
    text = ws.corpus.doc_text(best.span.doc_id)[best.span.start : best.span.end]
    assert "roll back" in text and Path(ws.corpus.document(best.span.doc_id).path).name == "alpha.md"
    ws.close()


def test_cli_contextualize_search_and_eval(ctx_data, tmp_path, capsys, hash_cli, embedded_llm):
    from workbench.cli import main
    from workbench.core.evaluate.datasets import save_question_set

    data, info, _, _ = ctx_data
    assert main(["contextualize", "--data-dir", str(data), "--chunk-size", str(SIZE), "--backend", "embedded",
                 "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chunk_set"] == info.id and out["llm"]["calls"] == 0 and out["llm"]["cached"] == 0, "already current"
    strategy = json.dumps({"contextual": True, "size": SIZE, "top_k": 2})
    assert main(["search", "When is a moisture probe faulty?", "--data-dir", str(data), "--strategy", strategy,
                 "--json", "--quiet"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and hits[0]["doc_path"].endswith("beta.md") and "contextual (LLM)" not in hits[0]["text"]
    doc = (data.parent / "docs" / "beta.md").read_text(encoding="utf-8")
    start = doc.index("A probe that reads")
    qs = save_question_set(tmp_path / "qs", [{"question": "When is a moisture probe faulty?", "corpus_id": "beta",
                                              "references": [{"start_index": start, "end_index": start + 60}]}],
                           {"beta": doc})
    before = ctx.TOTALS.calls
    # the set's chunk set is scoped to its one document: its situating sentences come from the LLM cache
    assert main(["eval", str(qs.root), "--data-dir", str(data), "--strategy", strategy, "--llm", "embedded",
                 "--quiet"]) == 0
    assert ctx.TOTALS.calls == before, "every situating sentence was cached already"
    table = capsys.readouterr().out
    assert "contextual" in table or "custom" in table


def test_cleanup_cancel_and_resume(hash_ws, tmp_path):
    fresh_ws = hash_ws
    fresh_ws.add_paths([str(write_docs(tmp_path / "docs"))], ChunkConfig(size=SIZE))
    config = ChunkConfig(size=SIZE, contextual=True)
    token = CancelToken()
    first = ScriptedLLM(cancel_on=(2, token))
    with pytest.raises(Cancelled):
        ctx.build_contextual_set(fresh_ws, config, first, cancel=token)
    kept = fresh_ws.store.db.execute("SELECT count(*) FROM llm_cache WHERE model = ?", [first.model]).fetchone()[0]
    assert first.calls == 2 and kept == 1, "the answer that arrived after the cancel is not kept"
    stand_in = ScriptedLLM()
    total = ctx.pending_chunks(fresh_ws, config)
    info, usage = ctx.build_contextual_set(fresh_ws, config, stand_in)
    assert usage.cached == 1 and usage.calls == total - 1 == stand_in.calls, "the cancelled run's work is reused"
    assert {r[3] for r in prefixes(fresh_ws, info.id)} == {"This chunk is from a test document. "}


def test_no_local_llm_is_one_clear_error(hash_ws, tmp_path, monkeypatch):
    fresh_ws = hash_ws
    import workbench.core.llm as llm_pkg
    from workbench.core.llm import BackendUnavailable

    def unavailable(*a, **k):
        raise BackendUnavailable("no Ollama server and no embedded model")

    monkeypatch.setattr(llm_pkg, "open_backend", unavailable)
    fresh_ws.add_paths([str(write_docs(tmp_path / "docs"))], ChunkConfig(size=SIZE))
    with pytest.raises(ctx.ContextualError, match="needs a local LLM"):
        fresh_ws.sets.ensure_chunk_set(ChunkConfig(size=SIZE, contextual=True))


def test_clean_sentence_and_context_window():
    from workbench.core.ingest.documents import Document

    assert ctx.clean_sentence('Sentence: "It covers rollbacks." More.') == "It covers rollbacks."
    assert ctx.clean_sentence("\n**Context:**\n  This passage explains the cache flush.\nNext line") == \
        "This passage explains the cache flush."
    assert ctx.clean_sentence("") == "" and len(ctx.clean_sentence("word " * 200)) <= ctx.MAX_SENTENCE_CHARS + 1
    text = "Intro line about the report.\n\n" + "Filler sentence number one. " * 200 + "TARGET chunk here. " + \
        "More filler follows. " * 100
    doc = Document("long.md", "Long", text, "sha", len(text), 0.0, "md")
    start = text.index("TARGET")
    context = ctx.document_context(doc, start, start + 18)
    assert len(context) <= ctx.CONTEXT_CHARS + 10 and "TARGET chunk here." in context
    assert context.startswith("Intro line about the report."), "the document's start situates a far chunk"
    short = Document("s.md", "S", "Short doc.", "sha", 10, 0.0, "md")
    assert ctx.document_context(short, 0, 5) == "Short doc."


def test_pending_chunks_counts_the_cut_of_the_sets_own_chunker(hash_ws, tmp_path):
    """A contextual set cut by a registry chunker: the progress total is the chunks that chunker cuts (it
    counted 200-token windows of the config's own fields before every chunking was one chunker path)."""
    hash_ws.add_paths([str(write_docs(tmp_path / "docs"))], ChunkConfig(size=SIZE))
    config = apply_chunker(ChunkConfig(contextual=True), {"name": "recursive", "max_tokens": 24})
    total = ctx.pending_chunks(hash_ws, config)
    llm = ScriptedLLM()
    info, usage = ctx.build_contextual_set(hash_ws, config, llm)
    assert total == info.chunk_count == llm.calls > 4, "every chunk the set holds was situated, as counted"
