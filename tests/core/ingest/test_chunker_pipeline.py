"""Chunkers in the pipeline: the chunker is part of the chunk-set identity; index/search/eval take
``--chunker``; a grid sweeps chunkers; late chunking stores its pooled vectors under keys of their own."""

import json
import shutil

import numpy as np
import pytest
from cli_support import run_cli
from conftest import SAMPLE

from workbench.core.consent import trust
from workbench.core.evaluate.bundled import bundled_path
from workbench.core.evaluate.datasets import load_question_set
from workbench.core.evaluate.sweep import expand_grid, parse_grid, run_sweep
from workbench.core.index.embedding import text_hash
from workbench.core.ingest.chunkers import ChunkerError
from workbench.core.ingest.chunkers.catalog import chunker_catalog
from workbench.core.ingest.chunkers.choice import apply_chunker, chunker_name, chunker_spec
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.presets import PRESETS, resolve

AVAILABLE = [k["name"] for k in chunker_catalog() if k["available"] and k["name"] != "late"]




@pytest.fixture
def corpus(tmp_path):
    """A small copy of the sample corpus (two documents)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for path in sorted(SAMPLE.glob("*.md"))[:2]:
        shutil.copy(path, folder / path.name)
    return folder


def test_old_strategies_keep_their_chunk_set_identity():
    # ids computed by the version before chunkers were part of the identity
    assert chunk_set_id(ChunkConfig(), "m") == "c9929563a3744ccc"
    assert chunk_set_id(ChunkConfig(unit="words", size=80, overlap=10, structure_aware=True,
                       heading_prefix=True), "x") == "ccaccd0077cc17dc"
    assert chunk_set_id(ChunkConfig(contextual=True), "m") == "ec2eb4b54250d5f3"
    old = json.loads(PRESETS["plain"].to_json())
    assert "chunker" not in old["chunk"], "an unset chunker stays out of stored JSON"
    assert chunk_set_id(resolve(json.dumps(old)).chunk, "m") == "c9929563a3744ccc"
    # the built-in chunkers by name are the old configurations
    assert resolve({"chunker": "fixed"}).chunk == ChunkConfig()
    assert resolve({"chunker": "structure", "size": 100}).chunk == ChunkConfig(size=100, structure_aware=True)
    assert resolve({"chunker": {"name": "sentence", "size": 3}}).chunk == ChunkConfig("sentences", 3)


def test_a_registry_chunker_is_part_of_the_identity():
    a = resolve({"chunker": "recursive"})
    b = resolve({"chunker": {"name": "recursive", "max_tokens": 128, "overlap": 16}})
    same = resolve({"chunker": json.dumps({"overlap": 0, "name": "recursive"})})
    assert chunk_set_id(a.chunk, "m") != chunk_set_id(b.chunk, "m") != chunk_set_id(ChunkConfig(), "m")
    assert a.chunk == same.chunk and chunk_set_id(a.chunk, "m") == chunk_set_id(same.chunk, "m"), \
        "defaults filled in, key order free"
    assert chunk_set_id(a.chunk, "m") != chunk_set_id(a.chunk, "other-model"), \
        "a chunk set is (chunker, embedding model)"
    spec = chunker_spec(b.chunk)
    assert spec is not None and spec.param_dict == {"max_tokens": 128, "overlap": 16} and spec.version
    assert "recursive (max_tokens=128, overlap=16)" in b.describe()
    assert resolve(b.to_json()) == b and resolve(json.dumps(b.to_dict())).chunk == b.chunk
    assert chunker_name(b.chunk) == "recursive" and chunker_name(ChunkConfig(structure_aware=True)) == "structure"
    with pytest.raises(ValueError, match="'recursive'.*max_tokens"):
        resolve({"chunker": {"name": "recursive", "max_tokens": 0}})
    with pytest.raises(ValueError, match="no chunker called 'nope'"):
        resolve({"chunker": "nope"})
    with pytest.raises(ChunkerError, match="no size parameter"):
        apply_chunker(ChunkConfig(), "langchain_markdown", size=100)


def test_grid_sweeps_chunkers_with_size_on_their_size_parameter():
    configs = expand_grid(["plain"], "chunker=fixed,recursive,late size=128,256")
    assert [c.key for c in configs][:2] == ["plain chunker=fixed chunk_size=128", "plain chunker=fixed chunk_size=256"]
    chunks = {c.key: c.strategy.chunk for c in configs}
    assert chunks["plain chunker=fixed chunk_size=128"] == ChunkConfig(size=128)
    spec = chunker_spec(chunks["plain chunker=recursive chunk_size=256"])
    assert spec is not None and spec.param_dict["max_tokens"] == 256
    late = chunker_spec(chunks["plain chunker=late chunk_size=128"])
    assert late is not None and json.loads(str(late.param_dict["base_params"])) == {"size": 128}
    with pytest.raises(ValueError, match="no chunker called 'nope'"):
        parse_grid("chunker=nope")


@pytest.mark.parametrize("name", AVAILABLE)
def test_every_chunker_indexes_and_searches_exact_spans(hash_ws, corpus, name):
    hash_ws.add_paths([str(corpus)])
    strategy = resolve({"chunker": name})
    result = hash_ws.search("how are chunks embedded and searched", strategy)
    assert result.passages, name
    info = hash_ws.sets.find_chunk_set(strategy.chunk)
    assert info is not None and info.id == result.set_id and info.chunk_count > 0
    table = hash_ws.store.sets.chunk_table(info.id)
    chunks = {(int(d), int(a), int(b)) for d, a, b in zip(table.doc_ids, table.starts, table.ends, strict=True)}
    for hit in result.hits:
        assert (hit.span.doc_id, hit.span.start, hit.span.end) in chunks
    for passage in result.passages:
        text = hash_ws.store.documents.document(passage.span.doc_id).text
        assert 0 <= passage.span.start < passage.span.end <= len(text)
        assert text[passage.span.start:passage.span.end].strip()
    before = hash_ws.embedder.texts_encoded
    assert hash_ws.sets.ensure_chunk_set(strategy.chunk).id == info.id
    assert hash_ws.embedder.texts_encoded == before, "switching back to a built chunk set is instant"


def test_semantic_threshold_change_reuses_sentence_vectors(hash_ws, corpus):
    hash_ws.add_paths([str(corpus)])
    first = resolve({"chunker": {"name": "semantic", "percentile": 90}})
    hash_ws.sets.ensure_chunk_set(first.chunk)
    before = hash_ws.embedder.texts_encoded
    second = resolve({"chunker": {"name": "semantic", "percentile": 60}})
    info = hash_ws.sets.ensure_chunk_set(second.chunk)
    table = hash_ws.store.sets.chunk_table(info.id)
    first_set = hash_ws.sets.find_chunk_set(first.chunk).id
    new_chunks = len(set(table.text_hashes) - set(hash_ws.store.sets.chunk_table(first_set).text_hashes))
    assert 0 < hash_ws.embedder.texts_encoded - before <= new_chunks, "sentence vectors are not embedded again"


def bad_spans(text, headings):
    """A user chunker returning a shifted span."""
    return [(1, 10, text[0:9])]


def test_a_bad_chunker_fails_naming_itself_and_the_document(hash_ws, corpus):
    hash_ws.add_paths([str(corpus)])
    trust("custom:test_chunker_pipeline:bad_spans")  # named by the user (the test), not read from data
    strategy = resolve({"chunker": "custom:test_chunker_pipeline:bad_spans"})
    with pytest.raises(ChunkerError, match=r"chunker 'custom:test_chunker_pipeline:bad_spans' on document .*\.md"):
        hash_ws.sets.ensure_chunk_set(strategy.chunk)


def test_late_chunking_stores_pooled_vectors_under_their_own_keys(fresh_ws, corpus, embedder):
    fresh_ws.add_paths([str(corpus)])
    strategy = resolve({"chunker": {"name": "late", "base": "recursive"}})
    info = fresh_ws.sets.ensure_chunk_set(strategy.chunk)
    table = fresh_ws.store.sets.chunk_table(info.id)
    assert table.text_hashes and all(h.startswith("late:") for h in table.text_hashes)
    doc = fresh_ws.store.documents.document(int(table.doc_ids[0]))
    text = doc.text[int(table.starts[0]):int(table.ends[0])]
    late = fresh_ws.store.caches.cached_vectors(embedder.model_id, [table.text_hashes[0]])[table.text_hashes[0]]
    plain = embedder.encode([text])[0]
    assert 0.3 < float(np.dot(late, plain)) < 0.999, "the pooled vector sees its surroundings"
    assert text_hash(text) != table.text_hashes[0]
    question = "how are chunks embedded"
    result = fresh_ws.search(question, strategy)
    assert result.passages
    top = result.hits[0]
    key = table.text_hashes[int(np.flatnonzero(table.ids == top.chunk_id)[0])]
    vector = fresh_ws.store.caches.cached_vectors(embedder.model_id, [key])[key]
    assert float(np.dot(embedder.encode([question])[0], vector)) == pytest.approx(top.score, abs=1e-4), \
        "the question is embedded normally and scored against the late vector"


def test_sweep_gives_one_row_per_chunker(hash_ws):
    root = bundled_path("sample")
    assert root is not None
    qset = load_question_set(root).subset(5, None)
    configs = expand_grid(["plain"], "chunker=fixed,recursive,semchunk size=128")
    sweep = run_sweep(hash_ws, qset, configs)
    assert [r.config.params["chunker"] for r in sweep.results] == ["fixed", "recursive", "semchunk"]
    assert all(len(r.rows) == 5 for r in sweep.results)
    assert len({chunk_set_id(r.config.strategy.chunk, hash_ws.embedder.model_id) for r in sweep.results}) == 3


def test_cli_index_search_and_eval_grid_with_chunkers(capsys, tmp_path, corpus, hash_cli):
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "index", corpus, "--data-dir", data, "--chunker",
                             '{"name": "recursive", "max_tokens": 96, "overlap": 16}', "--quiet", "--json")
    assert code == 0, err
    assert json.loads(out)["chunk_set"] == "recursive (max_tokens=96, overlap=16)"
    code, out, err = run_cli(capsys, "search", "how are chunks embedded", "--data-dir", data, "--chunker", "recursive",
                             "--chunk-size", "96", "--overlap", "16", "--json")
    assert code == 0, err
    passages = json.loads(out)
    texts = {p.name: p.read_text(encoding="utf-8") for p in corpus.iterdir()}
    assert passages and all(texts[p["doc_path"].rsplit("/", 1)[-1]][p["start"]:p["end"]] == p["text"]
                            for p in passages)
    code, out, err = run_cli(capsys, "eval", "sample", "--limit", "4", "--grid", "chunker=fixed,semchunk size=128",
                             "--data-dir", tmp_path / "eval", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["chunker"] for r in rows] == ["fixed", "semchunk"]
    code, out, err = run_cli(capsys, "index", corpus, "--data-dir", data, "--chunker", "langchain_markdown",
                             "--chunk-size", "50", "--quiet")
    assert code != 0 and "no size parameter" in err
