"""A chunk set's identity and label: the one function that names a chunk set (``chunk_set_id``), and its short
label for people (``chunking_label``). Both read a registry chunker's full spec from the registry here, where the
registry is, so the chunking values below (``values.ChunkConfig``) need no naming injected at import.
"""

from __future__ import annotations

import hashlib

from workbench.core.ingest.chunkers.choice import chunker_label, chunker_spec
from workbench.core.ingest.values import ChunkConfig


def chunk_set_id(config: ChunkConfig, model_id: str, scope_key: str = "") -> str:
    """The identity of the chunk set cut by ``config`` and embedded by ``model_id``: the first 16 hex digits of
    the sha256 of ``config``'s canonical JSON (``ChunkConfig.to_json``: optional flags only when set), ``|``,
    the model id, then ``|`` and a registry chunker's full spec (name, parameters, library and installed
    version: a library upgrade builds a new set rather than mixing cuts) when it has one, then ``|scope:`` and
    ``scope_key`` (``store.Scope.key``, the documents of a scoped set) when scoped. Every chunk set ever stored
    keeps its id through this function (``tests/test_chunk_set_ids.py`` holds ids computed by earlier code)."""
    identity = f"{config.to_json()}|{model_id}"
    spec = chunker_spec(config)
    if spec is not None:
        identity += f"|{spec.to_json()}"
    if scope_key:
        identity += f"|scope:{scope_key}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def chunking_label(config: ChunkConfig) -> str:
    """A short label for people, e.g. ``200 tokens / 20 overlap, heading-path embedding``."""
    parts = [f"{config.size} {config.unit}"]
    if config.overlap:
        parts[0] += f" / {config.overlap} overlap"
    if config.chunker:
        parts = [chunker_label(config.chunker)]
    if config.structure_aware:
        parts.append("structure-aware")
    if config.heading_prefix:
        parts.append("heading-path embedding")
    if config.contextual:
        parts.append("contextual (LLM)")
    return ", ".join(parts)
