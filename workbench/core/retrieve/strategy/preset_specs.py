"""The shipped strategy presets as plain data (``strategies.PRESETS`` turns them into ``Strategy`` values).

Each is a flat strategy spec, as ``workbench strategies --json`` and strategy JSON accept it.
"""

from __future__ import annotations

from typing import Any

PRESET_SPECS: list[dict[str, Any]] = [
    dict(name="plain", top_k=5, size=200),
    dict(name="neighbours", top_k=5, size=100, expansion="neighbours", window=1),
    dict(name="token-window", top_k=5, size=64, expansion="tokens", window_tokens=384),
    dict(name="sentence-window", top_k=5, unit="sentences", size=1, expansion="neighbours", window=2),
    dict(name="parent-child", top_k=3, size=100, expansion="parent", parent_size=400, parent_top_k=3),
    dict(name="heading-path", top_k=5, size=200, structure_aware=True, heading_prefix=True),
    dict(name="hybrid", top_k=5, size=200, search="hybrid"),
    dict(name="llm-rerank", top_k=5, size=200, rerank="llm", rerank_candidates=15),
    dict(name="summary-to-detail", top_k=5, size=100, summary=True, summary_sections=3),
    dict(name="selective", top_k=5, size=100, expansion="selective", margin=0.05, merge_gap=2, max_steps=2),
    dict(name="contextual", top_k=5, size=200, contextual=True),
    # from measurement (issue #16; fitted on the chatlogs and finance corpora of chroma-general, see docs/evaluation.md)
    dict(name="budgeted-neighbours", top_k=10, size=64, search="hybrid", expansion="neighbours", window=2,
            budget=1000),
    dict(name="multi-granularity", top_k=10, size=64, search="hybrid", coarse="100:1+200:1",
            expansion="neighbours", window=2, budget=1000),
    dict(name="segments-precision", top_k=10, size=100, search="hybrid", expansion="segments", penalty=0.25,
            decay=10.0, max_segment_chunks=4, budget=1000),
    dict(name="segments-balanced", top_k=10, size=100, search="hybrid", expansion="segments", penalty=0.20,
            decay=10.0, max_segment_chunks=4, budget=1000),
    dict(name="segments-recall", top_k=10, size=100, search="hybrid", expansion="segments", penalty=0.15,
            decay=10.0, max_segment_chunks=3, budget=1000),
]
