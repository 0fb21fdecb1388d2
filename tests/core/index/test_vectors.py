"""FAISS index files: exact and approximate kinds, atomic save, load errors, id maps."""

import numpy as np
import pytest

from workbench.core.index.vectors import VectorIndex


def clustered(n, dim=32, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(50, dim))
    x = centres[rng.integers(0, 50, n)] + 0.5 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_exact_index_round_trip(tmp_path):
    x = clustered(500)
    ids = np.arange(500) * 7 + 3
    index = VectorIndex.build(ids, x, 32)
    assert index.kind == "flat"
    index.save(tmp_path / "a.faiss")
    loaded = VectorIndex.load(tmp_path / "a.faiss")
    assert np.array_equal(loaded.ids(), np.sort(ids))
    scores, found = loaded.search(x[10], 1)
    assert found[0] == ids[10] and scores[0] == pytest.approx(1.0, abs=1e-5)
    assert not list(tmp_path.glob("*.tmp*")), "no temporary file left behind"


def test_approximate_index_recall_and_reconstruct(tmp_path):
    x = clustered(20_000)
    ids = np.arange(20_000) + 100
    approx = VectorIndex.build(ids, x, 32, approx=True)
    exact = VectorIndex.build(ids, x, 32, approx=False)
    assert approx.kind == "ivf"
    approx.save(tmp_path / "b.faiss")
    approx = VectorIndex.load(tmp_path / "b.faiss")
    queries = clustered(50, seed=1)
    recall = np.mean([len(set(approx.search(q, 10)[1]) & set(exact.search(q, 10)[1])) / 10 for q in queries])
    assert recall >= 0.95
    assert np.allclose(approx.vectors_for(ids[:3]), x[:3])


@pytest.mark.parametrize("content", [b"", b"garbage" * 100])
def test_unreadable_files_raise_value_error(tmp_path, content):
    path = tmp_path / "c.faiss"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="c.faiss"):
        VectorIndex.load(path)
    with pytest.raises(ValueError, match="missing"):
        VectorIndex.load(tmp_path / "none.faiss")


def test_the_index_kind_follows_the_measured_threshold():
    from workbench.core.index.vectors import APPROX_THRESHOLD

    assert VectorIndex.kind_for(APPROX_THRESHOLD) == "flat" and VectorIndex.kind_for(APPROX_THRESHOLD + 1) == "ivf"
    n = APPROX_THRESHOLD + 1
    assert VectorIndex.build(np.arange(n), clustered(n), 32).kind == "ivf"


def test_nprobe_is_measured_for_the_set_and_kept_in_its_file(tmp_path):
    from workbench.core.index.vectors import IVF_NPROBE, RECALL_TARGET, pseudo_questions

    easy = clustered(30_000)  # 50 tight clusters: few lists hold a question's neighbours
    rng = np.random.default_rng(5)
    hard = rng.normal(size=(30_000, 32)).astype(np.float32)  # no structure: neighbours spread over every list
    hard /= np.linalg.norm(hard, axis=1, keepdims=True)
    ids = np.arange(30_000) + 1
    built = {name: VectorIndex.build(ids, x, 32, approx=True) for name, x in (("easy", easy), ("hard", hard))}
    assert IVF_NPROBE <= built["easy"].nprobe < built["hard"].nprobe, "harder data scans more lists"
    for name, x in (("easy", easy), ("hard", hard)):
        index = built[name]
        index.save(tmp_path / f"{name}.faiss")
        loaded = VectorIndex.load(tmp_path / f"{name}.faiss")
        assert loaded.nprobe == index.nprobe, "the measured setting is kept in the file"
        exact = VectorIndex.build(ids, x, 32, approx=False)
        queries = pseudo_questions(x, 100, seed=9)  # other pseudo-questions than the calibration's
        recall = np.mean([len(set(loaded.search(q, 10)[1]) & set(exact.search(q, 10)[1])) / 10 for q in queries])
        assert recall >= RECALL_TARGET - 0.01, (name, recall)
