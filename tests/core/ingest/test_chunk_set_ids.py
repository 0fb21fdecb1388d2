"""Every chunk set keeps its identity: the ids below were computed by the code before ``ChunkConfig.set_id`` became
``chunkers.identity.chunk_set_id`` (built-in cuts, registry chunkers, heading paths, contextual sets, scopes, two
embedding models); the function must still give each of them."""

import pytest

from workbench.core.ingest.chunkers.choice import apply_chunker
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.values import ChunkConfig

CASES = [  # (name, ChunkConfig fields, chunker, scope key)
    ("default", dict(), None, ""),
    ("tokens 100/20", dict(size=100, overlap=20), None, ""),
    ("words structure", dict(unit="words", size=120, structure_aware=True), None, ""),
    ("sentences heading", dict(unit="sentences", size=5, overlap=1, heading_prefix=True), None, ""),
    ("contextual", dict(contextual=True), None, ""),
    ("scoped", dict(size=300), None, "abc123"),
    ("recursive", dict(), "recursive", ""),
    ("recursive 128", dict(), {"name": "recursive", "max_tokens": 128, "overlap": 16}, ""),
    ("semantic", dict(), "semantic", ""),
    ("cluster_semantic", dict(), "cluster_semantic", ""),
    ("late fixed", dict(), "late", ""),
    ("recursive heading scoped", dict(heading_prefix=True), "recursive", "s1"),
]
MODELS = ("sentence-transformers/all-MiniLM-L6-v2", "ollama:nomic-embed-text")
BEFORE = {  # computed by the earlier code: ChunkConfig(**fields) (+ apply_chunker).set_id(model, scope)
    "default | sentence-transformers/all-MiniLM-L6-v2": "ed565af164b37805",
    "default | ollama:nomic-embed-text": "d513c2990838ee34",
    "tokens 100/20 | sentence-transformers/all-MiniLM-L6-v2": "a1e03a43104bc670",
    "tokens 100/20 | ollama:nomic-embed-text": "f72269e7afdcdee6",
    "words structure | sentence-transformers/all-MiniLM-L6-v2": "499977fdcad52cb9",
    "words structure | ollama:nomic-embed-text": "a7536898a85e8b56",
    "sentences heading | sentence-transformers/all-MiniLM-L6-v2": "eb1dc569051c7cfe",
    "sentences heading | ollama:nomic-embed-text": "cc6d3475cf4d5301",
    "contextual | sentence-transformers/all-MiniLM-L6-v2": "585f68814b7bd233",
    "contextual | ollama:nomic-embed-text": "efb70e366add594c",
    "scoped | sentence-transformers/all-MiniLM-L6-v2": "8a9e70b1b86c703a",
    "scoped | ollama:nomic-embed-text": "c7503872da46aecc",
    "recursive | sentence-transformers/all-MiniLM-L6-v2": "0200eb74ac7d2b39",
    "recursive | ollama:nomic-embed-text": "685e02e33449fb0a",
    "recursive 128 | sentence-transformers/all-MiniLM-L6-v2": "0e1c8de7d804246f",
    "recursive 128 | ollama:nomic-embed-text": "9eaac4a706cf76f5",
    "semantic | sentence-transformers/all-MiniLM-L6-v2": "de5c027990aa3e77",
    "semantic | ollama:nomic-embed-text": "c131141fdbc81d1e",
    "cluster_semantic | sentence-transformers/all-MiniLM-L6-v2": "0fb27627154aa36a",
    "cluster_semantic | ollama:nomic-embed-text": "63aec4204ea6ecbc",
    "late fixed | sentence-transformers/all-MiniLM-L6-v2": "bd72e45886906450",
    "late fixed | ollama:nomic-embed-text": "9f0328223be21e05",
    "recursive heading scoped | sentence-transformers/all-MiniLM-L6-v2": "f65221d04baf5d00",
    "recursive heading scoped | ollama:nomic-embed-text": "494455c90b229325",
}


@pytest.mark.parametrize("name,fields,chunker,scope", CASES, ids=[c[0] for c in CASES])
def test_chunk_set_ids_are_the_ones_computed_before(name, fields, chunker, scope):
    config = ChunkConfig(**fields)
    if chunker is not None:
        config = apply_chunker(config, chunker)
    for model in MODELS:
        assert chunk_set_id(config, model, scope) == BEFORE[f"{name} | {model}"]


def test_the_table_covers_every_case_and_the_ids_differ():
    assert len(BEFORE) == len(CASES) * len(MODELS) == len(set(BEFORE.values()))
