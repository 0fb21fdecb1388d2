"""A semantic chunker's explanation of its cuts is the computation that cut: the cuts it reports equal the
chunker's chunks and the stored chunk set's, each cut's reason agrees with the scores and the threshold it
reports, and explaining a built set embeds nothing (hashed embedder)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLE
from fake_embedder import HashEmbedder, RecordingEmbedder

from workbench.core.index.cut_explain import explains_cuts
from workbench.core.ingest.chunkers.cut_explanation import BY_SCORE, BY_SIZE, NO_CUT, ExplainingChunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import ChunkerResources
from workbench.core.ingest.chunkers.registry import get_kind
from workbench.core.ingest.tokens import counter_for_model
from workbench.core.retrieve.strategy.presets import resolve
from workbench.core.workspace import Workspace

EMBEDDER = HashEmbedder()
COUNTER = counter_for_model(None)
TOPICS = ["weather", "market", "garden", "engine"]
TEXT = "\n\n".join(" ".join(f"The {t} report {n} says the {t} {t} is calm." for n in range(5)) for t in TOPICS)


def _make(kind: str, **params: object) -> ExplainingChunker:
    resources = ChunkerResources(COUNTER, EMBEDDER.encode, EMBEDDER.model_id, {})
    chunker = get_kind(kind).make(resources, **params)
    assert isinstance(chunker, ExplainingChunker)
    return chunker


@pytest.mark.parametrize("percentile,max_tokens", [(90.0, 512), (50.0, 512), (70.0, 20), (100.0, 12)])
def test_semantic_reports_its_real_cuts_and_why(percentile, max_tokens):
    chunker = _make("semantic", percentile=percentile, max_tokens=max_tokens)
    why = chunker.explain(TEXT, ())
    assert list(why.cuts) == chunker.chunk(TEXT, ())
    assert len(why.similarity) == len(why.units) - 1 == len(why.reasons)
    assert why.threshold is not None
    for i, reason in enumerate(why.reasons):  # the reported line decides each score cut, the size the rest
        assert (reason == BY_SCORE) == (why.similarity[i] < why.threshold), (i, why.similarity[i], why.threshold)
    ends = [b for _a, b in why.cuts[:-1]]
    assert ends == [why.units[i][1] for i in why.cut_indices()], "every chunk end is a reported cut"
    if max_tokens < 100:
        assert BY_SIZE in why.reasons, "a small limit cuts by size too"


def test_semantic_threshold_is_the_percentile_of_the_distances():
    why = _make("semantic", percentile=75.0).explain(TEXT, ())
    distances = 1.0 - np.asarray(why.similarity)
    assert why.threshold == pytest.approx(1.0 - float(np.percentile(distances, 75.0)))
    starts = {TEXT.index(f"The {t} report 0") for t in TOPICS[1:]}
    assert starts <= {a for a, _b in why.cuts}, "cuts where the topic changes"


def test_cluster_semantic_reports_its_groups():
    chunker = _make("cluster_semantic", max_tokens=120, piece_tokens=14)
    why = chunker.explain(TEXT, ())
    assert list(why.cuts) == chunker.chunk(TEXT, ())
    assert why.threshold is None and why.unit == "piece"
    assert len(why.cuts) == len(TOPICS)
    cut = set(why.cut_indices())
    assert len(cut) == len(TOPICS) - 1
    assert all(why.reasons[i] == NO_CUT for i in range(len(why.reasons)) if i not in cut)
    assert max(why.similarity[i] for i in cut) < min(why.similarity[i] for i in range(len(why.reasons))
                                                      if i not in cut), "it cut where pieces are least alike"


def test_one_sentence_has_no_boundary():
    why = _make("semantic").explain("Just one sentence here.", ())
    assert why.similarity == () and why.cuts == ((0, 23),) and why.boundary_at(5) is None


def test_explaining_a_built_set_embeds_nothing_and_matches_its_stored_chunks(tmp_path):
    emb = RecordingEmbedder()
    ws = Workspace(tmp_path / "data", embedder=emb)
    ws.add_paths([str(SAMPLE)])
    for chunker in ({"name": "semantic", "percentile": 80}, {"name": "cluster_semantic", "max_tokens": 120}):
        config = resolve({"chunker": chunker}).chunk
        assert explains_cuts(config)
        rt = ws.sets.runtime(ws.sets.ensure_chunk_set(config).id)
        emb.batches.clear()
        for doc_id in sorted(rt.doc_first_row):
            doc = ws.corpus.document(doc_id)
            why = ws.sets.explain_cuts(config, doc)
            stored = [(rt.span(r).start, rt.span(r).end) for r in range(*rt.doc_rows(doc_id))]
            assert list(why.cuts) == stored, f"{chunker['name']} on {doc.path}"
        assert emb.batches == [], "explaining read the vectors the build cached"
    ws.close()


def test_other_chunkers_do_not_explain(tmp_path):
    config = resolve({"chunker": {"name": "recursive"}}).chunk
    assert not explains_cuts(config)
    ws = Workspace(tmp_path / "data", embedder=HashEmbedder())
    ws.add_paths([str(SAMPLE)])
    doc = ws.corpus.document(ws.records.documents()[0]["id"])
    with pytest.raises(ChunkerError, match="does not explain"):
        ws.sets.explain_cuts(config, doc)
    ws.close()
