"""One chunker model: every chunking is a chunker spec (a registered name and its parameters), the built-in
cuts as much as the registry's others; chunk sets are cut through the one registry path, and how a chunking
reads (a set's label, a strategy's chips) comes from its chunker's kind."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.core.index.chunker_build import SetCutter
from workbench.core.ingest.chunkers import registry
from workbench.core.ingest.chunkers.choice import apply_chunker, chunker_spec, config_chunker
from workbench.core.ingest.chunkers.identity import chunk_set_id, chunking_label
from workbench.core.ingest.chunkers.recursive import RECURSIVE
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.documents import Document
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.expansions.parent import Parent
from workbench.core.retrieve.strategy.names import chips
from workbench.core.retrieve.strategy.value import Strategy

TEXT = ("# Orbit\n\nDeploy with care. Roll back when errors rise.\n\n## Cache\n\n"
        "Flush the page cache only. The session cache stays, or users are logged out.\n")
HEADINGS = (Heading(1, "Orbit", 0, 7), Heading(2, "Cache", TEXT.index("## Cache"), TEXT.index("## Cache") + 8))


@pytest.mark.parametrize(("config", "name", "params"), [
    (ChunkConfig(), "fixed", {"unit": "tokens", "size": 200, "overlap": 0}),
    (ChunkConfig(unit="words", size=40, overlap=5), "fixed", {"unit": "words", "size": 40, "overlap": 5}),
    (ChunkConfig(unit="sentences", size=3), "sentence", {"size": 3, "overlap": 0}),
    (ChunkConfig(unit="words", size=30, structure_aware=True), "structure", {"unit": "words", "size": 30,
                                                                           "overlap": 0}),
    (apply_chunker(ChunkConfig(), {"name": "recursive", "max_tokens": 64}), "recursive",
     {"max_tokens": 64, "overlap": 0}),
])
def test_every_chunking_is_a_chunker_spec_and_stores_back_as_it_was(config, name, params):
    assert config_chunker(config) == (name, params)
    spec = chunker_spec(config)
    assert spec.name == name and spec.version, "a built-in cut has a full spec too"
    back = apply_chunker(dataclasses.replace(ChunkConfig(), heading_prefix=config.heading_prefix),
                         {"name": name, **params})
    assert back == config and chunk_set_id(back, "m") == chunk_set_id(config, "m"), "same stored form, same id"


def test_a_built_in_cut_goes_through_the_registry_path_with_the_same_chunks(hash_embedder, hash_ws):
    config = ChunkConfig(unit="words", size=8, structure_aware=True)
    cutter = SetCutter(config, hash_ws.store, hash_embedder, hash_ws.counter)
    doc = Document("a.md", "Orbit", TEXT, "0" * 64, len(TEXT), 0.0, "md", HEADINGS)
    assert cutter.chunker.spec == chunker_spec(config) and cutter.chunker.spec.name == "structure"
    assert cutter.pieces(doc) == chunk_document(TEXT, HEADINGS, config, hash_ws.counter)


def test_a_chunkers_kind_says_how_its_chunking_reads(monkeypatch):
    """A new kind that describes itself: its label parts and chips show in the set's label and the strategy's
    chips, as the built-in cuts' own do (``200 tokens``, ``200 tok``)."""
    toy = dataclasses.replace(RECURSIVE, name="toy", label_parts=lambda name, p: [f"toy of {p['max_tokens']}"],
                              chips=lambda name, p: [("size", f"toy {p['max_tokens']}")])
    monkeypatch.setitem(registry._REGISTRY, "toy", toy)
    config = apply_chunker(ChunkConfig(heading_prefix=True), {"name": "toy", "max_tokens": 90})
    assert chunking_label(config) == "toy of 90, heading-path embedding"
    assert chips(Strategy(chunk=config))[0] == ("size", "toy 90")
    assert chunking_label(ChunkConfig(overlap=20, structure_aware=True)) == "200 tokens / 20 overlap, structure-aware"
    assert chunking_label(ChunkConfig(unit="sentences", size=1)) == "1 sentence"
    assert chunking_label(ChunkConfig(unit="words", size=1, overlap=0)) == "1 word"
    assert chunking_label(ChunkConfig(unit="sentences", size=3)) == "3 sentences"
    assert chips(Strategy(chunk=ChunkConfig(unit="sentences", size=4)))[0] == ("size", "4 sent")
    recursive = apply_chunker(ChunkConfig(), "recursive")
    assert chips(Strategy(chunk=recursive))[0] == ("chunker", "recursive (max_tokens=256, overlap=0)")


def test_one_unit_reads_singular_in_every_label_of_a_strategy():
    """A count of one reads singular wherever a strategy's words count units: the set's label, the size chip
    and a parent expansion's size (``1 sentence``, ``1 word``, ``parents of 1 sentence``); more stay plural."""
    one = Strategy(chunk=ChunkConfig(unit="sentences", size=1), expander=Parent(parent_size=1, parent_top_k=2))
    assert one.describe() == "dense top-5, 1 sentence, parents of 1 sentence, top 2"
    assert chips(Strategy(chunk=ChunkConfig(unit="words", size=1)))[0] == ("size", "1 word")
    assert chips(Strategy(chunk=ChunkConfig(unit="words", size=2)))[0] == ("size", "2 words")
    assert Parent(parent_size=1).describe("tokens").startswith("parents of 1 token,")
    assert Parent(parent_size=3).describe("words").startswith("parents of 3 words,")
