"""Ecosystem chunkers (LangChain, chonkie, semchunk) and late chunking: sizes in the model's tokens, library
versions in the identity, nothing downloaded, a missing library named with its install hint, in-sequence
mapping of chunk texts, late vectors pooled from whole-document token embeddings, ``workbench chunkers``."""

from __future__ import annotations

import json
import socket
from importlib import metadata

import numpy as np
import pytest

from workbench.cli import main
from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.chunkers import (
    ChunkerError,
    ChunkerKind,
    ChunkerResources,
    ParamSpec,
    chunk_verified,
    get_kind,
    registry,
)
from workbench.core.ingest.chunkers.adapter_support import LosslessTokenizer, library_check, library_version
from workbench.core.ingest.chunkers.catalog import describe_kind
from workbench.core.ingest.chunkers.late import late_chunk_vectors, pool_chunk_vectors, token_vectors, windows
from workbench.core.ingest.chunkers.text_mapping import spans_in_sequence
from workbench.core.ingest.headings import parse_headings
from workbench.core.ingest.tokens import counter_for_model

COUNTER = counter_for_model(str(default_model_path()))
ADAPTERS = {"langchain_recursive": "langchain-text-splitters", "langchain_markdown": "langchain-text-splitters",
            "langchain_token": "langchain-text-splitters", "chonkie_token": "chonkie",
            "chonkie_sentence": "chonkie", "chonkie_recursive": "chonkie", "semchunk": "semchunk"}
DOC = ("# Harbour\n\nThe harbour opens at dawn. Boats leave for the islands 🚢 at six.\r\n\r\n"
       "## Fees\n\nMooring costs twelve euros a night; longer stays are cheaper.\n\n"
       "# Glacier\n\nThe glacier walk starts at the hut. It takes four hours, with a guide.\r"
       "Bring crampons.\n") * 3


def _no_network(*args, **kwargs):
    raise AssertionError("a chunker tried to open a network connection")


