"""A chunk set's identity and label: the one function that names a chunk set (``chunk_set_id``), and its short
label for people (``chunking_label``). Both read a registry chunker's full spec from the registry here, where the
registry is, so the chunking values below (``values.ChunkConfig``) need no naming injected at import.
"""

from __future__ import annotations

import hashlib

from workbench.core.ingest.chunkers.choice import chunker_spec, cut_label_parts
from workbench.core.ingest.chunkers.edited import HandSource
from workbench.core.ingest.values import ChunkConfig


def chunk_set_id(config: ChunkConfig, model_id: str, scope_key: str = "", hands: HandSource | None = None) -> str:
    """The identity of the chunk set cut by ``config`` and embedded by ``model_id``: the first 16 hex digits of
    the sha256 of ``config``'s canonical JSON (``ChunkConfig.to_json``: optional flags only when set), ``|``,
    the model id, then ``|`` and the chunker's full spec (name, parameters, library and installed version: a
    library upgrade builds a new set rather than mixing cuts) when the chunker is stored as a spec
    (``config.chunker``), then ``|scope:`` and ``scope_key`` (``store.Scope.key``, the documents of a scoped
    set) when scoped. The built-in cuts (``fixed``, ``sentence``, ``structure``) are chunkers like any other
    but their parameters live in the config's own fields (``choice.config_chunker``), already in its JSON: they
    add no spec, which keeps the ids their sets had before chunkers existed. Every chunk set ever stored keeps
    its id through this function (``tests/core/ingest/test_chunk_set_ids.py`` holds ids computed by earlier code). An
    ``edited:NAME`` chunker's spec is read from ``hands``, the data folder's hand-made chunkings."""
    identity = f"{config.to_json()}|{model_id}"
    if config.chunker:  # the old id input: the spec only where the config's fields do not hold the chunker
        identity += f"|{chunker_spec(config, hands).to_json()}"
    if scope_key:
        identity += f"|scope:{scope_key}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def chunking_label(config: ChunkConfig) -> str:
    """A short label for people, e.g. ``200 tokens / 20 overlap, heading-path embedding``."""
    parts = cut_label_parts(config)
    if config.heading_prefix:
        parts.append("heading-path embedding")
    if config.contextual:
        parts.append("contextual (LLM)")
    return ", ".join(parts)
