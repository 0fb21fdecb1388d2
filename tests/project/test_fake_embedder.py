"""The fake embedder used by pipeline unit tests behaves like an embedder: normalised, deterministic,
word overlap scores higher, and a workspace indexes and searches with it without loading any model."""

from __future__ import annotations

import numpy as np
from fake_embedder import HashEmbedder

from workbench.core.retrieve.strategy.presets import Strategy


def test_vectors_are_unit_deterministic_and_overlap_scores_higher():
    emb = HashEmbedder()
    a, b, c = emb.encode(["Run the migration before the rollout.", "The migration runs before rollout",
                          "Bananas are yellow fruit"])
    assert np.allclose([np.linalg.norm(v) for v in (a, b, c)], 1.0, atol=1e-5)
    assert np.array_equal(a, emb.encode(["Run the migration before the rollout."])[0])
    assert float(a @ b) > float(a @ c)
    assert np.linalg.norm(emb.encode([""])[0]) == 1.0


def test_workspace_indexes_and_searches_without_a_model(hash_ws, tmp_path):
    doc = tmp_path / "guide.md"
    topics = ["harbour", "glacier", "orchard", "lantern", "meadow", "quarry"]
    doc.write_text("# Guide\n\n" + "\n\n".join(
        f"## {t.title()}\n\n" + " ".join(f"The {t} note {n} says the {t} is checked daily." for n in range(25))
        for t in topics))
    report = hash_ws.add_paths([str(doc)])
    assert not report.failed
    result = hash_ws.search("is the orchard checked daily", Strategy(top_k=3))
    text = hash_ws.corpus.document(result.hits[0].span.doc_id).text
    assert "orchard" in text[result.hits[0].span.start:result.hits[0].span.end]
    assert hash_ws.embedder.calls >= 2 and hash_ws.embedder.model_id.startswith("test-hash")