def test_every_adapter_cuts_offline_in_model_tokens_and_records_its_library_version(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    headings = parse_headings(DOC)
    for name, library in ADAPTERS.items():
        kind = get_kind(name)
        params = {"max_tokens": 20} if any(p.name == "max_tokens" for p in kind.params) else {}
        chunker = kind.make(ChunkerResources(COUNTER), **params)
        assert (chunker.spec.library, chunker.spec.version) == (library, metadata.version(library))
        spans = chunk_verified(chunker, DOC, headings, "guide.md")
        assert len(spans) > 3, name
        if params and name != "chonkie_sentence":  # sentences are kept whole
            assert max(COUNTER.count(DOC[a:b]) for a, b in spans) <= 20, f"{name} sizes are model tokens"
    sections = chunk_verified(get_kind("langchain_markdown").make(ChunkerResources()), DOC, headings, "guide.md")
    assert [DOC[a:b].splitlines()[0] for a, b in sections[:3]] == ["# Harbour", "## Fees", "# Glacier"]


def test_langchain_markdown_maps_sections_whose_unprintable_characters_it_dropped():
    """LangChain's markdown splitter drops characters Python deems unprintable inside a line (a thin space
    after 'Δ' in the bundled pubmed.md made it fail); the section is still found, whole and in order."""
    text = "# Notes\n\nΔ\u2009In the online version\u00ad the affiliation was wrong.\n\n# Next\n\nMore text.\n"
    spans = chunk_verified(get_kind("langchain_markdown").make(ChunkerResources()), text, (), "pubmed.md")
    assert [text[a:b].splitlines()[0] for a, b in spans] == ["# Notes", "# Next"]
    assert "affiliation was wrong." in text[spans[0][0]:spans[0][1]] and spans[0][1] <= spans[1][0]


def test_token_windows_of_langchain_and_chonkie_agree_and_hold_the_exact_text():
    resources = ChunkerResources(COUNTER)
    lang = chunk_verified(get_kind("langchain_token").make(resources, max_tokens=16, overlap=4), DOC, (), "d")
    chonkie = chunk_verified(get_kind("chonkie_token").make(resources, max_tokens=16, overlap=4), DOC, (), "d")
    assert lang == chonkie, "the same window over the same tokens"
    assert all(a2 < b1 for (_, b1), (a2, _) in zip(lang, lang[1:])), "neighbouring windows overlap"


def test_the_lossless_tokenizer_decodes_to_the_exact_text():
    tokens = LosslessTokenizer(COUNTER)
    for text in [DOC, "  lead and trail  ", "UPPER lower 😀\r\n\tTab", ""]:
        ids = tokens.encode(text)
        assert tokens.decode(ids) == text
        assert len(ids) == max(COUNTER.count(text), 1 if text else 0)


def test_a_missing_library_gives_the_install_hint(capsys, monkeypatch):
    missing = ChunkerKind("missing_lib", "needs a library that is not installed",
                          (ParamSpec("max_tokens", 10, 1, 100),), lambda spec, res: None,
                          "no-such-chunker-lib", library_version("no-such-chunker-lib"),
                          library_check("no_such_chunker_lib_xyz", "no-such-chunker-lib"))
    with pytest.raises(ChunkerError, match="'missing_lib' is not available.*pip install no-such-chunker-lib"):
        missing.make(ChunkerResources(COUNTER))
    assert missing.spec().version == "", "a missing library has no version"
    described = describe_kind(missing)
    assert described["available"] is False and "pip install no-such-chunker-lib" in described["install_hint"]
    monkeypatch.setitem(registry._REGISTRY, "missing_lib", missing)
    assert main(["chunkers"]) == 0
    out = capsys.readouterr().out
    assert "missing_lib" in out and "[not available]" in out and "pip install no-such-chunker-lib" in out


def test_workbench_chunkers_json_lists_every_chunker_available():
    from contextlib import redirect_stdout
    from io import StringIO

    buffer = StringIO()
    with redirect_stdout(buffer):
        assert main(["chunkers", "--json"]) == 0
    listed = json.loads(buffer.getvalue())
    assert len(listed) >= 13
    assert all(entry["available"] for entry in listed), [e["install_hint"] for e in listed if not e["available"]]
    by_name = {entry["name"]: entry for entry in listed}
    assert set(ADAPTERS) | {"fixed", "semantic", "late"} <= set(by_name)
    assert by_name["chonkie_token"]["version"] == metadata.version("chonkie")
    max_tokens = next(p for p in by_name["semchunk"]["params"] if p["name"] == "max_tokens")
    assert max_tokens == {"name": "max_tokens", "type": "int", "default": 256, "range": [1, 100_000],
                          "help": "largest chunk, in the embedding model's tokens"}
    unit = next(p for p in by_name["fixed"]["params"] if p["name"] == "unit")
    assert unit["choices"] == ["tokens", "words", "sentences"]


def test_in_sequence_mapping_never_sends_a_chunk_to_an_earlier_copy():
    text = "ab ab ab ab"
    assert spans_in_sequence(text, ["ab ab", "ab ab"], "lib", "d") == [(0, 5), (6, 11)]
    with pytest.raises(ChunkerError, match="cannot be found"):  # a third chunk would bring nothing new
        spans_in_sequence(text, ["ab ab", "ab ab", "ab ab"], "lib", "d")
    overlapping = spans_in_sequence("one two three four", ["one two three", "three four"], "lib", "d")
    assert overlapping == [(0, 13), (8, 18)]
    assert spans_in_sequence("x  y\n\nz", ["x y", "z"], "lib", "d") == [(0, 4), (6, 7)], "re-joined white space"
    assert spans_in_sequence("a. a. a.", ["a.", "a."], "lib", "d", hints=[0, 3]) == [(0, 2), (3, 5)]
    with pytest.raises(ChunkerError, match="'lib' on document 'd'.*cannot be found"):
        spans_in_sequence("alpha beta", ["gamma"], "lib", "d")


def test_pooling_means_the_token_vectors_inside_each_span():
    vectors = np.array([[1, 0], [0, 1], [1, 1], [3, 0]], dtype=np.float32)
    offsets = np.array([[0, 3], [4, 7], [7, 9], [12, 15]])
    spans = [(0, 7), (5, 9), (10, 15), (9, 12)]
    pooled = pool_chunk_vectors(vectors, offsets, spans, normalize=False)
    assert np.allclose(pooled, [[0.5, 0.5], [0.5, 1.0], [3, 0], [3, 0]]), "a span between tokens takes the next"
    unit = pool_chunk_vectors(vectors, offsets, spans)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0)
    assert windows(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert windows(3, 254, 63) == [(0, 3)]


def test_late_chunk_vectors_with_the_real_model(embedder):
    text = ("Berlin is the capital of Germany. Its population is about 3.8 million. "
            "The city is also known for its museums.")
    spans = [(0, 33), (34, 71), (72, len(text))]
    model = embedder.model
    vectors, offsets = token_vectors(embedder, text)
    reference = np.asarray(model.encode(text, output_value="token_embeddings"))[1:-1]  # without [CLS], [SEP]
    assert np.allclose(vectors, reference, atol=1e-4), "one window: exactly the model's token embeddings"
    late = late_chunk_vectors(embedder, text, spans)
    alone = embedder.encode([text[a:b] for a, b in spans])
    assert late.shape == (3, embedder.dim) and np.allclose(np.linalg.norm(late, axis=1), 1.0, atol=1e-5)
    berlin = embedder.encode(["Berlin"])[0]
    assert late[1] @ berlin > alone[1] @ berlin, "'Its population' knows it is Berlin's"
    whole = late_chunk_vectors(embedder, text, [(0, len(text))])[0]
    assert whole @ embedder.encode([text])[0] > 0.95
    saved = model.max_seq_length
    try:
        model.max_seq_length = 12  # force several overlapping windows on the short document
        windowed, _ = token_vectors(embedder, text)
    finally:
        model.max_seq_length = saved
    assert windowed.shape == vectors.shape and np.all(np.linalg.norm(windowed, axis=1) > 0)
    assert not np.allclose(windowed, vectors), "short windows see less context"


def test_late_cuts_where_its_base_cuts():
    resources = ChunkerResources(COUNTER)
    late = get_kind("late").make(resources, base="chonkie_recursive", base_params='{"max_tokens": 24}')
    base = get_kind("chonkie_recursive").make(resources, max_tokens=24)
    assert chunk_verified(late, DOC, (), "d") == chunk_verified(base, DOC, (), "d")
    with pytest.raises(ChunkerError, match="base_params is not JSON"):
        get_kind("late").make(resources, base_params="{oops")
    with pytest.raises(ChunkerError, match="no chunker called 'nope'"):
        get_kind("late").make(resources, base="nope")
