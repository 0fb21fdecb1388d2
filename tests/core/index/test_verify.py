"""``verify`` says what is true: a pending lazy update of a chunk set is not damage (but real damage still is),
and a lowered ``nprobe`` of an approximate index is found by measuring recall again. A search on a full disk
reads the last complete state (``test_store_resources.py`` holds the tmpfs fixture)."""

import shutil

import faiss
import numpy as np

from workbench.core.index.build import index_path, save_index
from workbench.core.index.embedding import normalised
from workbench.core.index.vectors import VectorIndex
from workbench.core.index.verify import nprobe_problem, verify_store
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.strategy.value import Strategy


def _two_sets_one_edit(ws, folder):
    """Index ``folder`` at 250 tokens, edit one file, index at 100 tokens: the 250 set keeps the edited
    file's earlier chunk ids in its FAISS file until it is next searched."""
    ws.add_paths([str(folder)], config=ChunkConfig(size=250))
    with open(folder / "lab-safety.md", "a", encoding="utf-8") as fh:
        fh.write("\nOne more rule, added after the first index.\n")
    ws.add_paths([str(folder)], config=ChunkConfig(size=100))
    return next(i for i in ws.store.sets.chunk_sets() if i.config.size == 250)


def test_a_pending_lazy_update_is_reported_as_such_not_as_damage(hash_ws, tmp_path):
    from conftest import SAMPLE

    folder = tmp_path / "c"
    shutil.copytree(SAMPLE, folder)
    big = _two_sets_one_edit(hash_ws, folder)
    held = VectorIndex.load(index_path(hash_ws.data_dir, big.id)).ids()
    assert len(np.setdiff1d(held, hash_ws.store.sets.chunk_ids(big.id))), "the premise: stale ids wait in the file"
    report = verify_store(hash_ws)
    assert report["consistent"], report["problems"]
    assert any("up to date after the next search" in n and big.id in n for n in report["notes"]), report["notes"]
    hash_ws.search("what protects the eyes?", Strategy(chunk=big.config))
    after = verify_store(hash_ws)
    assert after["consistent"] and not any("next search" in n for n in after["notes"])


def test_real_damage_is_still_reported_while_an_update_is_pending(hash_ws, tmp_path):
    """A FAISS file (with a recorded digest) that lacks chunk ids of the set is damage, pending update or not;
    and stale ids in a set that is up to date are damage too."""
    from conftest import SAMPLE

    folder = tmp_path / "c"
    shutil.copytree(SAMPLE, folder)
    big = _two_sets_one_edit(hash_ws, folder)
    store, path = hash_ws.store, index_path(hash_ws.data_dir, big.id)
    index = VectorIndex.load(path)
    index.index.remove_ids(store.sets.chunk_ids(big.id)[:2])
    save_index(store, index, path, big.id)
    report = verify_store(hash_ws)
    assert not report["consistent"] and any("lacks 2 chunk id(s)" in p for p in report["problems"])

    small = next(i for i in store.sets.chunk_sets() if i.config.size == 100)  # up to date
    spath = index_path(hash_ws.data_dir, small.id)
    sindex = VectorIndex.load(spath)
    sindex.index.add_with_ids(normalised(np.ones((1, hash_ws.embedder.dim), dtype=np.float32)),
                              np.array([10**9], dtype=np.int64))
    save_index(store, sindex, spath, small.id)
    problems = verify_store(hash_ws)["problems"]
    assert any(small.id in p and "holds 1 id(s) with no chunk" in p for p in problems), problems


def _ivf(tmp_path):
    """An IVF index of random vectors, which needs far more than the least nprobe for its recall target."""
    rng = np.random.default_rng(1)
    vectors = normalised(rng.normal(size=(8000, 48)).astype(np.float32))
    return VectorIndex.build(np.arange(100, 8100), vectors, 48, approx=True)


def test_a_lowered_nprobe_is_found_by_measuring_recall_again(tmp_path):
    index = _ivf(tmp_path)
    assert index.kind == "ivf" and index.nprobe > 24, "the premise: this set needs more than the least nprobe"
    assert nprobe_problem(index) is None
    faiss.extract_index_ivf(index.index).nprobe = 1  # as a tampered file keeps it
    path = tmp_path / "lowered.faiss"
    index.save(path)
    loaded = VectorIndex.load(path)
    problem = nprobe_problem(loaded)
    assert problem is not None and f"scans {loaded.nprobe} list(s)" in problem and "--repair" in problem
    _ivf(tmp_path).save(tmp_path / "calibrated.faiss")
    assert nprobe_problem(VectorIndex.load(tmp_path / "calibrated.faiss")) is None
